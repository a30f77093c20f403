// ft — the FreeToken command-line tool. Qt-free: builds in the headless configuration.
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "commands.h"
#include "ft/error.h"
#include "ft/log.h"
#include "ft/utf8.h"
#include "ft/version.h"

namespace ft::cli {

const std::vector<Command>& all_commands() {
    static const std::vector<Command> table = {
        {spec_serve, run_serve},       {spec_chat, run_chat},       {spec_run, run_run},
        {spec_ctl, run_ctl},           {spec_bench, run_bench},     {spec_inspect, run_inspect},
        {spec_convert, run_convert},   {spec_synth, run_synth},     {spec_tokenize, run_tokenize},
        {spec_detokenize, run_detokenize}, {spec_template, run_template}, {spec_info, run_info},
    };
    return table;
}

int command_unavailable(const CommandSpec& spec, const char* arrives_with) {
    std::fprintf(stderr, "ft %s: not available in this build yet (it arrives with %s)\n", spec.name.c_str(),
                 arrives_with);
    return 2;
}

static void print_main_help() {
    std::printf("ft %s — run large Mixture-of-Experts models on one PC\n\n", ft::version());
    std::printf("Usage: ft [--version] [--help] [--log-level LEVEL] COMMAND [ARGS…]\n\nCommands:\n");
    for (const auto& c : all_commands()) {
        const auto& s = c.spec();
        std::printf("  %-12s %s\n", s.name.c_str(), s.summary.c_str());
    }
    std::printf(
        "\nGlobal options (before COMMAND):\n"
        "  --version          print the version and build configuration\n"
        "  --log-level LEVEL  console log level: trace, debug, info, warn (default), error, off\n"
        "  -h, --help         this help; 'ft COMMAND --help' for a command's options\n"
        "\nLogs are written to the per-user data folder (see 'ft info').\n");
}

static int main_impl(const std::vector<std::string>& argv) {
    const int argc = int(argv.size());
    std::vector<std::string> rest;
    std::string log_level = "warn";
    int i = 1;
    for (; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--version" || a == "-V") {
            std::printf("ft %s\n", ft::build_description().c_str());
            return 0;
        }
        if (a == "--help" || a == "-h" || a == "help") {
            if (a == "help" && i + 1 < argc) {
                rest = {argv[i + 1], "--help"};
                i = argc;
                break;
            }
            print_main_help();
            return 0;
        }
        if (a == "--log-level") {
            if (i + 1 >= argc) throw Error(ErrorCode::invalid_argument, "--log-level needs a value");
            log_level = argv[++i];
            continue;
        }
        if (a.rfind("--log-level=", 0) == 0) {
            log_level = a.substr(12);
            continue;
        }
        break;
    }
    for (; i < argc; ++i) rest.emplace_back(argv[i]);
    if (rest.empty()) {
        print_main_help();
        return 2;
    }
    const auto level = spdlog::level::from_str(log_level);
    if (level == spdlog::level::off && log_level != "off") {
        throw Error(ErrorCode::invalid_argument, "unknown log level '" + log_level + "'",
                    "use trace, debug, info, warn, error or off");
    }
    const std::string name = rest.front();
    rest.erase(rest.begin());
    for (const auto& c : all_commands()) {
        const auto& spec = c.spec();
        if (spec.name != name) continue;
        Args args = Args::parse(spec, rest);
        if (args.help()) {
            std::fputs(format_help(spec).c_str(), stdout);
            return 0;
        }
        LogOptions lo;
        lo.app_name = "ft";
        lo.console_level = level;
        log_init(lo);
        spdlog::debug("ft {} {}", ft::version(), name);
        int rc = c.run(args);
        log_shutdown();
        return rc;
    }
    throw Error(ErrorCode::invalid_argument, "unknown command '" + name + "'", "run 'ft --help' for the commands");
}

}  // namespace ft::cli

int main(int argc, char** argv) {
    ft::stdio_binary_utf8();  // the model's bytes, as on Linux: no "\r\n" for "\n" on Windows
    try {
        return ft::cli::main_impl(ft::command_line_utf8(argc, argv));
    } catch (const ft::Error& e) {
        std::fprintf(stderr, "error: %s\n", e.what());
        return e.code() == ft::ErrorCode::invalid_argument ? 2 : 1;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "error: internal: %s\n", e.what());
        return 3;
    }
}
