#include "profile/expert_popularity.h"

#include <algorithm>
#include <cstring>
#include <numeric>

#include <spdlog/fmt/fmt.h>
#include <sqlite3.h>

#include "ft/error.h"
#include "profile/sqlite_db.h"
#include "ft/utf8.h"

namespace ft::profile {

namespace {

// The popularity store.
struct Db : SqliteDb {
    Db()
        : SqliteDb("experts.sqlite", "expert popularity database",
                   "CREATE TABLE IF NOT EXISTS popularity (model TEXT PRIMARY KEY, n_layer INTEGER NOT NULL, "
                   "n_expert INTEGER NOT NULL, counts BLOB NOT NULL, sessions INTEGER NOT NULL, updated_at TEXT)") {}
};

std::optional<ExpertPopularity> read(const Db& db, const std::string& key) {
    SqliteStmt st(db, "SELECT n_layer, n_expert, counts, sessions, updated_at FROM popularity WHERE model = ?");
    sqlite3_bind_text(st.get(), 1, key.c_str(), -1, SQLITE_TRANSIENT);
    if (sqlite3_step(st.get()) != SQLITE_ROW) return std::nullopt;
    ExpertPopularity p;
    p.n_layer = sqlite3_column_int(st.get(), 0);
    p.n_expert = sqlite3_column_int(st.get(), 1);
    const int bytes = sqlite3_column_bytes(st.get(), 2);
    const std::size_t n = std::size_t(std::max(p.n_layer, 0)) * std::size_t(std::max(p.n_expert, 0));
    if (bytes < 0 || std::size_t(bytes) != n * sizeof(float)) return std::nullopt;  // damaged: as if none
    p.counts.resize(n);
    if (n) std::memcpy(p.counts.data(), sqlite3_column_blob(st.get(), 2), n * sizeof(float));
    p.sessions = sqlite3_column_int(st.get(), 3);
    if (const auto* t = sqlite3_column_text(st.get(), 4)) p.updated_at = reinterpret_cast<const char*>(t);
    return p;
}

}  // namespace

std::string popularity_key(const std::filesystem::path& path, int n_layer, int n_expert) {
    std::error_code ec;
    std::uintmax_t bytes = 0;
    if (std::filesystem::is_directory(path, ec)) {
        for (const auto& f : std::filesystem::directory_iterator(path, ec))
            if (f.is_regular_file(ec)) bytes += f.file_size(ec);
    } else {
        bytes = std::filesystem::file_size(path, ec);
        if (ec) bytes = 0;
    }
    const auto name = path.filename().empty() ? path.parent_path().filename() : path.filename();
    return fmt::format("{}|{}|{}x{}", path_to_utf8(name), bytes, n_layer, n_expert);
}

bool store_popularity(const std::string& key, int n_layer, int n_expert, const std::vector<std::uint32_t>& session_uses) {
    const std::size_t n = std::size_t(std::max(n_layer, 0)) * std::size_t(std::max(n_expert, 0));
    if (n == 0 || session_uses.size() != n)
        throw Error(ErrorCode::invalid_argument,
                    fmt::format("expert popularity: {} counts for {} layers × {} experts", session_uses.size(), n_layer, n_expert));
    const std::uint64_t total = std::accumulate(session_uses.begin(), session_uses.end(), std::uint64_t(0));
    if (total < std::min<std::uint64_t>(kMinSessionUses, 4 * std::uint64_t(n))) return false;
    Db db;
    db.exec("BEGIN IMMEDIATE");
    try {
        ExpertPopularity p;
        p.n_layer = n_layer;
        p.n_expert = n_expert;
        p.counts.assign(n, 0.0f);
        if (auto old = read(db, key); old && old->n_layer == n_layer && old->n_expert == n_expert) {
            for (std::size_t i = 0; i < n; ++i) p.counts[i] = old->counts[i] * 0.5f;
            p.sessions = old->sessions;
        }
        for (std::size_t i = 0; i < n; ++i) p.counts[i] += float(session_uses[i]);
        ++p.sessions;
        SqliteStmt st(db, "INSERT OR REPLACE INTO popularity (model, n_layer, n_expert, counts, sessions, updated_at) VALUES (?,?,?,?,?,?)");
        sqlite3_bind_text(st.get(), 1, key.c_str(), -1, SQLITE_TRANSIENT);
        sqlite3_bind_int(st.get(), 2, n_layer);
        sqlite3_bind_int(st.get(), 3, n_expert);
        sqlite3_bind_blob(st.get(), 4, p.counts.data(), int(n * sizeof(float)), SQLITE_TRANSIENT);
        sqlite3_bind_int(st.get(), 5, p.sessions);
        const std::string now = utc_now();
        sqlite3_bind_text(st.get(), 6, now.c_str(), -1, SQLITE_TRANSIENT);
        if (sqlite3_step(st.get()) != SQLITE_DONE)
            throw Error(ErrorCode::io, "cannot store the expert popularity: " + st.error());
        db.exec("COMMIT");
    } catch (...) {
        sqlite3_exec(db.get(), "ROLLBACK", nullptr, nullptr, nullptr);
        throw;
    }
    return true;
}

std::optional<ExpertPopularity> load_popularity(const std::string& key, int n_layer, int n_expert) {
    Db db;
    auto p = read(db, key);
    if (!p || p->n_layer != n_layer || p->n_expert != n_expert) return std::nullopt;
    return p;
}

std::vector<std::int32_t> hottest_first(const ExpertPopularity& p) {
    std::vector<std::int32_t> ids;
    for (std::size_t i = 0; i < p.counts.size(); ++i)
        if (p.counts[i] > 0) ids.push_back(std::int32_t(i));
    std::stable_sort(ids.begin(), ids.end(), [&](std::int32_t a, std::int32_t b) { return p.counts[std::size_t(a)] > p.counts[std::size_t(b)]; });
    return ids;
}

std::vector<std::int32_t> even_spread(const std::vector<bool>& layer_has_experts, int n_expert) {
    std::vector<std::int32_t> ids;
    for (int e = 0; e < n_expert; ++e)
        for (std::size_t l = 0; l < layer_has_experts.size(); ++l)
            if (layer_has_experts[l]) ids.push_back(std::int32_t(l) * n_expert + e);
    return ids;
}

}  // namespace ft::profile
