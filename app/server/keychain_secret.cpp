// The keychain on Linux: the Secret Service through libsecret's synchronous calls, each under a deadline.
#include <libsecret/secret.h>

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <thread>

#include "keychain.h"

namespace ft {

namespace detail {
bool keychain_turned_off();
}

namespace {

const SecretSchema* schema() {
    static const SecretSchema s = [] {
        SecretSchema x;
        std::memset(&x, 0, sizeof x);
        x.name = "org.freetoken.Desktop.ApiKey";
        x.flags = SECRET_SCHEMA_NONE;
        x.attributes[0] = {"server", SECRET_SCHEMA_ATTRIBUTE_STRING};
        x.attributes[1] = {"file", SECRET_SCHEMA_ATTRIBUTE_STRING};
        return x;
    }();
    return &s;
}

// Cancels the call's GCancellable when the deadline passes (a prompt nobody answers, a service that hangs).
class Deadline {
public:
    Deadline() : m_cancel(g_cancellable_new()) {
        m_watch = std::thread([this] {
            std::unique_lock<std::mutex> lock(m_mutex);
            if (!m_cv.wait_for(lock, keychain_timeout(), [this] { return m_done; })) {
                m_timedOut = true;
                g_cancellable_cancel(m_cancel);
            }
        });
    }
    ~Deadline() {
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            m_done = true;
        }
        m_cv.notify_all();
        m_watch.join();
        g_object_unref(m_cancel);
    }
    Deadline(const Deadline&) = delete;
    Deadline& operator=(const Deadline&) = delete;
    GCancellable* cancellable() const { return m_cancel; }
    bool timedOut() {
        std::lock_guard<std::mutex> lock(m_mutex);
        return m_timedOut;
    }

private:
    GCancellable* m_cancel;
    std::mutex m_mutex;
    std::condition_variable m_cv;
    bool m_done = false, m_timedOut = false;
    std::thread m_watch;
};

// Whether a session bus is there to ask; if not, libsecret would try to autolaunch one (dbus-launch under X).
bool precheck(KeychainAnswer& a) {
    if (detail::keychain_turned_off()) {
        a.problem = KeychainProblem::turned_off;
        return false;
    }
    const char* address = std::getenv("DBUS_SESSION_BUS_ADDRESS");
    if (address && *address) return true;
    const char* runtime = std::getenv("XDG_RUNTIME_DIR");
    std::error_code ec;
    if (runtime && *runtime && std::filesystem::exists(std::filesystem::path(runtime) / "bus", ec)) return true;
    a.problem = KeychainProblem::no_session_bus;
    return false;
}

void fail(KeychainAnswer& a, GError* error, Deadline& d) {
    a.ok = false;
    if (d.timedOut()) {
        a.problem = KeychainProblem::timed_out;
    } else if (error && (error->domain == G_DBUS_ERROR || error->domain == G_IO_ERROR)) {
        a.problem = KeychainProblem::no_service;  // no service on the bus, a bus that does not answer
    } else {
        a.problem = KeychainProblem::refused;
    }
    if (error) a.detail = error->message;
}

}  // namespace

const char* keychain_name() { return "Secret Service"; }

KeychainAnswer keychain_lookup(const std::string& file, const std::string& url) {
    KeychainAnswer a;
    if (!precheck(a)) return a;
    Deadline d;
    GError* error = nullptr;
    gchar* value = secret_password_lookup_sync(schema(), d.cancellable(), &error, "server", url.c_str(), "file",
                                               file.c_str(), nullptr);
    if (error) {
        fail(a, error, d);
        g_error_free(error);
        return a;
    }
    a.ok = true;
    if (value) {
        a.found = true;
        a.value = value;
        secret_password_free(value);
    }
    return a;
}

KeychainAnswer keychain_probe() { return keychain_lookup("", ""); }

KeychainAnswer keychain_store(const std::string& file, const std::string& url, const std::string& key) {
    KeychainAnswer a;
    if (!precheck(a)) return a;
    Deadline d;
    GError* error = nullptr;
    const std::string label = "FreeToken API key for " + url;
    const gboolean stored = secret_password_store_sync(schema(), SECRET_COLLECTION_DEFAULT, label.c_str(), key.c_str(),
                                                       d.cancellable(), &error, "server", url.c_str(), "file",
                                                       file.c_str(), nullptr);
    if (!stored) {
        fail(a, error, d);
        if (error) g_error_free(error);
        return a;
    }
    a.ok = true;
    return a;
}

KeychainAnswer keychain_erase(const std::string& file, const std::string& url) {
    KeychainAnswer a;
    if (!precheck(a)) return a;
    Deadline d;
    GError* error = nullptr;
    const gboolean removed = secret_password_clear_sync(schema(), d.cancellable(), &error, "server", url.c_str(), "file",
                                                        file.c_str(), nullptr);
    if (error) {
        fail(a, error, d);
        g_error_free(error);
        return a;
    }
    a.ok = true;
    a.found = removed;
    return a;
}

}  // namespace ft
