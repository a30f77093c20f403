#include <cstdlib>
#include <system_error>

#include "ft/error.h"
#include "ft/paths.h"
#include "platform/platform.h"

namespace ft {

static std::filesystem::path ensure_dir(const std::filesystem::path& p) {
    std::error_code ec;
    std::filesystem::create_directories(p, ec);
    if (ec) {
        throw Error(ErrorCode::io, "cannot create directory " + p.string() + ": " + ec.message(),
                    "check permissions, or set FT_DATA_DIR to a writable folder");
    }
    return p;
}

std::filesystem::path data_dir() {
    if (const char* env = std::getenv("FT_DATA_DIR"); env && *env) return ensure_dir(env);
    return ensure_dir(platform::default_data_dir());
}

std::filesystem::path log_dir() { return ensure_dir(data_dir() / "logs"); }
std::filesystem::path models_dir() { return ensure_dir(data_dir() / "models"); }

}  // namespace ft
