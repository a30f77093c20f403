#include "model/model_inspect.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <map>
#include <set>

#include "format/gguf.h"
#include "format/safetensors.h"
#include "format/hf_quant.h"
#include "ft/error.h"
#include "model/arch.h"
#include "model/model_desc.h"
#include "model/tokenizer_meta.h"
#include "ft/utf8.h"

namespace ft::model {

namespace {

using nlohmann::json;

// Whether the engine runs the architecture (it has a forward pass), and if not why.
void add_support(json& j, ArchId arch) {
    j["runs"] = arch_runs(arch);
    if (auto why = arch_unsupported_reason(arch)) {
        j["support_note"] = *why;
        // For translating front ends (ft::Message): the architecture and the ones that run.
        j["support_key"] = {{"key", "arch_no_forward"}, {"args", {std::string(arch_name(arch)), runnable_arch_names()}}};
    }
}

// Why the file could not be described; an architecture that is not registered does not run, and the note lists
// what does.
void add_description_error(json& j, const Error& e) {
    j["description_error"] = e.message();
    if (!e.key().empty()) j["description_error_key"] = {{"key", e.key().key}, {"args", e.key().args}};  // ft::Message
    if (e.code() == ErrorCode::unsupported) {
        j["runs"] = false;
        j["support_note"] = e.hint();
    }
}


json sizes_json(const SizeReport& s) {
    return {{"total_params", s.total_params},
            {"active_params", s.active_params},
            {"expert_pool_bytes", s.expert_pool_bytes},
            {"non_expert_bytes", s.non_expert_bytes},
            {"bytes_per_expert", s.expert_bytes_per_expert}};
}

// Per block type: how many tensors, their bytes and elements, and the layout's bits per weight.
json types_json(const std::vector<TensorStat>& stats) {
    std::map<std::string, json> types;
    for (const auto& s : stats) {
        json& t = types[std::string(kernels::dtype_info(s.type).name)];
        if (t.is_null()) t = {{"tensors", 0}, {"bytes", std::uint64_t(0)}, {"elements", std::uint64_t(0)},
                              {"bits_per_weight", kernels::dtype_bits_per_weight(s.type)}};
        t["tensors"] = t["tensors"].get<int>() + 1;
        t["bytes"] = t["bytes"].get<std::uint64_t>() + s.n_bytes;
        t["elements"] = t["elements"].get<std::uint64_t>() + s.n_elements;
    }
    return types;
}

json inspect_gguf(const std::filesystem::path& path) {
    // A split model's first part opens them all: its tensors and sizes are the whole model's.
    const gguf::Reader r = gguf::Reader::open_model(path);
    const auto& md = r.metadata();
    json j = {{"path", path_to_utf8(path)},
              {"format", "gguf"},
              {"version", r.version()},
              {"file_bytes", r.parts_size()},
              {"alignment", r.alignment()},
              {"metadata_keys", md.size()},
              {"tensor_count", r.tensors().size()}};
    const auto arch = md.opt_string("general.architecture");
    j["architecture"] = arch ? std::string(*arch) : std::string();
    if (auto n = md.opt_string("general.name")) j["name"] = std::string(*n);
    if (auto ft = md.opt_u64("general.file_type")) j["file_type"] = *ft;
    if (r.parts().size() > 1) {
        json parts = json::array();
        for (const auto& p : r.parts()) parts.push_back(path_to_utf8(p.path));
        j["parts"] = parts;
    }

    // Raw hyper-parameters: every `<arch>.*` key, shown as the file stores it.
    json hp = json::object();
    if (arch) {
        const std::string prefix = std::string(*arch) + ".";
        for (const auto& kv : md.entries())
            if (kv.key.compare(0, prefix.size(), prefix) == 0) hp[kv.key.substr(prefix.size())] = kv.value.to_display(8, 120);
    }
    j["hyper_parameters"] = hp;

    std::optional<ModelDesc> desc;
    try {
        desc = desc_from_gguf(r);
    } catch (const Error& e) {
        add_description_error(j, e);
    }

    std::vector<TensorStat> stats;
    json tensors = json::array();
    for (const auto& t : r.tensors()) {
        TensorStat s;
        s.name = t.name;
        s.dims.assign(t.dims.begin(), t.dims.begin() + t.n_dims);
        s.type = t.type;
        s.n_elements = t.n_elements;
        s.n_bytes = t.n_bytes;
        tensors.push_back({{"name", t.name}, {"type", kernels::dtype_info(t.type).name}, {"shape", s.dims}, {"bytes", t.n_bytes}});
        stats.push_back(std::move(s));
    }
    if (desc) {
        j["description"] = desc_to_json(*desc);
        add_support(j, desc->arch);
    }
    j["tensors"] = tensors;
    if (!stats.empty()) j["types"] = types_json(stats);
    if (!stats.empty()) j["sizes"] = sizes_json(measure(desc ? &*desc : nullptr, stats));
    j["tokenizer"] = tokenizer_summary_json(tokenizer_summary(md));
    return j;
}

json inspect_hf(const std::filesystem::path& dir) {
    json j = {{"path", path_to_utf8(dir)}, {"format", "huggingface"}};
    std::optional<ModelDesc> desc;
    try {
        desc = desc_from_hf_dir(dir);
        j["architecture"] = arch_name(desc->arch);
        j["description"] = desc_to_json(*desc);
        add_support(j, desc->arch);
    } catch (const Error& e) {
        add_description_error(j, e);
    }
    json tensors = json::array();
    std::vector<TensorStat> stats;
    const bool has_weights = std::filesystem::exists(dir / "model.safetensors") ||
                             std::filesystem::exists(dir / "model.safetensors.index.json");
    if (has_weights) {
        const auto ck = safetensors::Checkpoint::open(dir);
        j["safetensors_files"] = ck.files().size();
        // FP8 / NVFP4 weights (format/hf_quant.h) count as the engine type they load as, at its size; their scale
        // tensors are in that size, so they are listed but not counted again.
        const safetensors::QuantConfig qc = safetensors::read_quant_config(dir);
        std::vector<safetensors::QuantizedTensor> quantized;
        std::set<std::string, std::less<>> scales;
        for (const auto name : ck.names()) {
            std::string weight(name);  // compressed-tensors' "….weight_packed" is the form of "….weight"
            if (weight.ends_with(".weight_packed")) weight.resize(weight.size() - 7);
            if (auto q = safetensors::find_quantized(ck, weight, qc)) {
                for (const auto* e : {q->scale, q->scale2})
                    if (e) scales.emplace(e->info->name);
                for (const char* input : {".input_scale", ".input_global_scale"})  // activations' scales: not used
                    if (ck.find(q->base + input)) scales.emplace(q->base + input);
                quantized.push_back(std::move(*q));
            }
        }
        std::uint64_t total = 0;
        for (const auto name : ck.names()) {
            const auto& e = ck.tensor(name);
            total += e.info->n_bytes();
            tensors.push_back({{"name", name}, {"type", safetensors::dtype_name(e.info->dtype)}, {"shape", e.info->shape},
                               {"bytes", e.info->n_bytes()}});
            if (scales.count(name)) continue;
            const auto q = std::find_if(quantized.begin(), quantized.end(), [&](const auto& x) { return x.name == name; });
            TensorStat s;
            s.name = std::string(name);
            if (q != quantized.end()) {
                s.dims = q->shape;
                s.type = q->type;
                s.n_elements = q->rows() * q->cols();
                s.n_bytes = *kernels::dtype_bytes(q->type, q->cols()) * q->rows();
            } else {
                s.dims = e.info->shape;
                s.type = safetensors::to_kernel_dtype(e.info->dtype).value_or(kernels::DType::F32);
                s.n_elements = e.info->n_elements;
                s.n_bytes = e.info->n_bytes();
            }
            stats.push_back(std::move(s));
        }
        j["file_bytes"] = total;
    }
    j["tensor_count"] = tensors.size();
    j["tensors"] = tensors;
    if (!stats.empty()) j["types"] = types_json(stats);
    if (!stats.empty()) j["sizes"] = sizes_json(measure(desc ? &*desc : nullptr, stats));
    j["tokenizer"] = tokenizer_summary_json(tokenizer_summary_hf(dir));
    return j;
}

std::string human_bytes(std::uint64_t b) {
    char buf[64];
    const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = static_cast<double>(b);
    int u = 0;
    while (v >= 1024 && u < 4) v /= 1024, ++u;
    std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.2f %s", v, units[u]);
    return buf;
}

std::string human_count(std::uint64_t n) {
    char buf[64];
    if (n >= 1000000000ull) std::snprintf(buf, sizeof buf, "%.2fB", n / 1e9);
    else if (n >= 1000000ull) std::snprintf(buf, sizeof buf, "%.2fM", n / 1e6);
    else std::snprintf(buf, sizeof buf, "%" PRIu64, n);
    return buf;
}

std::string scalar(const json& v) {
    if (v.is_string()) return v.get<std::string>();
    if (v.is_number_float()) {  // f32-stored values (1e-6 reads back as 9.99999997e-07): 7 significant digits
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.7g", v.get<double>());
        return buf;
    }
    return v.dump();
}

}  // namespace

json inspect_path(const std::filesystem::path& path) {
    if (std::filesystem::is_directory(path)) return inspect_hf(path);
    if (!std::filesystem::exists(path))
        throw Error(ErrorCode::not_found, path_to_utf8(path) + ": no such file or folder", "give a .gguf file or a Hugging Face folder");
    return inspect_gguf(path);
}

std::string inspect_text(const json& j) {
    std::string o;
    auto line = [&](const std::string& k, const std::string& v) { o += "  " + k + std::string(k.size() < 22 ? 22 - k.size() : 1, ' ') + v + "\n"; };
    o += j.value("path", std::string()) + "\n";
    line("format", j.value("format", std::string()) + (j.contains("version") ? " v" + j["version"].dump() : std::string()));
    if (j.contains("file_bytes"))
        line("size", human_bytes(j["file_bytes"].get<std::uint64_t>()) +
                         (j.contains("parts") ? " in " + std::to_string(j["parts"].size()) + " parts" : std::string()));
    line("architecture", j.value("architecture", std::string("?")));
    if (j.contains("name")) line("name", j["name"].get<std::string>());
    line("tensors", std::to_string(j.value("tensor_count", 0)));
    if (j.contains("description_error")) line("note", j["description_error"].get<std::string>());
    if (j.contains("runs")) line("runs", j["runs"].get<bool>() ? "yes" : "no: " + j.value("support_note", std::string()));

    if (j.contains("description")) {
        const json& d = j["description"];
        o += "\nModel\n";
        line("layers", scalar(d["n_layer"]) + " (" + scalar(d["moe"]["n_moe_layers"]) + " MoE)");
        line("hidden", scalar(d["n_embd"]));
        line("vocab", scalar(d["n_vocab"]));
        line("context (train)", scalar(d["n_ctx_train"]));
        line("heads / kv heads", scalar(d["attention"]["n_head"]) + " / " + scalar(d["attention"]["n_head_kv"]) +
                                     ", head dim " + scalar(d["attention"]["head_dim"]));
        if (d["attention"].contains("mla")) line("MLA", d["attention"]["mla"].dump());
        if (d["attention"].contains("indexer")) line("sparse indexer", d["attention"]["indexer"].dump());
        const bool moe = d["moe"]["n_expert"].get<int>() > 0;
        if (moe)
            line("experts", scalar(d["moe"]["n_expert"]) + ", " + scalar(d["moe"]["n_expert_used"]) + " per token, FFN " +
                                scalar(d["moe"]["n_ff_exp"]));
        else
            line("experts", "none (dense: no MoE block)");
        if (d["moe"]["n_shared_expert"].get<int>() > 0)
            line("shared experts", scalar(d["moe"]["n_shared_expert"]) + ", FFN " + scalar(d["moe"]["n_ff_shexp"]));
        if (d["n_ff"].get<int>() > 0) line("dense FFN", scalar(d["n_ff"]));
        if (moe) line("gating", scalar(d["moe"]["gating"]) + (d["moe"]["norm_topk_prob"].get<bool>() ? ", normalized top-k" : "") +
                           (d["moe"]["routed_scaling_factor"].get<double>() != 1.0 ? ", scale " + scalar(d["moe"]["routed_scaling_factor"]) : "") +
                           (d["moe"]["n_group"].get<int>() > 0 ? ", groups " + scalar(d["moe"]["n_group"]) + "/" + scalar(d["moe"]["topk_group"]) : ""));
        line("norm eps", scalar(d["norm_eps"]));
        line("rope", scalar(d["rope"]["type"]) + ", theta " + scalar(d["rope"]["theta"]) + ", dims " + scalar(d["rope"]["n_rot"]) +
                         (d["rope"]["scaling"] != "none" ? ", " + scalar(d["rope"]["scaling"]) + " x" + scalar(d["rope"]["factor"]) : ""));
        line("tied embeddings", d["tied_embeddings"].get<bool>() ? "yes" : "no");
    } else if (j.contains("hyper_parameters") && !j["hyper_parameters"].empty()) {
        o += "\nHyper-parameters\n";
        for (const auto& [k, v] : j["hyper_parameters"].items()) line(k, v.get<std::string>());
    }
    if (j.contains("sizes")) {
        const json& s = j["sizes"];
        o += "\nSizes\n";
        line("parameters", human_count(s["total_params"].get<std::uint64_t>()) + " total, " +
                               human_count(s["active_params"].get<std::uint64_t>()) + " active per token");
        line("expert pool", human_bytes(s["expert_pool_bytes"].get<std::uint64_t>()) +
                                (s["bytes_per_expert"].get<std::uint64_t>() ? " (" + human_bytes(s["bytes_per_expert"].get<std::uint64_t>()) + " per expert)" : ""));
        line("non-expert", human_bytes(s["non_expert_bytes"].get<std::uint64_t>()));
    }
    const json& t = j["tokenizer"];
    o += "\nTokenizer\n";
    if (!t.value("present", false)) {
        line("tokenizer", "none");
    } else {
        line("model", t.value("model", std::string()) + (t.contains("pre") ? ", pre " + t["pre"].get<std::string>() : ""));
        line("vocab", scalar(t["vocab_size"]) + (t.contains("added_tokens") ? " (+" + scalar(t["added_tokens"]) + " added)" : ""));
        line("merges", scalar(t["merges"]));
        auto tok = [&](const char* id, const char* text) {
            std::string s = t.contains(id) ? scalar(t[id]) : "-";
            if (t.contains(text)) s += " " + json(t[text].get<std::string>()).dump();
            return s;
        };
        line("bos", tok("bos_token_id", "bos_token"));
        line("eos", tok("eos_token_id", "eos_token"));
        line("chat template", t.value("chat_template", false) ? "yes (" + scalar(t["chat_template_chars"]) + " chars)" : "no");
    }
    if (j.contains("types")) {
        o += "\nBlock types\n";
        for (const auto& [name, t] : j["types"].items()) {
            char buf[256];
            std::snprintf(buf, sizeof buf, "  %-8s %3d tensors  %7.4f bits/weight  %s\n", name.c_str(), t["tensors"].get<int>(),
                          t["bits_per_weight"].get<double>(), human_bytes(t["bytes"].get<std::uint64_t>()).c_str());
            o += buf;
        }
    }
    if (!j["tensors"].empty()) {
        o += "\nTensors\n";
        for (const auto& x : j["tensors"]) {
            std::string shape = "[";
            for (size_t i = 0; i < x["shape"].size(); ++i) shape += (i ? ", " : "") + x["shape"][i].dump();
            shape += "]";
            char buf[512];
            std::snprintf(buf, sizeof buf, "  %-40s %-6s %-24s %s\n", x["name"].get<std::string>().c_str(),
                          x["type"].get<std::string>().c_str(), shape.c_str(), human_bytes(x["bytes"].get<std::uint64_t>()).c_str());
            o += buf;
        }
    }
    return o;
}

}  // namespace ft::model
