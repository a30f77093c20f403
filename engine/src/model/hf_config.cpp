// ModelDesc from a Hugging Face config.json: the fields every architecture shares here, the rest in the
// architecture's folder (its registry entry's read_hf).
#include <fstream>
#include <nlohmann/json.hpp>

#include "ft/error.h"
#include "model/arch.h"
#include "model/hf_fields.h"
#include "model/model_desc.h"
#include "ft/utf8.h"

namespace ft::model {

using nlohmann::json;

ModelDesc desc_from_hf_config(const json& cfg_in, const std::string& source) {
    if (!cfg_in.is_object()) throw Error(ErrorCode::invalid_file, source + ": not a JSON object");
    // Multimodal wrappers keep the language model's fields under text_config.
    const json& cfg = cfg_in.contains("text_config") && cfg_in["text_config"].is_object() ? cfg_in["text_config"] : cfg_in;
    HfConfig f(cfg, source);
    ModelDesc d;
    d.source = source;
    const Arch* arch = nullptr;
    std::string arch_label, field;
    if (cfg_in.contains("architectures") && cfg_in["architectures"].is_array() && !cfg_in["architectures"].empty() &&
        cfg_in["architectures"][0].is_string()) {
        arch_label = cfg_in["architectures"][0].get<std::string>();
        field = "architectures";
        arch = arch_of_hf_class(arch_label);
    } else if (cfg.contains("model_type") && cfg["model_type"].is_string()) {
        arch_label = cfg["model_type"].get<std::string>();
        field = "model_type";
        arch = arch_of_hf_model_type(arch_label);
    } else {
        throw Error(ErrorCode::not_found, source + ": missing field (architectures)");
    }
    if (!arch || !arch->graph)
        throw Error(ErrorCode::unsupported, source + ": architecture \"" + arch_label + "\" is not supported (" + field + ")",
                    "supported: " + runnable_hf_classes())
            .keyed("arch_unsupported", {source, arch_label, runnable_hf_classes()});
    d.arch = arch->id;

    d.n_vocab = f.req_u32("vocab_size");
    d.n_embd = f.req_u32("hidden_size");
    d.n_layer = f.req_u32("num_hidden_layers");
    d.n_ctx_train = f.opt_u32("max_position_embeddings", 0);
    d.norm_eps = f.req_f64("rms_norm_eps");
    d.tied_embeddings = f.opt_bool("tie_word_embeddings", false);

    auto& at = d.attn;
    at.n_head = f.req_u32("num_attention_heads");
    at.n_head_kv = f.opt_u32("num_key_value_heads", at.n_head);
    at.head_dim = f.opt_u32("head_dim", at.n_head ? d.n_embd / at.n_head : 0);
    at.v_head_dim = at.head_dim;
    at.qkv_bias = f.opt_bool("attention_bias", false);

    auto& r = d.rope;
    r.theta = f.opt_f64("rope_theta", 10000.0);
    r.n_rot = at.head_dim;
    if (const json* rope = f.rope()) {
        if (rope->contains("rope_theta")) r.theta = HfConfig(*rope, source).opt_f64("rope_theta", r.theta);
        read_rope_scaling(HfConfig(*rope, source), r);
    }
    if (arch->read_hf) arch->read_hf(f, d);
    validate(d);
    return d;
}

ModelDesc desc_from_hf_dir(const std::filesystem::path& dir) {
    const auto path = dir / "config.json";
    std::ifstream in(path);
    if (!in)
        throw Error(ErrorCode::not_found, path_to_utf8(path) + ": cannot open", "a Hugging Face model folder needs config.json");
    json cfg = json::parse(in, nullptr, false);
    if (cfg.is_discarded()) throw Error(ErrorCode::invalid_file, path_to_utf8(path) + ": not valid JSON");
    ModelDesc d = desc_from_hf_config(cfg, path_to_utf8(path));
    d.name = path_to_utf8(dir.filename());
    if (d.name.empty()) d.name = path_to_utf8(dir.parent_path().filename());
    return d;
}

}  // namespace ft::model
