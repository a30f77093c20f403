#include "model/tokenizer_meta.h"

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "format/gguf.h"
#include "ft/error.h"
#include "ft/utf8.h"

namespace ft::model {

namespace {

using nlohmann::json;

json read_json(const std::filesystem::path& p, const char* what) {
    std::ifstream in(p, std::ios::binary);
    if (!in) throw Error(ErrorCode::not_found, path_to_utf8(p) + ": cannot open", std::string("the ") + what + " is needed");
    json j = json::parse(in, nullptr, false);
    if (j.is_discarded()) throw Error(ErrorCode::invalid_file, path_to_utf8(p) + ": not valid JSON");
    return j;
}

std::string read_text(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    if (!in) throw Error(ErrorCode::not_found, path_to_utf8(p) + ": cannot open");
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// tokenizer_config's bos_token / eos_token / pad_token: a string, an AddedToken object {"content": …}, or null.
std::optional<std::string> token_name(const json& cfg, const char* key) {
    if (!cfg.contains(key)) return std::nullopt;
    const json& v = cfg[key];
    if (v.is_string()) return v.get<std::string>();
    if (v.is_object() && v.contains("content") && v["content"].is_string()) return v["content"].get<std::string>();
    return std::nullopt;
}

bool looks_special(const std::string& t) {
    auto wrapped = [&](std::string_view open, std::string_view close) {
        return t.size() >= open.size() + close.size() && t.compare(0, open.size(), open) == 0 &&
               t.compare(t.size() - close.size(), close.size(), close) == 0;
    };
    return wrapped("<|", "|>") || wrapped("<\xEF\xBD\x9C", "\xEF\xBD\x9C>");  // <|…|> and DeepSeek's fullwidth bars
}

// The pre-tokenizer name llama.cpp uses to pick its regex: recognized from the tokenizer class or the split regex.
std::string detect_pre(const json& tok, const json& cfg) {
    if (cfg.is_object() && cfg.value("tokenizer_class", std::string()) == "Qwen2Tokenizer") return "qwen2";
    const std::string dumped = tok.contains("pre_tokenizer") ? tok["pre_tokenizer"].dump() : std::string();
    if (dumped.find("(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\\\r\\\\n\\\\p{L}\\\\p{N}]?\\\\p{L}+|\\\\p{N}|") != std::string::npos)
        return "qwen2";
    if (dumped.find("\\\\p{N}{1,3}") != std::string::npos) return "llama-bpe";
    return "default";
}

}  // namespace

HfTokenizerSource hf_tokenizer_source(const std::filesystem::path& dir) {
    HfTokenizerSource s;
    s.tokenizer_json = dir / "tokenizer.json";
    if (std::filesystem::exists(dir / "tokenizer_config.json")) s.tokenizer_config = dir / "tokenizer_config.json";
    if (std::filesystem::exists(dir / "chat_template.jinja")) s.chat_template_jinja = dir / "chat_template.jinja";
    return s;
}

void hf_tokenizer_to_gguf(const HfTokenizerSource& src, std::uint32_t vocab_size, const json* model_config,
                          gguf::Metadata& md) {
    using gguf::Value;
    const std::string tj = path_to_utf8(src.tokenizer_json);
    const json tok = read_json(src.tokenizer_json, "tokenizer.json");
    const json cfg = src.tokenizer_config.empty() ? json::object() : read_json(src.tokenizer_config, "tokenizer_config.json");
    if (!tok.is_object() || !tok.contains("model") || !tok["model"].is_object())
        throw Error(ErrorCode::invalid_file, tj + ": missing object (model)");
    const json& model = tok["model"];
    const std::string type = model.value("type", std::string());
    if (type != "BPE")
        throw Error(ErrorCode::unsupported, tj + ": tokenizer model \"" + type + "\" is not supported (model.type)",
                    "only byte-level BPE tokenizers convert to GGUF here");
    if (!model.contains("vocab") || !model["vocab"].is_object())
        throw Error(ErrorCode::invalid_file, tj + ": missing object (model.vocab)");

    // Ids: the vocab, then added tokens (which may sit beyond it), then padding up to the model's vocab size.
    std::uint64_t n = vocab_size;
    auto id_of = [&](const json& v, const std::string& field) {
        if (!v.is_number_integer() || v.get<std::int64_t>() < 0 || v.get<std::int64_t>() >= (1 << 26))
            throw Error(ErrorCode::invalid_file, tj + ": bad token id " + v.dump() + " (" + field + ")");
        return static_cast<std::uint64_t>(v.get<std::int64_t>());
    };
    for (const auto& [text, id] : model["vocab"].items()) n = std::max(n, id_of(id, "model.vocab") + 1);
    const json added = tok.contains("added_tokens") && tok["added_tokens"].is_array() ? tok["added_tokens"] : json::array();
    for (const auto& a : added) n = std::max(n, id_of(a.value("id", json()), "added_tokens") + 1);
    if (vocab_size && n > vocab_size)
        throw Error(ErrorCode::invalid_file,
                    tj + ": token id " + std::to_string(n - 1) + " does not fit the model's vocab size " + std::to_string(vocab_size) +
                        " (vocab_size)");

    std::vector<std::string> tokens(n);
    std::vector<std::int32_t> types(n, 0);
    for (const auto& [text, id] : model["vocab"].items()) {
        const auto i = id.get<std::uint64_t>();
        tokens[i] = text;
        types[i] = static_cast<std::int32_t>(TokenType::normal);
    }
    for (const auto& a : added) {
        const auto i = a["id"].get<std::uint64_t>();
        const std::string text = a.value("content", std::string());
        tokens[i] = text;
        const bool special = a.value("special", false) || looks_special(text);
        types[i] = static_cast<std::int32_t>(special ? TokenType::control : TokenType::user_defined);
    }
    for (std::uint64_t i = 0; i < n; ++i)
        if (types[i] == 0) {
            tokens[i] = "[PAD" + std::to_string(i) + "]";
            types[i] = static_cast<std::int32_t>(TokenType::unused);
        }

    std::vector<std::string> merges;
    if (model.contains("merges") && model["merges"].is_array()) {
        merges.reserve(model["merges"].size());
        for (const auto& m : model["merges"]) {
            if (m.is_string()) merges.push_back(m.get<std::string>());
            else if (m.is_array() && m.size() == 2 && m[0].is_string() && m[1].is_string())
                merges.push_back(m[0].get<std::string>() + " " + m[1].get<std::string>());
            else throw Error(ErrorCode::invalid_file, tj + ": malformed merge " + m.dump() + " (model.merges)");
        }
    }

    md.set("tokenizer.ggml.model", Value::string("gpt2"));
    md.set("tokenizer.ggml.pre", Value::string(detect_pre(tok, cfg)));
    md.set("tokenizer.ggml.tokens", Value::string_array(std::move(tokens)));
    md.set("tokenizer.ggml.token_type", Value::i32_array(types));
    md.set("tokenizer.ggml.merges", Value::string_array(std::move(merges)));

    // Special ids: by name from tokenizer_config, else the ids in config.json.
    std::map<std::string, std::uint64_t> by_text;
    for (const auto& a : added) by_text[a.value("content", std::string())] = a["id"].get<std::uint64_t>();
    auto special_id = [&](const char* cfg_key, const char* model_key) -> std::optional<std::uint64_t> {
        if (auto name = token_name(cfg, cfg_key)) {
            if (auto it = by_text.find(*name); it != by_text.end()) return it->second;
            if (model["vocab"].contains(*name)) return model["vocab"][*name].get<std::uint64_t>();
        }
        if (model_config && model_config->contains(model_key) && (*model_config)[model_key].is_number_integer()) {
            const auto v = (*model_config)[model_key].get<std::int64_t>();
            if (v >= 0 && static_cast<std::uint64_t>(v) < n) return static_cast<std::uint64_t>(v);
        }
        return std::nullopt;
    };
    if (auto v = special_id("bos_token", "bos_token_id")) md.set("tokenizer.ggml.bos_token_id", Value::u32(static_cast<std::uint32_t>(*v)));
    if (auto v = special_id("eos_token", "eos_token_id")) md.set("tokenizer.ggml.eos_token_id", Value::u32(static_cast<std::uint32_t>(*v)));
    if (auto v = special_id("pad_token", "pad_token_id")) md.set("tokenizer.ggml.padding_token_id", Value::u32(static_cast<std::uint32_t>(*v)));
    if (auto v = special_id("unk_token", "unk_token_id")) md.set("tokenizer.ggml.unknown_token_id", Value::u32(static_cast<std::uint32_t>(*v)));
    md.set("tokenizer.ggml.add_bos_token", Value::boolean(cfg.value("add_bos_token", false)));
    if (cfg.contains("add_eos_token") && cfg["add_eos_token"].is_boolean())
        md.set("tokenizer.ggml.add_eos_token", Value::boolean(cfg["add_eos_token"].get<bool>()));

    if (!src.chat_template_jinja.empty()) {
        md.set("tokenizer.chat_template", Value::string(read_text(src.chat_template_jinja)));
    } else if (cfg.contains("chat_template")) {
        const json& ct = cfg["chat_template"];
        if (ct.is_string()) {
            md.set("tokenizer.chat_template", Value::string(ct.get<std::string>()));
        } else if (ct.is_array()) {  // [{"name": "default", "template": …}, {"name": "tool_use", …}]
            for (const auto& e : ct) {
                if (!e.is_object() || !e.contains("template") || !e["template"].is_string()) continue;
                const std::string name = e.value("name", std::string("default"));
                md.set(name == "default" ? std::string("tokenizer.chat_template") : "tokenizer.chat_template." + name,
                       Value::string(e["template"].get<std::string>()));
            }
        }
    }
}

void hf_sampling_to_gguf(const std::filesystem::path& dir, gguf::Metadata& md) {
    using gguf::Value;
    const std::filesystem::path p = dir / "generation_config.json";
    if (!std::filesystem::exists(p)) return;
    const json g = read_json(p, "generation config");
    if (!g.is_object()) throw Error(ErrorCode::invalid_file, path_to_utf8(p) + ": not a JSON object");
    auto number = [&](const char* key) -> std::optional<double> {
        if (!g.contains(key) || g[key].is_null()) return std::nullopt;
        if (!g[key].is_number()) throw Error(ErrorCode::invalid_file, path_to_utf8(p) + ": " + key + " is not a number");
        return g[key].get<double>();
    };
    const bool sample = !g.contains("do_sample") || !g["do_sample"].is_boolean() || g["do_sample"].get<bool>();
    if (!sample) md.set("general.sampling.temp", Value::f32(0.f));
    else if (auto t = number("temperature")) md.set("general.sampling.temp", Value::f32(float(*t)));
    if (auto k = number("top_k")) md.set("general.sampling.top_k", Value::i32(std::int32_t(*k)));
    if (auto v = number("top_p")) md.set("general.sampling.top_p", Value::f32(float(*v)));
}

SamplingDefaults sampling_defaults(const gguf::Metadata& md) {
    // Advice, not structure: any number type is read (some converters write top_k as a float), anything else is
    // skipped rather than refusing the model.
    auto number = [&](const char* key) -> std::optional<double> {
        const gguf::Value* v = md.find(key);
        if (!v || (!v->is_integer() && !v->is_float())) return std::nullopt;
        return v->as_f64();
    };
    SamplingDefaults d;
    if (auto t = number("general.sampling.temp"); t && *t >= 0) d.temperature = float(*t);
    if (auto v = number("general.sampling.top_p"); v && *v > 0 && *v <= 1) d.top_p = float(*v);
    if (auto k = number("general.sampling.top_k"); k && *k >= 0 && *k <= (1 << 20)) d.top_k = int(*k);
    return d;
}

TokenizerSummary tokenizer_summary(const gguf::Metadata& md) {
    TokenizerSummary s;
    if (auto m = md.opt_string("tokenizer.ggml.model")) s.present = true, s.model = std::string(*m);
    if (auto p = md.opt_string("tokenizer.ggml.pre")) s.pre = std::string(*p);
    std::span<const std::string_view> toks;
    if (const auto* v = md.find("tokenizer.ggml.tokens"); v && v->is_array()) {
        s.present = true;
        s.vocab_size = v->array_size();
        if (v->array_type() == gguf::ValueType::string) toks = v->as_strings();
    }
    if (const auto* v = md.find("tokenizer.ggml.merges"); v && v->is_array()) s.merges = v->array_size();
    auto id = [&](const char* key) -> std::optional<std::int64_t> {
        if (const auto* v = md.find(key); v && v->is_integer()) return v->as_i64();
        return std::nullopt;
    };
    s.bos = id("tokenizer.ggml.bos_token_id");
    s.eos = id("tokenizer.ggml.eos_token_id");
    s.pad = id("tokenizer.ggml.padding_token_id");
    if (s.bos && *s.bos >= 0 && static_cast<std::uint64_t>(*s.bos) < toks.size()) s.bos_text = std::string(toks[*s.bos]);
    if (s.eos && *s.eos >= 0 && static_cast<std::uint64_t>(*s.eos) < toks.size()) s.eos_text = std::string(toks[*s.eos]);
    if (const auto* v = md.find("tokenizer.ggml.add_bos_token"); v && v->type() == gguf::ValueType::boolean) s.add_bos = v->as_bool();
    if (auto t = md.opt_string("tokenizer.chat_template")) s.chat_template = true, s.chat_template_chars = t->size();
    return s;
}

TokenizerSummary tokenizer_summary_hf(const std::filesystem::path& dir) {
    TokenizerSummary s;
    const auto src = hf_tokenizer_source(dir);
    if (!std::filesystem::exists(src.tokenizer_json)) return s;
    const json tok = read_json(src.tokenizer_json, "tokenizer.json");
    const json cfg = src.tokenizer_config.empty() ? json::object() : read_json(src.tokenizer_config, "tokenizer_config.json");
    s.present = true;
    if (tok.contains("model") && tok["model"].is_object()) {
        const json& m = tok["model"];
        s.model = m.value("type", std::string());
        if (m.contains("vocab") && m["vocab"].is_object()) s.vocab_size = m["vocab"].size();
        if (m.contains("merges") && m["merges"].is_array()) s.merges = m["merges"].size();
    }
    std::map<std::string, std::int64_t> by_text;
    if (tok.contains("added_tokens") && tok["added_tokens"].is_array()) {
        s.added_tokens = tok["added_tokens"].size();
        for (const auto& a : tok["added_tokens"])
            if (a.is_object() && a.contains("id") && a["id"].is_number_integer())
                by_text[a.value("content", std::string())] = a["id"].get<std::int64_t>();
    }
    auto lookup = [&](const char* key, std::string* text) -> std::optional<std::int64_t> {
        auto name = token_name(cfg, key);
        if (!name) return std::nullopt;
        if (text) *text = *name;
        if (auto it = by_text.find(*name); it != by_text.end()) return it->second;
        return std::nullopt;
    };
    s.bos = lookup("bos_token", &s.bos_text);
    s.eos = lookup("eos_token", &s.eos_text);
    s.pad = lookup("pad_token", nullptr);
    if (cfg.contains("add_bos_token") && cfg["add_bos_token"].is_boolean()) s.add_bos = cfg["add_bos_token"].get<bool>();
    if (!src.chat_template_jinja.empty()) {
        s.chat_template = true;
        s.chat_template_chars = std::filesystem::file_size(src.chat_template_jinja);
    } else if (cfg.contains("chat_template") && (cfg["chat_template"].is_string() || cfg["chat_template"].is_array())) {
        s.chat_template = true;
        if (cfg["chat_template"].is_string()) s.chat_template_chars = cfg["chat_template"].get_ref<const std::string&>().size();
    }
    return s;
}

nlohmann::json tokenizer_summary_json(const TokenizerSummary& s) {
    json j = {{"present", s.present}};
    if (!s.present) return j;
    j["model"] = s.model;
    if (!s.pre.empty()) j["pre"] = s.pre;
    j["vocab_size"] = s.vocab_size;
    j["merges"] = s.merges;
    if (s.added_tokens) j["added_tokens"] = s.added_tokens;
    if (s.bos) j["bos_token_id"] = *s.bos;
    if (s.eos) j["eos_token_id"] = *s.eos;
    if (s.pad) j["padding_token_id"] = *s.pad;
    if (!s.bos_text.empty()) j["bos_token"] = s.bos_text;
    if (!s.eos_text.empty()) j["eos_token"] = s.eos_text;
    if (s.add_bos) j["add_bos_token"] = *s.add_bos;
    j["chat_template"] = s.chat_template;
    if (s.chat_template) j["chat_template_chars"] = s.chat_template_chars;
    return j;
}

}  // namespace ft::model
