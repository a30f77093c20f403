#include "ft/log.h"

#include <spdlog/sinks/rotating_file_sink.h>
#include <spdlog/sinks/stdout_color_sinks.h>

#include <mutex>

#include "ft/paths.h"
#include "ft/utf8.h"

namespace ft {

namespace {
std::mutex g_mutex;
std::shared_ptr<spdlog::logger> g_logger;
}  // namespace

std::filesystem::path log_init(const LogOptions& options) {
    std::lock_guard lock(g_mutex);
    std::vector<spdlog::sink_ptr> sinks;
    std::string warning;
    if (options.console) {
        auto console = std::make_shared<spdlog::sinks::stderr_color_sink_mt>();
        console->set_level(options.console_level);
        console->set_pattern("%^[%L]%$ %v");
        sinks.push_back(console);
    }
    std::filesystem::path file;
    try {
        const auto dir = options.dir.empty() ? log_dir() : options.dir;
        std::filesystem::create_directories(dir);
        file = dir / (options.app_name + ".log");
#ifdef SPDLOG_WCHAR_FILENAMES  // Windows (scripts/cross-mingw.sh builds spdlog so): _wfsopen, any user name
        const spdlog::filename_t name = file.wstring();
#else  // POSIX: bytes; a Windows spdlog without wide names would read this in the ANSI code page
        const spdlog::filename_t name = path_to_utf8(file);
#endif
        auto rotating = std::make_shared<spdlog::sinks::rotating_file_sink_mt>(name, 5u << 20, 5);
        rotating->set_level(spdlog::level::debug);
        rotating->set_pattern("%Y-%m-%d %H:%M:%S.%e [%l] [%t] %v");
        sinks.push_back(rotating);
    } catch (const std::exception& e) {
        warning = std::string("logging to the console only: cannot open the log file: ") + e.what();
        file.clear();
    }
    g_logger = std::make_shared<spdlog::logger>("ft", sinks.begin(), sinks.end());
    g_logger->set_level(spdlog::level::debug);
    g_logger->flush_on(spdlog::level::warn);
    spdlog::drop("ft");
    spdlog::register_logger(g_logger);
    spdlog::set_default_logger(g_logger);
    if (!warning.empty()) g_logger->warn("{}", warning);
    return file;
}

void log_add_sink(std::shared_ptr<spdlog::sinks::sink> sink) {
    std::lock_guard lock(g_mutex);
    if (!g_logger) return;
    g_logger->sinks().push_back(std::move(sink));
}

void log_shutdown() {
    std::lock_guard lock(g_mutex);
    if (g_logger) g_logger->flush();
    spdlog::shutdown();
    g_logger.reset();
}

}  // namespace ft
