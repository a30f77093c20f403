#include "args.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "ft/error.h"
#include "ft/utf8.h"

namespace ft::cli {

static const OptionSpec* find_option(const CommandSpec& spec, const std::string& name) {
    for (const auto& o : spec.options)
        if (o.name == name) return &o;
    return nullptr;
}

Args Args::parse(const CommandSpec& spec, const std::vector<std::string>& argv) {
    Args args;
    bool only_positionals = false;
    for (size_t i = 0; i < argv.size(); ++i) {
        const std::string& a = argv[i];
        if (only_positionals || a.size() < 2 || a[0] != '-' || a == "-") {
            args.positionals_.push_back(a);
            continue;
        }
        if (a == "--") {
            only_positionals = true;
            continue;
        }
        if (a == "-h" || a == "--help") {
            args.help_ = true;
            continue;
        }
        if (a.rfind("--", 0) != 0) {
            throw Error(ErrorCode::invalid_argument, "ft " + spec.name + ": unknown option '" + a + "'",
                        "run 'ft " + spec.name + " --help' for the options");
        }
        std::string name = a.substr(2);
        std::optional<std::string> inline_value;
        if (auto eq = name.find('='); eq != std::string::npos) {
            inline_value = name.substr(eq + 1);
            name = name.substr(0, eq);
        }
        const OptionSpec* opt = find_option(spec, name);
        if (!opt) {
            throw Error(ErrorCode::invalid_argument, "ft " + spec.name + ": unknown option '--" + name + "'",
                        "run 'ft " + spec.name + " --help' for the options");
        }
        std::string value;
        if (opt->value_name.empty()) {
            if (inline_value) {
                throw Error(ErrorCode::invalid_argument,
                            "ft " + spec.name + ": option '--" + name + "' takes no value");
            }
            value = "1";
        } else if (inline_value) {
            value = *inline_value;
        } else {
            if (i + 1 >= argv.size()) {
                throw Error(ErrorCode::invalid_argument,
                            "ft " + spec.name + ": option '--" + name + "' needs a value (" + opt->value_name + ")");
            }
            value = argv[++i];
        }
        auto& slot = args.values_[name];
        if (!opt->repeatable) slot.clear();
        slot.push_back(value);
    }
    return args;
}

bool Args::has(const std::string& name) const { return values_.count(name) != 0; }

std::optional<std::string> Args::get(const std::string& name) const {
    auto it = values_.find(name);
    if (it == values_.end() || it->second.empty()) return std::nullopt;
    return it->second.back();
}

std::optional<std::filesystem::path> Args::get_path(const std::string& name) const {
    const auto v = get(name);
    if (!v) return std::nullopt;
    return path_from_utf8(*v);
}

std::string Args::get_or(const std::string& name, const std::string& fallback) const {
    return get(name).value_or(fallback);
}

std::vector<std::string> Args::get_all(const std::string& name) const {
    auto it = values_.find(name);
    return it == values_.end() ? std::vector<std::string>{} : it->second;
}

long long Args::get_int(const std::string& name, long long fallback) const {
    auto v = get(name);
    if (!v) return fallback;
    errno = 0;
    char* end = nullptr;
    long long x = std::strtoll(v->c_str(), &end, 10);
    if (errno != 0 || end == v->c_str() || *end != '\0') {
        throw Error(ErrorCode::invalid_argument, "option '--" + name + "': '" + *v + "' is not an integer");
    }
    return x;
}

double Args::get_double(const std::string& name, double fallback) const {
    auto v = get(name);
    if (!v) return fallback;
    errno = 0;
    char* end = nullptr;
    double x = std::strtod(v->c_str(), &end);
    if (errno != 0 || end == v->c_str() || *end != '\0' || !std::isfinite(x)) {
        throw Error(ErrorCode::invalid_argument, "option '--" + name + "': '" + *v + "' is not a number");
    }
    return x;
}

unsigned long long parse_bytes(const std::string& text) {
    if (text.empty() || text[0] == '-') {
        throw Error(ErrorCode::invalid_argument, "'" + text + "' is not a byte size", "use e.g. 8G, 512M or 1073741824");
    }
    errno = 0;
    char* end = nullptr;
    double x = std::strtod(text.c_str(), &end);
    if (errno != 0 || end == text.c_str() || !std::isfinite(x) || x < 0) {
        throw Error(ErrorCode::invalid_argument, "'" + text + "' is not a byte size", "use e.g. 8G, 512M or 1073741824");
    }
    std::string suffix(end);
    if (!suffix.empty() && (suffix.back() == 'B' || suffix.back() == 'b')) suffix.pop_back();
    if (suffix.size() > 1 && (suffix.back() == 'i')) suffix.pop_back();
    double mult = 1;
    if (suffix.empty()) mult = 1;
    else if (suffix == "K" || suffix == "k") mult = 1024.0;
    else if (suffix == "M" || suffix == "m") mult = 1024.0 * 1024;
    else if (suffix == "G" || suffix == "g") mult = 1024.0 * 1024 * 1024;
    else if (suffix == "T" || suffix == "t") mult = 1024.0 * 1024 * 1024 * 1024;
    else throw Error(ErrorCode::invalid_argument, "'" + text + "' has an unknown size suffix", "use K, M, G or T");
    const double bytes = x * mult;
    if (bytes > 1.8e19) throw Error(ErrorCode::invalid_argument, "'" + text + "' is too large a byte size");
    return static_cast<unsigned long long>(bytes);
}

unsigned long long Args::get_bytes(const std::string& name, unsigned long long fallback) const {
    auto v = get(name);
    if (!v) return fallback;
    try {
        return parse_bytes(*v);
    } catch (const Error& e) {
        throw Error(ErrorCode::invalid_argument, "option '--" + name + "': " + e.message(), e.hint());
    }
}

std::string format_help(const CommandSpec& spec) {
    std::ostringstream out;
    out << "Usage: ft " << spec.name << (spec.usage.empty() ? "" : " " + spec.usage) << "\n\n";
    out << spec.description << "\n";
    if (!spec.positional_help.empty()) out << "\nArguments:\n  " << spec.positional_help << "\n";
    out << "\nOptions:\n";
    size_t width = 10;
    auto left = [](const OptionSpec& o) {
        return "--" + o.name + (o.value_name.empty() ? "" : " " + o.value_name);
    };
    for (const auto& o : spec.options) width = std::max(width, left(o).size());
    for (const auto& o : spec.options) {
        std::string l = left(o);
        out << "  " << l << std::string(width - l.size() + 2, ' ') << o.help;
        if (!o.default_value.empty()) out << " [default: " << o.default_value << "]";
        out << "\n";
    }
    std::string h = "-h, --help";
    out << "  " << h << std::string(width > h.size() ? width - h.size() + 2 : 2, ' ') << "show this help\n";
    return out.str();
}

}  // namespace ft::cli
