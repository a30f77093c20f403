// The engine's small SQLite stores in <data dir> (bandwidth profiles, expert popularity): a database opened with its
// schema, prepared statements, and the UTC time stamp they record. Errors are ft::Error(io) naming the store.
// Engine-internal.
#pragma once

#include <string>

struct sqlite3;
struct sqlite3_stmt;

namespace ft::profile {

class SqliteDb {
public:
    // Opens (creating it if needed) <data dir>/file and runs `schema`; `what` names the store in errors.
    SqliteDb(const std::string& file, std::string what, const char* schema);
    ~SqliteDb();
    SqliteDb(const SqliteDb&) = delete;
    SqliteDb& operator=(const SqliteDb&) = delete;
    sqlite3* get() const { return db_; }
    void exec(const char* sql);
    const std::string& what() const { return what_; }

private:
    sqlite3* db_ = nullptr;
    std::string what_;
};

class SqliteStmt {
public:
    SqliteStmt(const SqliteDb& db, const char* sql);
    ~SqliteStmt();
    SqliteStmt(const SqliteStmt&) = delete;
    SqliteStmt& operator=(const SqliteStmt&) = delete;
    sqlite3_stmt* get() const { return s_; }
    std::string error() const;  // the database's last error message

private:
    sqlite3* db_;
    sqlite3_stmt* s_ = nullptr;
};

std::string utc_now();  // ISO 8601, e.g. 2026-12-03T14:52:19Z

}  // namespace ft::profile
