#include "profile/sqlite_db.h"

#include <ctime>

#include <sqlite3.h>

#include "ft/error.h"
#include "ft/paths.h"
#include "ft/utf8.h"

namespace ft::profile {

SqliteDb::SqliteDb(const std::string& file, std::string what, const char* schema) : what_(std::move(what)) {
    const auto path = data_dir() / file;
    if (sqlite3_open(path_to_utf8(path).c_str(), &db_) != SQLITE_OK) {  // sqlite3_open takes UTF-8
        const std::string msg = db_ ? sqlite3_errmsg(db_) : "out of memory";
        sqlite3_close(db_);
        db_ = nullptr;
        throw Error(ErrorCode::io, "cannot open " + path_to_utf8(path) + ": " + msg,
                    "check that the data folder is writable (or set FT_DATA_DIR)");
    }
    sqlite3_busy_timeout(db_, 2000);  // an app and a server on one data folder
    try {
        exec(schema);
    } catch (...) {
        sqlite3_close(db_);
        throw;
    }
}

SqliteDb::~SqliteDb() { sqlite3_close(db_); }

void SqliteDb::exec(const char* sql) {
    char* err = nullptr;
    if (sqlite3_exec(db_, sql, nullptr, nullptr, &err) != SQLITE_OK) {
        const std::string msg = err ? err : "?";
        sqlite3_free(err);
        throw Error(ErrorCode::io, what_ + ": " + msg);
    }
}

SqliteStmt::SqliteStmt(const SqliteDb& db, const char* sql) : db_(db.get()) {
    if (sqlite3_prepare_v2(db_, sql, -1, &s_, nullptr) != SQLITE_OK)
        throw Error(ErrorCode::io, db.what() + ": " + sqlite3_errmsg(db_));
}

SqliteStmt::~SqliteStmt() { sqlite3_finalize(s_); }

std::string SqliteStmt::error() const { return sqlite3_errmsg(db_); }

std::string utc_now() {
    const std::time_t t = std::time(nullptr);
    std::tm tm{};
#ifdef _WIN32
    gmtime_s(&tm, &t);
#else
    gmtime_r(&t, &tm);
#endif
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

}  // namespace ft::profile
