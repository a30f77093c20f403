#include <cstdlib>
#include <system_error>

#include "ft/error.h"
#include "ft/paths.h"
#include "ft/utf8.h"
#include "platform/platform.h"

namespace ft {

static std::filesystem::path ensure_dir(const std::filesystem::path& p) {
    std::error_code ec;
    std::filesystem::create_directories(p, ec);
    if (ec) {
        throw Error(ErrorCode::io, "cannot create directory " + path_to_utf8(p) + ": " + ec.message(),
                    "check permissions, or set FT_DATA_DIR to a writable folder");
    }
    return p;
}

std::filesystem::path data_dir() {
    if (auto env = platform::env_path("FT_DATA_DIR"); !env.empty()) return ensure_dir(env);
    return ensure_dir(platform::default_data_dir());
}

std::filesystem::path log_dir() { return ensure_dir(data_dir() / "logs"); }
std::filesystem::path models_dir() { return ensure_dir(data_dir() / "models"); }

std::vector<std::filesystem::path> bundled_model_dirs(const std::filesystem::path& exe,
                                                      const std::filesystem::path& source_resources) {
    std::vector<std::filesystem::path> dirs;
    if (!exe.empty()) dirs.push_back((exe.parent_path().parent_path() / "share" / "freetoken" / "models").lexically_normal());
    if (!source_resources.empty()) dirs.push_back((source_resources / "models").lexically_normal());
    return dirs;
}

std::filesystem::path find_bundled_model(const std::filesystem::path& exe, const std::filesystem::path& source_resources) {
    for (const auto& d : bundled_model_dirs(exe, source_resources)) {
        std::error_code ec;
        const auto p = d / kBundledModelFile;
        if (std::filesystem::is_regular_file(p, ec)) return p;
    }
    return {};
}

std::filesystem::path find_bundled_model(const std::filesystem::path& source_resources) {
    return find_bundled_model(executable_path(), source_resources);
}

std::filesystem::path executable_path() { return platform::executable_path(); }

std::filesystem::path path_from_utf8(std::string_view utf8) {
    try {
        return std::filesystem::path(std::u8string(reinterpret_cast<const char8_t*>(utf8.data()), utf8.size()));
    } catch (const std::exception&) {
        throw Error(ErrorCode::invalid_argument, "the path '" + std::string(utf8) + "' is not valid UTF-8");
    }
}

std::string path_to_utf8(const std::filesystem::path& path) {
    const std::u8string u = path.u8string();
    return std::string(reinterpret_cast<const char*>(u.data()), u.size());
}

std::vector<std::string> command_line_utf8(int argc, char** argv) { return platform::command_line_utf8(argc, argv); }
void stdio_binary_utf8() { platform::stdio_binary_utf8(); }

}  // namespace ft
