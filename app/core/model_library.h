// ModelLibrary: the models the user added, stored in SQLite (ft::data_dir()/freetoken.db by default). The schema is
// versioned with `PRAGMA user_version` and migrated forward step by step on open; a database from a newer FreeToken
// is refused rather than damaged. add() checks the path before inserting: a readable GGUF file (magic "GGUF") or a
// Hugging Face folder (config.json + *.safetensors). Parsing the model itself is the engine's job, later.
// Errors are ft::Error with a message naming the path and what to do. One instance per thread (own connection).
#pragma once

#include <QDateTime>
#include <QList>
#include <QString>

namespace ft {

struct ModelRecord {
    qint64 id = 0;
    QString path;          // absolute, cleaned
    QString displayName;
    QString format;        // "gguf" or "safetensors"
    qint64 sizeBytes = 0;
    QDateTime addedAt;     // UTC
};

class ModelLibrary {
public:
    static constexpr int kSchemaVersion = 1;

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
    ModelRecord add(const QString& path);
    bool remove(qint64 id);

    // What add() would store for `path`, without touching the database (same checks, same errors).
    static ModelRecord inspect(const QString& path);

private:
    void migrate();
    QString m_path;
    QString m_connection;
};

}  // namespace ft
