// Logging: the one place that configures spdlog for every executable of the product.
//
// log_init() installs a logger named "ft" with two sinks: the console (stderr, level from `console_level`) and a
// rotating file `<log_dir>/<app_name>.log` (5 files × 5 MiB, always at debug). Extra sinks (the desktop app's live
// Logs page) attach with log_add_sink(). Engine code logs through spdlog::get("ft") via the FT_LOG_* helpers or
// spdlog's default logger, which log_init() sets. Thread-safe; call log_init() once, early, from main().
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include <spdlog/spdlog.h>

namespace ft {

struct LogOptions {
    std::string app_name = "ft";                 // file name stem and logger pattern tag
    spdlog::level::level_enum console_level = spdlog::level::info;
    bool console = true;                          // false: file only (the desktop app)
    std::filesystem::path dir;                    // empty: ft::log_dir()
};

// Returns the path of the log file. If the file cannot be opened (read-only disk, …) logging continues on the
// console only and a warning says why; it never throws.
std::filesystem::path log_init(const LogOptions& options = {});
void log_add_sink(std::shared_ptr<spdlog::sinks::sink> sink);
void log_shutdown();

}  // namespace ft
