#include "keychain.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>

namespace ft {

namespace {
std::atomic<long long> g_timeout_s{30};
}

std::chrono::seconds keychain_timeout() { return std::chrono::seconds(g_timeout_s.load()); }
void set_keychain_timeout(std::chrono::seconds timeout) { g_timeout_s.store(std::max<long long>(1, timeout.count())); }

namespace detail {
// FT_KEYCHAIN=off (or 0, no, false): the keychain is not used.
bool keychain_turned_off() {
    const char* v = std::getenv("FT_KEYCHAIN");
    if (!v) return false;
    for (const char* off : {"off", "0", "no", "false"})
        if (std::strcmp(v, off) == 0) return true;
    return false;
}
}  // namespace detail

std::string keychain_problem_text(const KeychainAnswer& a) {
    std::string s;
    switch (a.problem) {
    case KeychainProblem::none: return "";
    case KeychainProblem::not_built: s = "this build has no keychain support"; break;
    case KeychainProblem::turned_off: s = "turned off by FT_KEYCHAIN=off"; break;
    case KeychainProblem::no_session_bus: s = "no D-Bus session bus in this session"; break;
    case KeychainProblem::no_service: s = "no keychain service answered"; break;
    case KeychainProblem::timed_out: s = "the keychain did not answer within " + std::to_string(keychain_timeout().count()) + " s"; break;
    case KeychainProblem::refused: s = "the keychain refused"; break;
    }
    if (!a.detail.empty()) s += " (" + a.detail + ")";
    return s;
}

}  // namespace ft
