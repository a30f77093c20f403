// ModelLibrary: the models the user added, stored in SQLite (ft::data_dir()/freetoken.db by default). The schema is
// versioned with `PRAGMA user_version` and migrated forward step by step on open; a database from a newer FreeToken
// is refused rather than damaged. add() checks the path before inserting: a readable GGUF file (magic "GGUF") or a
// Hugging Face folder (config.json + *.safetensors), then asks the engine's inspector (ModelFacts) for architecture,
// parameters, quant and support, and keeps those facts with the row so the page never re-reads big files.
// A file the inspector cannot read is still added, with the reason in facts.error (shown on its row).
// The same database holds the downloads table (Downloader). Errors are ft::Error with a message naming the path and
// what to do. One instance per thread (own connection).
#pragma once

#include <QDateTime>
#include <QList>
#include <optional>
#include <QString>
#include <QStringList>

#include "model_facts.h"

namespace ft {

struct ModelRecord {
    qint64 id = 0;
    QString path;          // absolute, cleaned
    QString displayName;
    QString format;        // "gguf" or "safetensors"
    qint64 sizeBytes = 0;
    QDateTime addedAt;     // UTC
    QString origin;        // "added" (file dialog, drop), "scan" (models folder), "download"
    ModelFacts facts;      // from the engine's inspector when added (re-read for rows of schema 1)
};

struct ScanResult {
    int added = 0;
    int known = 0;            // already in the library
    QStringList errors;       // one line per model that was refused
};

class ModelLibrary {
public:
    // 1: models. 2: models.facts (JSON of ModelFacts) and models.origin; the downloads table.
    static constexpr int kSchemaVersion = 2;

    // `database_file` empty: ft::data_dir()/freetoken.db. Throws ft::Error(io) if it cannot be opened,
    // ft::Error(unsupported) if it was written by a newer version.
    explicit ModelLibrary(const QString& database_file = {});
    ~ModelLibrary();
    ModelLibrary(const ModelLibrary&) = delete;
    ModelLibrary& operator=(const ModelLibrary&) = delete;

    QString databasePath() const { return m_path; }
    int schemaVersion() const;
    QList<ModelRecord> models() const;   // newest first

    // Validates `path` and inserts it. Throws ft::Error: not_found (missing / unreadable), invalid_file (not a GGUF
    // file or a model folder), invalid_argument (already in the library).
    ModelRecord add(const QString& path, const QString& origin = QStringLiteral("added"));
    // Removes the row. With `delete_files`: a GGUF's file (every part of a split model) is deleted too; a folder only
    // when it lies inside the models folder (FreeToken put it there), else ft::Error(invalid_argument) and nothing
    // changes. Throws ft::Error(io) when a file cannot be deleted (the row stays).
    bool remove(qint64 id, bool delete_files = false);
    // Adds every model under `folder` (default: ft::models_dir()), two levels deep: .gguf files (first parts only
    // for split models) and Hugging Face folders. Already known models are counted, not re-added.
    ScanResult scan(const QString& folder = {});
    std::optional<ModelRecord> find(qint64 id) const;
    QString connectionName() const { return m_connection; }

    // What add() would store for `path`, without touching the database (same checks, same errors).
    static ModelRecord inspect(const QString& path);

private:
    void migrate();
    void storeFacts(qint64 id, const ModelFacts& facts) const;
    QString m_path;
    QString m_connection;
};

}  // namespace ft
