// The keychain on Windows: the Credential Manager's generic credentials of this user (advapi32).
#include <windows.h>
#include <wincred.h>

#include "keychain.h"

namespace ft {

namespace detail {
bool keychain_turned_off();
}

namespace {

std::wstring widen(const std::string& s) {
    if (s.empty()) return {};
    const int n = MultiByteToWideChar(CP_UTF8, 0, s.data(), int(s.size()), nullptr, 0);
    std::wstring w(size_t(n), L'\0');
    MultiByteToWideChar(CP_UTF8, 0, s.data(), int(s.size()), w.data(), n);
    return w;
}

std::wstring target(const std::string& file, const std::string& url) {
    return L"FreeToken API key " + widen(url) + L" (" + widen(file) + L")";
}

std::string last_error_text(DWORD code) {
    wchar_t* buf = nullptr;
    FormatMessageW(FORMAT_MESSAGE_ALLOCATE_BUFFER | FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, nullptr,
                   code, 0, reinterpret_cast<wchar_t*>(&buf), 0, nullptr);
    std::string out = "error " + std::to_string(code);
    if (buf) {
        const int n = WideCharToMultiByte(CP_UTF8, 0, buf, -1, nullptr, 0, nullptr, nullptr);
        std::string text(size_t(n > 0 ? n - 1 : 0), '\0');
        if (n > 1) WideCharToMultiByte(CP_UTF8, 0, buf, -1, text.data(), n, nullptr, nullptr);
        while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ')) text.pop_back();
        out += ": " + text;
        LocalFree(buf);
    }
    return out;
}

bool precheck(KeychainAnswer& a) {
    if (!detail::keychain_turned_off()) return true;
    a.problem = KeychainProblem::turned_off;
    return false;
}

void fail(KeychainAnswer& a, DWORD code) {
    a.ok = false;
    a.problem = code == ERROR_NO_SUCH_LOGON_SESSION ? KeychainProblem::no_service : KeychainProblem::refused;
    a.detail = last_error_text(code);
}

}  // namespace

const char* keychain_name() { return "Windows Credential Manager"; }

KeychainAnswer keychain_lookup(const std::string& file, const std::string& url) {
    KeychainAnswer a;
    if (!precheck(a)) return a;
    PCREDENTIALW cred = nullptr;
    if (!CredReadW(target(file, url).c_str(), CRED_TYPE_GENERIC, 0, &cred)) {
        const DWORD code = GetLastError();
        if (code == ERROR_NOT_FOUND) {
            a.ok = true;
            return a;
        }
        fail(a, code);
        return a;
    }
    a.ok = true;
    a.found = true;
    a.value.assign(reinterpret_cast<const char*>(cred->CredentialBlob), cred->CredentialBlobSize);
    CredFree(cred);
    return a;
}

KeychainAnswer keychain_probe() { return keychain_lookup("", ""); }

KeychainAnswer keychain_store(const std::string& file, const std::string& url, const std::string& key) {
    KeychainAnswer a;
    if (!precheck(a)) return a;
    std::wstring name = target(file, url);
    std::wstring user = L"FreeToken";
    CREDENTIALW cred = {};
    cred.Type = CRED_TYPE_GENERIC;
    cred.TargetName = name.data();
    cred.CredentialBlobSize = DWORD(key.size());
    cred.CredentialBlob = reinterpret_cast<LPBYTE>(const_cast<char*>(key.data()));
    cred.Persist = CRED_PERSIST_LOCAL_MACHINE;
    cred.UserName = user.data();
    if (!CredWriteW(&cred, 0)) {
        fail(a, GetLastError());
        return a;
    }
    a.ok = true;
    return a;
}

KeychainAnswer keychain_erase(const std::string& file, const std::string& url) {
    KeychainAnswer a;
    if (!precheck(a)) return a;
    if (!CredDeleteW(target(file, url).c_str(), CRED_TYPE_GENERIC, 0)) {
        const DWORD code = GetLastError();
        if (code == ERROR_NOT_FOUND) {
            a.ok = true;
            return a;
        }
        fail(a, code);
        return a;
    }
    a.ok = true;
    a.found = true;
    return a;
}

}  // namespace ft
