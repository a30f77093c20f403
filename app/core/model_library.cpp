#include "model_library.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>

#include <atomic>

#include "ft/error.h"
#include "ft/paths.h"

namespace ft {

namespace {

std::atomic<int> g_connection_counter{0};

// migrations[i] takes the schema from version i to i + 1. Append only; never edit a shipped step.
const QList<QStringList>& migrations() {
    static const QList<QStringList> steps = {
        {
            "CREATE TABLE models ("
            " id INTEGER PRIMARY KEY AUTOINCREMENT,"
            " path TEXT NOT NULL UNIQUE,"
            " display_name TEXT NOT NULL,"
            " format TEXT NOT NULL,"
            " size_bytes INTEGER NOT NULL DEFAULT 0,"
            " added_at TEXT NOT NULL)",
        },
    };
    return steps;
}

[[noreturn]] void throw_sql(const QString& what, const QSqlError& err, const QString& db) {
    throw Error(ErrorCode::io, (what + " in " + db + ": " + err.text()).toStdString(),
                "check that the data folder is writable and the disk is not full");
}

std::string q(const QString& s) { return s.toStdString(); }

}  // namespace

ModelLibrary::ModelLibrary(const QString& database_file) {
    m_path = database_file.isEmpty() ? QString::fromStdString((data_dir() / "freetoken.db").string()) : database_file;
    m_connection = QStringLiteral("ft_models_%1").arg(g_connection_counter.fetch_add(1));
    QSqlDatabase db = QSqlDatabase::addDatabase("QSQLITE", m_connection);
    db.setDatabaseName(m_path);
    if (!db.open()) {
        const QString err = db.lastError().text();
        db = QSqlDatabase();
        QSqlDatabase::removeDatabase(m_connection);
        throw Error(ErrorCode::io, q("cannot open the model library " + m_path + ": " + err),
                    "check that the data folder exists and is writable (set FT_DATA_DIR to use another one)");
    }
    try {
        migrate();
    } catch (...) {
        db.close();
        db = QSqlDatabase();
        QSqlDatabase::removeDatabase(m_connection);
        throw;
    }
}

ModelLibrary::~ModelLibrary() {
    {
        QSqlDatabase db = QSqlDatabase::database(m_connection, false);
        if (db.isValid()) db.close();
    }
    QSqlDatabase::removeDatabase(m_connection);
}

int ModelLibrary::schemaVersion() const {
    QSqlQuery query(QSqlDatabase::database(m_connection));
    if (!query.exec("PRAGMA user_version") || !query.next()) throw_sql("cannot read the schema version", query.lastError(), m_path);
    return query.value(0).toInt();
}

void ModelLibrary::migrate() {
    const int current = schemaVersion();
    if (current > kSchemaVersion) {
        throw Error(ErrorCode::unsupported,
                    q(QStringLiteral("the model library %1 has schema version %2, newer than this FreeToken knows (%3)")
                          .arg(m_path).arg(current).arg(kSchemaVersion)),
                    "update FreeToken, or point FT_DATA_DIR at another folder");
    }
    QSqlDatabase db = QSqlDatabase::database(m_connection);
    for (int v = current; v < kSchemaVersion; ++v) {
        if (!db.transaction()) throw_sql("cannot start a migration", db.lastError(), m_path);
        QSqlQuery query(db);
        for (const QString& sql : migrations()[v]) {
            if (!query.exec(sql)) {
                const QSqlError err = query.lastError();
                db.rollback();
                throw_sql(QStringLiteral("migration %1 -> %2 failed").arg(v).arg(v + 1), err, m_path);
            }
        }
        if (!query.exec(QStringLiteral("PRAGMA user_version = %1").arg(v + 1))) {
            const QSqlError err = query.lastError();
            db.rollback();
            throw_sql("cannot record the schema version", err, m_path);
        }
        if (!db.commit()) throw_sql("cannot commit a migration", db.lastError(), m_path);
    }
}

QList<ModelRecord> ModelLibrary::models() const {
    QSqlQuery query(QSqlDatabase::database(m_connection));
    if (!query.exec("SELECT id, path, display_name, format, size_bytes, added_at FROM models ORDER BY id DESC"))
        throw_sql("cannot list models", query.lastError(), m_path);
    QList<ModelRecord> out;
    while (query.next()) {
        ModelRecord r;
        r.id = query.value(0).toLongLong();
        r.path = query.value(1).toString();
        r.displayName = query.value(2).toString();
        r.format = query.value(3).toString();
        r.sizeBytes = query.value(4).toLongLong();
        r.addedAt = QDateTime::fromString(query.value(5).toString(), Qt::ISODate);
        out.append(r);
    }
    return out;
}

ModelRecord ModelLibrary::inspect(const QString& raw_path) {
    const QString trimmed = raw_path.trimmed();
    if (trimmed.isEmpty()) throw Error(ErrorCode::invalid_argument, "no path given", "choose a .gguf file or a model folder");
    const QString path = QDir::cleanPath(QFileInfo(trimmed).absoluteFilePath());  // also drops a trailing '/'
    const QFileInfo info(path);
    if (!info.exists())
        throw Error(ErrorCode::not_found, q(path + " does not exist"), "check the path, or pick the file again");
    if (!info.isReadable())
        throw Error(ErrorCode::not_found, q(path + " is not readable"), "check the file permissions");

    ModelRecord r;
    r.path = path;
    if (info.isFile()) {
        if (info.suffix().compare("gguf", Qt::CaseInsensitive) != 0)
            throw Error(ErrorCode::invalid_file, q(path + " is not a .gguf file"),
                        "choose a GGUF model file, or the folder of a Hugging Face model (config.json + .safetensors)");
        QFile f(path);
        if (!f.open(QIODevice::ReadOnly))
            throw Error(ErrorCode::not_found, q(path + " cannot be opened: " + f.errorString()), "check the file permissions");
        if (f.read(4) != "GGUF")
            throw Error(ErrorCode::invalid_file, q(path + " is not a GGUF file (it does not start with the GGUF magic)"),
                        "the download may be incomplete or the file is of another format");
        r.format = "gguf";
        r.displayName = info.completeBaseName();
        r.sizeBytes = info.size();
    } else if (info.isDir()) {
        const QDir dir(path);
        const QStringList weights = dir.entryList({"*.safetensors"}, QDir::Files);
        if (!dir.exists("config.json") || weights.isEmpty()) {
            const bool has_gguf = !dir.entryList({"*.gguf"}, QDir::Files).isEmpty();
            throw Error(ErrorCode::invalid_file,
                        q(path + " is not a Hugging Face model folder (it needs config.json and .safetensors files)"),
                        has_gguf ? "this folder holds .gguf files: add one of them directly"
                                 : "choose a .gguf file or a folder downloaded from Hugging Face");
        }
        r.format = "safetensors";
        r.displayName = info.fileName();
        for (const QFileInfo& f : dir.entryInfoList(QDir::Files)) r.sizeBytes += f.size();
    } else {
        throw Error(ErrorCode::invalid_file, q(path + " is neither a file nor a folder"), "choose a .gguf file or a model folder");
    }
    return r;
}

ModelRecord ModelLibrary::add(const QString& path) {
    ModelRecord r = inspect(path);
    QSqlDatabase db = QSqlDatabase::database(m_connection);
    {
        QSqlQuery dup(db);
        dup.prepare("SELECT COUNT(*) FROM models WHERE path = ?");
        dup.addBindValue(r.path);
        if (!dup.exec() || !dup.next()) throw_sql("cannot query the library", dup.lastError(), m_path);
        if (dup.value(0).toInt() > 0)
            throw Error(ErrorCode::invalid_argument, q(r.path + " is already in the library"), "");
    }
    r.addedAt = QDateTime::currentDateTimeUtc();
    QSqlQuery query(db);
    query.prepare("INSERT INTO models (path, display_name, format, size_bytes, added_at) VALUES (?, ?, ?, ?, ?)");
    query.addBindValue(r.path);
    query.addBindValue(r.displayName);
    query.addBindValue(r.format);
    query.addBindValue(r.sizeBytes);
    query.addBindValue(r.addedAt.toString(Qt::ISODateWithMs));
    if (!query.exec()) throw_sql("cannot add " + r.path, query.lastError(), m_path);
    r.id = query.lastInsertId().toLongLong();
    return r;
}

bool ModelLibrary::remove(qint64 id) {
    QSqlQuery query(QSqlDatabase::database(m_connection));
    query.prepare("DELETE FROM models WHERE id = ?");
    query.addBindValue(id);
    if (!query.exec()) throw_sql("cannot remove a model", query.lastError(), m_path);
    return query.numRowsAffected() > 0;
}

}  // namespace ft
