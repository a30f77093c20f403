// Remote model servers (OpenAI-compatible: another PC's `ft serve`, vLLM, SGLang, llama.cpp's llama-server) that the
// desktop app and `ft chat --attach` use as model sources. Qt-free: the app and the CLI read the same list.
//
// Where the list lives: <data dir>/servers.json (ft::data_dir(); FT_DATA_DIR moves it), one object per server with
// its base URL, whether the user accepted plain http to a host that is not this PC, and where its API key is.
// API keys go to the OS keychain (keychain.h: the Secret Service on Linux, the Credential Manager on Windows) where
// one answers; servers.json then says only "key_in_keychain". Where none answers (no keychain service running, a
// build without one, FT_KEYCHAIN=off) the key is in servers.json itself: on POSIX written with permissions 0600 (only
// its owner reads it) and re-restricted on every save; on Windows in the per-user %LOCALAPPDATA% folder, whose ACL
// already keeps other users out. Keys found in the file are moved to the keychain the first time the list is read
// while one answers, each read back before the file forgets it. Writes go to a temporary file that replaces the
// old one, so a crash mid-save leaves the old list.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "keychain.h"

namespace ft {

enum class KeyPlace { none, file, keychain };

struct RemoteServer {
    std::string url;             // the normalized base URL (normalize_server_url)
    std::string api_key;         // empty: the server asks for none
    bool plain_http_ok = false;  // the user accepted plain http to a non-loopback host
    // Read by load(), set by put(): where the key is. A key in the keychain that could not be read has
    // key_place keychain, an empty api_key and the keychain's answer in key_problem.
    KeyPlace key_place = KeyPlace::none;
    KeychainAnswer key_problem;
};

// "http://host:8000/v1/" → "http://host:8000": scheme http or https, a host, an optional port and path prefix
// (a reverse proxy's /llm), without a trailing slash or "/v1". Throws ft::Error(invalid_argument) naming what is
// wrong (no scheme, another scheme, no host, a query or fragment, spaces) with an example of a right one.
std::string normalize_server_url(const std::string& input);
// The host part of a normalized URL ("[::1]" → "::1"), lowercased.
std::string server_url_host(const std::string& url);
// localhost, 127.0.0.0/8 and ::1: traffic that never leaves this PC.
bool is_loopback_host(const std::string& host);
// A plain http URL to a host that is not this PC: the key and the chat travel unencrypted.
bool is_plain_http_remote(const std::string& url);

class RemoteServerFile {
public:
    // `file` empty: data_dir()/servers.json.
    explicit RemoteServerFile(std::filesystem::path file = {});
    const std::filesystem::path& path() const { return path_; }

    // The servers, in the order they were added, their keys read from the keychain. A missing file is an empty
    // list; an unreadable or malformed one throws ft::Error(io / invalid_file) naming the file. Moves keys still in
    // the file to the keychain when one answers (see above). A keychain that times out or has no service is asked
    // once, not once per server: the other servers get the same answer. Blocks while the keychain does (keychain.h).
    std::vector<RemoteServer> load() const;
    std::optional<RemoteServer> find(const std::string& url) const;  // by normalized URL
    // Adds or replaces the server of the same URL; its key goes to the keychain, else (the keychain's answer in
    // `why`, if given) to the file. Returns where the key went. Throws ft::Error(io) when the file cannot be written.
    KeyPlace put(const RemoteServer& server, KeychainAnswer* why = nullptr) const;
    bool remove(const std::string& url) const;  // false if it was not there; its key leaves the keychain too
    // Whether the file's permissions keep other users out (POSIX: no group/other bits; Windows: always true).
    bool private_to_user() const;

private:
    std::vector<RemoteServer> read() const;  // the file alone (no keychain)
    void save(const std::vector<RemoteServer>& servers) const;
    std::filesystem::path path_;
};

}  // namespace ft
