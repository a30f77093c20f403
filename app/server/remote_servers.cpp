#include "remote_servers.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>
#include <system_error>

#include <nlohmann/json.hpp>

#include "ft/error.h"
#include "ft/paths.h"
#include "ft/utf8.h"

namespace ft {

namespace {

const char* kExample = "give the server's base URL, e.g. http://192.168.1.20:8000 or https://llm.example.com";

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return s;
}

}  // namespace

std::string normalize_server_url(const std::string& input) {
    std::string url = input;
    while (!url.empty() && std::isspace(static_cast<unsigned char>(url.back()))) url.pop_back();
    while (!url.empty() && std::isspace(static_cast<unsigned char>(url.front()))) url.erase(url.begin());
    if (url.empty()) throw Error(ErrorCode::invalid_argument, "no server address was given", kExample);
    const auto scheme_end = url.find("://");
    if (scheme_end == std::string::npos)
        throw Error(ErrorCode::invalid_argument, "'" + input + "' has no http:// or https:// in front", kExample);
    const std::string scheme = lower(url.substr(0, scheme_end));
    if (scheme != "http" && scheme != "https")
        throw Error(ErrorCode::invalid_argument, "'" + input + "' is a " + scheme + ":// address; a server is reached over http or https",
                    kExample);
    if (url.find_first_of(" \t\r\n?#") != std::string::npos)
        throw Error(ErrorCode::invalid_argument, "'" + input + "' has spaces, a query (?) or a fragment (#)", kExample);
    std::string rest = url.substr(scheme_end + 3);
    const auto slash = rest.find('/');
    std::string authority = rest.substr(0, slash);
    std::string path = slash == std::string::npos ? std::string() : rest.substr(slash);
    if (authority.find('@') != std::string::npos)
        throw Error(ErrorCode::invalid_argument, "'" + input + "' has a user name or password in it",
                    "give the API key in its own field (it is stored apart and never shown)");
    if (authority.empty() || authority[0] == ':')
        throw Error(ErrorCode::invalid_argument, "'" + input + "' names no host", kExample);
    // A port, when given, is digits in 1–65535.
    const auto colon = authority.rfind(':');
    const auto bracket = authority.rfind(']');
    if (colon != std::string::npos && (bracket == std::string::npos || colon > bracket)) {
        const std::string port = authority.substr(colon + 1);
        const bool digits = !port.empty() && port.size() <= 5 &&
                            std::all_of(port.begin(), port.end(), [](unsigned char c) { return std::isdigit(c); });
        if (!digits || std::stoi(port) < 1 || std::stoi(port) > 65535)
            throw Error(ErrorCode::invalid_argument, "'" + input + "' has no valid port (1–65535) after the ':'", kExample);
    }
    while (!path.empty() && path.back() == '/') path.pop_back();
    if (path.size() >= 3 && path.compare(path.size() - 3, 3, "/v1") == 0) path.resize(path.size() - 3);
    while (!path.empty() && path.back() == '/') path.pop_back();
    return scheme + "://" + lower(authority) + path;
}

std::string server_url_host(const std::string& url) {
    const auto s = url.find("://");
    std::string rest = s == std::string::npos ? url : url.substr(s + 3);
    rest = rest.substr(0, rest.find('/'));
    if (!rest.empty() && rest[0] == '[') return lower(rest.substr(1, rest.find(']') - 1));
    return lower(rest.substr(0, rest.rfind(':') == std::string::npos ? rest.size() : rest.rfind(':')));
}

bool is_loopback_host(const std::string& host) {
    const std::string h = lower(host);
    return h == "localhost" || h == "::1" || h.rfind("127.", 0) == 0 || h.size() > 10 && h.substr(h.size() - 10) == ".localhost";
}

bool is_plain_http_remote(const std::string& url) {
    return lower(url).rfind("http://", 0) == 0 && !is_loopback_host(server_url_host(url));
}

RemoteServerFile::RemoteServerFile(std::filesystem::path file)
    : path_(file.empty() ? data_dir() / "servers.json" : std::move(file)) {}

std::vector<RemoteServer> RemoteServerFile::read() const {
    std::vector<RemoteServer> out;
    std::error_code ec;
    if (!std::filesystem::exists(path_, ec)) return out;
    std::ifstream in(path_, std::ios::binary);
    if (!in) throw Error(ErrorCode::io, "cannot read " + path_to_utf8(path_), "check the file's permissions");
    std::stringstream ss;
    ss << in.rdbuf();
    const auto j = nlohmann::json::parse(ss.str(), nullptr, false);
    if (!j.is_object() || !j.contains("servers") || !j["servers"].is_array())
        throw Error(ErrorCode::invalid_file, path_to_utf8(path_) + " is not a server list FreeToken wrote",
                    "move it away (the servers are then added again) or fix its JSON");
    for (const auto& s : j["servers"]) {
        if (!s.is_object() || !s.contains("url") || !s["url"].is_string()) continue;
        RemoteServer r;
        r.url = s["url"].get<std::string>();
        r.api_key = s.value("api_key", std::string());
        r.plain_http_ok = s.value("plain_http_ok", false);
        r.key_place = s.value("key_in_keychain", false) ? KeyPlace::keychain
                      : r.api_key.empty()                ? KeyPlace::none
                                                         : KeyPlace::file;
        if (r.key_place == KeyPlace::keychain) r.api_key.clear();
        out.push_back(std::move(r));
    }
    return out;
}

std::vector<RemoteServer> RemoteServerFile::load() const {
    std::vector<RemoteServer> out = read();
    const std::string file = path_to_utf8(path_);
    bool moved = false;
    // A keychain that timed out or is not there is not asked again for the next server (each would wait as long).
    std::optional<KeychainAnswer> down;
    const auto gone = [](const KeychainAnswer& a) {
        return a.problem == KeychainProblem::timed_out || a.problem == KeychainProblem::no_service;
    };
    for (RemoteServer& r : out) {
        if (r.key_place == KeyPlace::keychain) {
            KeychainAnswer a = down ? *down : keychain_lookup(file, r.url);
            if (gone(a)) down = a;
            if (a.ok && a.found) {
                r.api_key = std::move(a.value);
            } else {
                if (a.ok) a.problem = KeychainProblem::refused, a.detail = "no entry for this server";
                r.key_problem = std::move(a);
            }
        } else if (r.key_place == KeyPlace::file) {
            // A key still in the file: into the keychain, read back, and only then out of the file.
            if (down) continue;
            const KeychainAnswer stored = keychain_store(file, r.url, r.api_key);
            if (gone(stored)) down = stored;
            if (!stored.ok) continue;
            const KeychainAnswer back = keychain_lookup(file, r.url);
            if (back.ok && back.found && back.value == r.api_key) {
                r.key_place = KeyPlace::keychain;
                moved = true;
            }
        }
    }
    if (moved) save(out);
    return out;
}

std::optional<RemoteServer> RemoteServerFile::find(const std::string& url) const {
    for (auto& s : load())
        if (s.url == url) return s;
    return std::nullopt;
}

KeyPlace RemoteServerFile::put(const RemoteServer& server, KeychainAnswer* why) const {
    auto list = read();
    const std::string file = path_to_utf8(path_);
    RemoteServer r = server;
    r.key_problem = {};
    r.key_place = r.api_key.empty() ? KeyPlace::none : KeyPlace::file;
    if (!r.api_key.empty()) {
        const KeychainAnswer a = keychain_store(file, r.url, r.api_key);
        if (a.ok) r.key_place = KeyPlace::keychain;
        else if (why) *why = a;
    }
    auto it = std::find_if(list.begin(), list.end(), [&](const RemoteServer& s) { return s.url == server.url; });
    const bool hadKeychainKey = it != list.end() && it->key_place == KeyPlace::keychain;
    if (it != list.end())
        *it = r;
    else
        list.push_back(r);
    save(list);
    // The old key of this server, left in the keychain by a new one that went elsewhere or by none.
    if (hadKeychainKey && r.key_place != KeyPlace::keychain) keychain_erase(file, r.url);
    return r.key_place;
}

bool RemoteServerFile::remove(const std::string& url) const {
    auto list = read();
    const auto it = std::find_if(list.begin(), list.end(), [&](const RemoteServer& s) { return s.url == url; });
    if (it == list.end()) return false;
    const bool inKeychain = it->key_place == KeyPlace::keychain;
    list.erase(it);
    save(list);
    if (inKeychain) keychain_erase(path_to_utf8(path_), url);
    return true;
}

bool RemoteServerFile::private_to_user() const {
#ifdef _WIN32
    return true;
#else
    std::error_code ec;
    const auto p = std::filesystem::status(path_, ec).permissions();
    if (ec) return false;
    using P = std::filesystem::perms;
    return (p & (P::group_all | P::others_all)) == P::none;
#endif
}

void RemoteServerFile::save(const std::vector<RemoteServer>& servers) const {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& s : servers) {
        nlohmann::json e{{"url", s.url}, {"plain_http_ok", s.plain_http_ok}};
        if (s.key_place == KeyPlace::keychain) e["key_in_keychain"] = true;  // the key itself is not written here
        else if (s.key_place == KeyPlace::file) e["api_key"] = s.api_key;
        list.push_back(std::move(e));
    }
    const std::string text = nlohmann::json{{"servers", list}}.dump(2) + "\n";
    std::filesystem::path tmp = path_;
    tmp += ".tmp";
    std::error_code ec;
    std::filesystem::create_directories(path_.parent_path(), ec);
    {
        // Created empty, restricted, then written: the key is never in a file others may read.
        std::ofstream create(tmp, std::ios::binary | std::ios::trunc);
        if (!create) throw Error(ErrorCode::io, "cannot write " + path_to_utf8(tmp), "check that the data folder is writable");
    }
#ifndef _WIN32
    std::filesystem::permissions(tmp, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write,
                                 std::filesystem::perm_options::replace, ec);
    if (ec) throw Error(ErrorCode::io, "cannot restrict the permissions of " + path_to_utf8(tmp) + ": " + ec.message());
#endif
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        out << text;
        out.flush();
        if (!out) throw Error(ErrorCode::io, "cannot write " + path_to_utf8(tmp), "check that the disk is not full");
    }
    std::filesystem::rename(tmp, path_, ec);
    if (ec) throw Error(ErrorCode::io, "cannot replace " + path_to_utf8(path_) + ": " + ec.message());
}

}  // namespace ft
