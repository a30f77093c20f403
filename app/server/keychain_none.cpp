// A build without keychain support (Linux without libsecret): keys stay in servers.json.
#include "keychain.h"

namespace ft {

namespace detail {
bool keychain_turned_off();
}

namespace {
KeychainAnswer none() {
    KeychainAnswer a;
    a.problem = detail::keychain_turned_off() ? KeychainProblem::turned_off : KeychainProblem::not_built;
    return a;
}
}  // namespace

const char* keychain_name() { return ""; }
KeychainAnswer keychain_probe() { return none(); }
KeychainAnswer keychain_store(const std::string&, const std::string&, const std::string&) { return none(); }
KeychainAnswer keychain_lookup(const std::string&, const std::string&) { return none(); }
KeychainAnswer keychain_erase(const std::string&, const std::string&) { return none(); }

}  // namespace ft
