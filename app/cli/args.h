// Command-line parsing for `ft` subcommands: each command declares its options, so `--help` is generated from the
// same table that parsing checks, and an unknown flag or a missing value is a clear ft::Error.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ft::cli {

struct OptionSpec {
    std::string name;        // "model" for --model
    std::string value_name;  // "PATH"; empty for a boolean flag
    std::string help;
    std::string default_value;  // shown in --help; empty for none
    bool repeatable = false;
};

struct CommandSpec {
    std::string name;          // "inspect"
    std::string usage;         // "PATH [--json]"
    std::string summary;       // one line for `ft --help`
    std::string description;   // paragraph for `ft NAME --help`
    std::vector<OptionSpec> options;
    std::string positional_help;  // e.g. "PATH  a GGUF file or a Hugging Face folder"
};

class Args {
public:
    // Throws ft::Error(invalid_argument) on an unknown option, a missing value or a value given to a flag.
    static Args parse(const CommandSpec& spec, const std::vector<std::string>& argv);

    bool has(const std::string& name) const;
    std::optional<std::string> get(const std::string& name) const;
    std::string get_or(const std::string& name, const std::string& fallback) const;
    std::vector<std::string> get_all(const std::string& name) const;
    // A file or folder option: the UTF-8 value as a path (ft/utf8.h; on Windows a plain std::string → path
    // conversion would not read it as UTF-8).
    std::optional<std::filesystem::path> get_path(const std::string& name) const;
    // Numeric getters throw ft::Error naming the option when the value is not a number in range.
    long long get_int(const std::string& name, long long fallback) const;
    double get_double(const std::string& name, double fallback) const;
    // Byte sizes accept K/M/G/T suffixes (powers of 1024): "8G", "512M", "1073741824".
    unsigned long long get_bytes(const std::string& name, unsigned long long fallback) const;

    const std::vector<std::string>& positionals() const { return positionals_; }
    bool help() const { return help_; }

private:
    std::map<std::string, std::vector<std::string>> values_;
    std::vector<std::string> positionals_;
    bool help_ = false;
};

std::string format_help(const CommandSpec& spec);
unsigned long long parse_bytes(const std::string& text);  // throws ft::Error on malformed input

}  // namespace ft::cli
