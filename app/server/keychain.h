// The OS keychain, for remote servers' API keys (Qt-free: the desktop app and `ft chat --attach` share it).
//
// Linux: the freedesktop.org Secret Service (GNOME Keyring, KWallet, KeePassXC…) on the D-Bus session bus, through
// libsecret (a build without libsecret has no keychain). Windows: the Credential Manager (this user's generic
// credentials). Each key is stored under its server's URL and the servers.json it belongs to, so two data folders
// (FT_DATA_DIR) never share or remove each other's keys.
//
// Every call blocks the calling thread (a D-Bus round trip; a locked keyring may show its unlock prompt) for at most
// keychain_timeout(), then fails: the desktop app makes them on a thread of their own (server_list_jobs.h), never on
// the window's. Without a session bus (DBUS_SESSION_BUS_ADDRESS unset and no
// $XDG_RUNTIME_DIR/bus) nothing is tried: libsecret would otherwise try to start a bus of its own. FT_KEYCHAIN=off
// turns the keychain off (a portable install that must leave no trace; the tests of the file fallback).
#pragma once

#include <chrono>
#include <string>

namespace ft {

// How long one keychain call waits for an answer before it fails as timed_out: 30 s unless set (time to type a
// keyring's password into its unlock prompt; test_keychain sets a few seconds). Thread-safe.
std::chrono::seconds keychain_timeout();
void set_keychain_timeout(std::chrono::seconds timeout);

// Why the keychain cannot be used; the app words each (the system's own text is in `detail`, for the log).
enum class KeychainProblem {
    none,
    not_built,       // this build has no keychain support
    turned_off,      // FT_KEYCHAIN=off
    no_session_bus,  // Linux: no D-Bus session bus in this session
    no_service,      // no Secret Service answered / the Credential Manager failed
    timed_out,       // no answer within keychain_timeout() (a locked keyring waiting to be unlocked?)
    refused,         // the keychain answered with an error (a locked or read-only collection, a key too long…)
};

struct KeychainAnswer {
    bool ok = false;     // the call was answered
    bool found = false;  // lookup: an entry exists; erase: one was removed
    std::string value;   // lookup: the key
    KeychainProblem problem = KeychainProblem::none;
    std::string detail;  // the system's words for the problem (English; never contains the key)
};

// "Secret Service", "Windows Credential Manager", or "" when this build has none.
const char* keychain_name();
// Whether the keychain answers now (a lookup of an entry that does not exist).
KeychainAnswer keychain_probe();
KeychainAnswer keychain_store(const std::string& file, const std::string& url, const std::string& key);
KeychainAnswer keychain_lookup(const std::string& file, const std::string& url);
KeychainAnswer keychain_erase(const std::string& file, const std::string& url);
// A short English description of a problem, for logs and the CLI.
std::string keychain_problem_text(const KeychainAnswer& a);

}  // namespace ft
