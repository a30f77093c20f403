#include "model_facts.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>
#include <system_error>

#include "format/gguf.h"
#include "ft/error.h"
#include "model/model_desc.h"
#include "model/model_inspect.h"
#include "ft/utf8.h"

namespace ft {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string describe_error(const Error& e) {
    return e.hint().empty() ? e.message() : e.message() + " — " + e.hint();
}

std::uint64_t elements_of(const json& shape) {
    std::uint64_t n = 1;
    for (const auto& d : shape) n *= d.get<std::uint64_t>();
    return n;
}

// The split GGUF's parts next to `first` (name-0000K-of-0000N.gguf, K = 1..N), or just `first`.
std::vector<fs::path> gguf_parts(const fs::path& first, std::string& error) {
    std::string stem;
    int part = 0, count = 0;
    if (!parse_split_gguf_name(path_to_utf8(first.filename()), stem, part, count)) return {first};
    std::vector<fs::path> out;
    for (int k = 1; k <= count; ++k) {
        const fs::path p = first.parent_path() / path_from_utf8(gguf::split_file_name(stem, k, count));
        std::error_code ec;
        if (!fs::is_regular_file(p, ec)) {
            error = "part " + std::to_string(k) + " of " + std::to_string(count) + " is missing (" + path_to_utf8(p) +
                    ") — download every part into the same folder";
            return {};
        }
        out.push_back(p);
    }
    return out;
}

}  // namespace

bool parse_split_gguf_name(const std::string& file_name, std::string& stem, int& part, int& count) {
    return gguf::parse_split_file_name(file_name, stem, part, count);  // the engine's reading of the convention
}

ModelFacts read_model_facts(const fs::path& path) {
    ModelFacts f;
    std::error_code ec;
    const bool is_dir = fs::is_directory(path, ec);
    if (is_dir) {
        f.parts = {path};
        for (const auto& e : fs::directory_iterator(path, ec))
            if (e.is_regular_file(ec)) f.file_bytes += e.file_size(ec);
    } else {
        f.parts = gguf_parts(path, f.error);
        if (f.parts.empty()) return f;
        for (const auto& p : f.parts) f.file_bytes += fs::file_size(p, ec);
    }

    std::vector<json> reports;
    try {
        // A split model's first part: the inspector opens every part and reports the whole model's tensors.
        reports.push_back(model::inspect_path(f.parts.front()));
    } catch (const Error& e) {
        f.error = describe_error(e);
        f.error_key = e.key();
        return f;
    } catch (const std::exception& e) {
        f.error = std::string("cannot read the model: ") + e.what();
        return f;
    }
    f.readable = true;
    const json& first = reports.front();
    f.architecture = first.value("architecture", std::string());
    f.name = first.value("name", std::string());
    if (first.contains("description")) {
        const json& d = first["description"];
        f.described = true;
        f.architecture = d.value("architecture", f.architecture);
        f.n_layer = d.value("n_layer", 0u);
        f.n_embd = d.value("n_embd", 0u);
        f.n_expert = d["moe"].value("n_expert", 0u);
        f.n_expert_used = d["moe"].value("n_expert_used", 0u);
        f.n_moe_layers = d["moe"].value("n_moe_layers", 0u);
        f.n_head_kv = d["attention"].value("n_head_kv", 0u);
        f.head_dim = d["attention"].value("head_dim", 0u);
    }
    // The inspector's ft::Message {"key", "args"} of a note, when it has one.
    const auto message_of = [](const json& j) {
        Message m;
        if (!j.is_object() || !j.contains("key") || !j["key"].is_string()) return m;
        m.key = j["key"].get<std::string>();
        if (j.contains("args") && j["args"].is_array())
            for (const json& a : j["args"])
                if (a.is_string()) m.args.push_back(a.get<std::string>());
        return m;
    };
    if (!f.described) {
        f.support_note = first.value("description_error", std::string("the architecture is not recognised"));
        if (first.contains("description_error_key")) f.support_key = message_of(first["description_error_key"]);
    } else if (!first.value("runs", false)) {
        // The engine's own answer (its architecture registry): described, but no forward pass yet.
        f.support_note = first.value("support_note", "architecture " + f.architecture + " does not run in this version");
        if (first.contains("support_key")) f.support_key = message_of(first["support_key"]);
    }
    f.runnable = f.described && f.support_note.empty();

    // Sizes over the tensors (of every part of a split model).
    std::uint64_t expert_params = 0;
    std::map<std::string, std::uint64_t> expert_type_bytes, all_type_bytes;
    bool any_tensor = false;
    for (const json& r : reports) {
        if (!r.contains("tensors")) continue;
        for (const json& t : r["tensors"]) {
            any_tensor = true;
            const std::uint64_t n = elements_of(t["shape"]);
            const std::uint64_t b = t.value("bytes", std::uint64_t(0));
            const std::string type = t.value("type", std::string("?"));
            f.total_params += n;
            all_type_bytes[type] += b;
            if (model::classify_tensor(t.value("name", std::string())) == model::TensorClass::routed_expert) {
                f.expert_pool_bytes += b;
                expert_params += n;
                expert_type_bytes[type] += b;
            } else {
                f.non_expert_bytes += b;
            }
        }
    }
    f.active_params = f.total_params - expert_params;
    if (f.n_expert > 0)
        f.active_params += static_cast<std::uint64_t>(static_cast<long double>(expert_params) * f.n_expert_used / f.n_expert);
    else
        f.active_params += expert_params;
    const std::uint64_t slots = std::uint64_t(f.n_moe_layers) * f.n_expert;
    if (slots) f.bytes_per_expert = f.expert_pool_bytes / slots;
    const auto& types = expert_type_bytes.empty() ? all_type_bytes : expert_type_bytes;
    std::uint64_t best = 0;
    for (const auto& [type, bytes] : types)
        if (bytes > best) best = bytes, f.quant = type;
    std::transform(f.quant.begin(), f.quant.end(), f.quant.begin(), [](unsigned char c) { return char(std::toupper(c)); });
    if (!any_tensor && f.support_note.empty()) {
        f.runnable = false;
        f.support_note = "the file has no weights (a vocabulary-only GGUF)";
    }
    return f;
}

}  // namespace ft
