// Loading a Hugging Face tokenizer.json (+ tokenizer_config.json).
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "ft/error.h"
#include "tokenizer/tokenizer_impl.h"
#include "ft/utf8.h"

namespace ft {

namespace {

using json = nlohmann::json;

json read_json(const std::filesystem::path& path) {
    std::ifstream f(path, std::ios::binary);
    if (!f) throw Error(ErrorCode::not_found, path_to_utf8(path) + ": cannot open the file");
    try {
        return json::parse(f);
    } catch (const json::exception& e) {
        throw Error(ErrorCode::invalid_file, path_to_utf8(path) + ": not valid JSON: " + e.what(),
                    "the file is damaged; download it again");
    }
}

[[noreturn]] void bad(const std::string& src, const std::string& field, const std::string& what) {
    throw Error(ErrorCode::invalid_file, src + ": " + what + " (" + field + ")",
                "the tokenizer.json is damaged or not a Hugging Face tokenizers file");
}

[[noreturn]] void unsupported(const std::string& src, const std::string& field, const std::string& what) {
    throw Error(ErrorCode::unsupported, src + ": " + what + " (" + field + ")",
                "this tokenizer component is not implemented yet; use the model's GGUF file if there is one");
}

std::string str_field(const json& j, const char* key) {
    auto it = j.find(key);
    return (it != j.end() && it->is_string()) ? it->get<std::string>() : std::string();
}

// tokenizer_config.json names a token either as a string or as {"content": "..."}.
std::string token_name(const json& cfg, const char* key) {
    auto it = cfg.find(key);
    if (it == cfg.end()) return {};
    if (it->is_string()) return it->get<std::string>();
    if (it->is_object()) return str_field(*it, "content");
    return {};
}

void add_normalizer(Tokenizer::Impl& m, const json& n, const std::string& src) {
    if (n.is_null()) return;
    const std::string type = str_field(n, "type");
    if (type == "Sequence") {
        for (const json& sub : n.value("normalizers", json::array())) add_normalizer(m, sub, src);
    } else if (type == "NFC") {
        m.normalizer.nfc = true;
    } else if (type == "Prepend") {
        m.normalizer.prepend = str_field(n, "prepend");
    } else if (type == "Replace") {
        const json& pat = n.value("pattern", json::object());
        if (!pat.contains("String")) unsupported(src, "normalizer.Replace.pattern", "only String patterns are supported");
        m.normalizer.replace.emplace_back(pat["String"].get<std::string>(), str_field(n, "content"));
    } else {
        unsupported(src, "normalizer", "normalizer type \"" + type + "\" is not supported");
    }
}

std::string regex_escape(std::string_view s) {
    std::string out;
    for (char c : s) {
        if (std::string_view("\\^$.|?*+()[]{}").find(c) != std::string_view::npos) out += '\\';
        out += c;
    }
    return out;
}

void add_pre(Tokenizer::Impl& m, const json& p, const std::string& src, bool& byte_level) {
    if (p.is_null()) return;
    const std::string type = str_field(p, "type");
    if (type == "Sequence") {
        for (const json& sub : p.value("pretokenizers", json::array())) add_pre(m, sub, src, byte_level);
    } else if (type == "Split") {
        const json& pat = p.value("pattern", json::object());
        std::string rx;
        if (pat.contains("Regex")) rx = pat["Regex"].get<std::string>();
        else if (pat.contains("String")) rx = regex_escape(pat["String"].get<std::string>());
        else bad(src, "pre_tokenizer.Split.pattern", "neither Regex nor String");
        if (p.value("invert", false)) unsupported(src, "pre_tokenizer.Split.invert", "inverted splits are not supported");
        const std::string behavior = str_field(p, "behavior");
        tok::PreStep step;
        if (behavior == "Isolated") step.kind = tok::PreStep::Kind::split_isolated;
        else if (behavior == "Removed") step.kind = tok::PreStep::Kind::split_removed;
        else unsupported(src, "pre_tokenizer.Split.behavior", "split behaviour \"" + behavior + "\" is not supported");
        step.regex = std::make_shared<tok::Regex>(rx, src + " (pre_tokenizer.Split)");
        m.pre.push_back(std::move(step));
    } else if (type == "ByteLevel") {
        byte_level = true;
        if (p.value("add_prefix_space", false))
            unsupported(src, "pre_tokenizer.ByteLevel.add_prefix_space", "add_prefix_space = true is not supported");
        if (p.value("use_regex", true)) {
            tok::PreStep step;
            step.regex = std::make_shared<tok::Regex>(tok::kPatternGpt2, "GPT-2 pattern");
            m.pre.push_back(std::move(step));
        }
    } else if (type == "Digits") {
        tok::PreStep step;
        step.kind = tok::PreStep::Kind::digits;
        step.individual_digits = p.value("individual_digits", false);
        m.pre.push_back(std::move(step));
    } else {
        unsupported(src, "pre_tokenizer", "pre-tokenizer type \"" + type + "\" is not supported");
    }
}

}  // namespace

// The loader proper; from_hf() turns the JSON library's type errors (a field of the wrong type) into ft::Error.
static Tokenizer from_hf_unchecked(const std::filesystem::path& tokenizer_json,
                                   const std::filesystem::path& tokenizer_config) {
    const std::string src = path_to_utf8(tokenizer_json);
    const json j = read_json(tokenizer_json);
    if (!j.is_object() || !j.contains("model") || !j["model"].is_object())
        bad(src, "model", "no tokenizer model");
    auto m = std::make_shared<Tokenizer::Impl>();
    m->pre_name = "hf";
    const json& model = j["model"];
    const std::string mtype = str_field(model, "type");
    if (mtype != "BPE" && !(mtype.empty() && model.contains("merges")))
        unsupported(src, "model.type", "tokenizer model \"" + mtype + "\" is not supported (BPE only)");
    if (!str_field(model, "continuing_subword_prefix").empty() || !str_field(model, "end_of_word_suffix").empty())
        unsupported(src, "model.continuing_subword_prefix", "subword prefixes/suffixes are not supported");
    if (!model.contains("vocab") || !model["vocab"].is_object()) bad(src, "model.vocab", "missing or not an object");

    // Vocabulary: ids may have gaps; the added tokens may extend it.
    std::int64_t max_id = -1;
    for (const auto& [tok, id] : model["vocab"].items()) {
        if (!id.is_number_integer() || id.get<std::int64_t>() < 0 || id.get<std::int64_t>() > (1 << 24))
            bad(src, "model.vocab", "token \"" + tok + "\" has no valid id");
        max_id = std::max(max_id, id.get<std::int64_t>());
    }
    const json added = j.value("added_tokens", json::array());
    for (const json& a : added) {
        if (!a.contains("id") || !a["id"].is_number_integer() || a["id"].get<std::int64_t>() < 0 ||
            a["id"].get<std::int64_t>() > (1 << 24) || !a.contains("content") || !a["content"].is_string())
            bad(src, "added_tokens", "an entry has no valid id/content");
        max_id = std::max(max_id, a["id"].get<std::int64_t>());
    }
    const auto n = static_cast<std::size_t>(max_id + 1);
    m->tokens.assign(n, {});
    m->kinds.assign(n, TokenKind::unused);
    m->scores.assign(n, 0.0f);
    m->token_ids.reserve(n);
    for (const auto& [tok, id] : model["vocab"].items()) {
        const auto i = static_cast<std::size_t>(id.get<std::int64_t>());
        m->tokens[i] = tok;
        m->kinds[i] = TokenKind::normal;
        m->token_ids.emplace(tok, static_cast<std::int32_t>(i));
    }
    for (const json& a : added) {
        const auto i = static_cast<std::size_t>(a["id"].get<std::int64_t>());
        const std::string content = a["content"].get<std::string>();
        if (a.value("single_word", false))
            unsupported(src, "added_tokens", "single_word on \"" + content + "\" is not supported");
        const std::uint8_t strip = (a.value("lstrip", false) ? 1 : 0) | (a.value("rstrip", false) ? 2 : 0);
        if (strip) m->added_strip[static_cast<std::int32_t>(i)] = strip;
        m->tokens[i] = content;
        m->kinds[i] = a.value("special", false) ? TokenKind::control : TokenKind::user_defined;
        m->token_ids.emplace(content, static_cast<std::int32_t>(i));
        m->added.insert(content, static_cast<std::int32_t>(i));
        m->has_added = true;
    }

    // Merges: "a b" strings or ["a", "b"] pairs, in rank order.
    const json merges = model.value("merges", json::array());
    m->merges.reserve(merges.size() * 2);
    std::int32_t rank = 0;
    for (const json& e : merges) {
        std::string a, b;
        if (e.is_string()) {
            const std::string s = e.get<std::string>();
            const auto sp = s.find(' ', 1);
            if (sp == std::string::npos) bad(src, "model.merges", "merge \"" + s + "\" has no space");
            a = s.substr(0, sp);
            b = s.substr(sp + 1);
        } else if (e.is_array() && e.size() == 2 && e[0].is_string() && e[1].is_string()) {
            a = e[0].get<std::string>();
            b = e[1].get<std::string>();
        } else {
            bad(src, "model.merges", "entry " + std::to_string(rank) + " is neither \"a b\" nor [a, b]");
        }
        const std::int32_t ia = m->id_of(a), ib = m->id_of(b), ir = m->id_of(a + b);
        if (ia < 0 || ib < 0 || ir < 0)
            bad(src, "model.merges", "merge " + std::to_string(rank) + " (\"" + a + "\" \"" + b + "\") uses a token not in the vocabulary");
        m->merges.emplace((static_cast<std::uint64_t>(static_cast<std::uint32_t>(ia)) << 32) | static_cast<std::uint32_t>(ib),
                          tok::Merge{rank, ir});
        ++rank;
    }
    m->ignore_merges = model.value("ignore_merges", false);
    m->byte_fallback = model.value("byte_fallback", false);
    if (const std::string unk = str_field(model, "unk_token"); !unk.empty()) m->unk = m->id_of(unk);
    if (m->unk >= 0) m->kinds[static_cast<std::size_t>(m->unk)] = TokenKind::unknown;
    for (std::size_t i = 0; i < n; ++i) {
        const std::string& t = m->tokens[i];
        if (m->kinds[i] == TokenKind::normal && t.size() == 6 && t.starts_with("<0x") && t.back() == '>' && m->byte_fallback)
            m->kinds[i] = TokenKind::byte;
    }

    add_normalizer(*m, j.value("normalizer", json()), src);
    bool byte_level = false;
    add_pre(*m, j.value("pre_tokenizer", json()), src, byte_level);
    if (!byte_level && j.contains("decoder") && str_field(j["decoder"], "type") == "ByteLevel") byte_level = true;
    m->byte_level = byte_level;
    m->model_name = byte_level ? "bpe" : "spm";
    m->strip_leading_space = !byte_level && m->normalizer.prepend == "\xE2\x96\x81";

    // BOS from the post-processor template (llama3 prepends <|begin_of_text|>).
    if (j.contains("post_processor") && j["post_processor"].is_object()) {
        std::vector<json> procs{j["post_processor"]};
        if (str_field(procs[0], "type") == "Sequence") procs = j["post_processor"].value("processors", std::vector<json>{});
        for (const json& p : procs) {
            if (str_field(p, "type") != "TemplateProcessing") continue;
            const json single = p.value("single", json::array());
            if (!single.empty() && single[0].contains("SpecialToken")) {
                m->bos = m->id_of(str_field(single[0]["SpecialToken"], "id"));
                m->add_bos = m->bos >= 0;
            }
            if (single.size() > 1 && single.back().contains("SpecialToken")) {
                m->eos = m->id_of(str_field(single.back()["SpecialToken"], "id"));
                m->add_eos = m->eos >= 0;
            }
        }
    }
    if (!tokenizer_config.empty()) {
        const std::string csrc = path_to_utf8(tokenizer_config);
        const json cfg = read_json(tokenizer_config);
        if (!cfg.is_object()) bad(csrc, "(top level)", "not a JSON object");
        auto set_id = [&](const char* key, std::int32_t& id) {
            const std::string name = token_name(cfg, key);
            if (name.empty()) return;
            const std::int32_t v = m->id_of(name);
            if (v < 0) bad(csrc, key, "token \"" + name + "\" is not in the vocabulary");
            id = v;
        };
        set_id("bos_token", m->bos);
        set_id("eos_token", m->eos);
        set_id("pad_token", m->pad);
        set_id("unk_token", m->unk);
        if (cfg.contains("add_bos_token") && cfg["add_bos_token"].is_boolean()) m->add_bos = cfg["add_bos_token"].get<bool>();
        if (cfg.contains("add_eos_token") && cfg["add_eos_token"].is_boolean()) m->add_eos = cfg["add_eos_token"].get<bool>();
        if (cfg.contains("chat_template")) {
            const json& ct = cfg["chat_template"];
            if (ct.is_string()) {
                m->chat_template = ct.get<std::string>();
            } else if (ct.is_array()) {
                for (const json& e : ct)
                    if (e.is_object() && str_field(e, "name") == "default") m->chat_template = str_field(e, "template");
            }
        }
    }
    m->finalize(src);
    return Tokenizer(std::move(m));
}

Tokenizer Tokenizer::from_hf(const std::filesystem::path& tokenizer_json, const std::filesystem::path& tokenizer_config) {
    try {
        return from_hf_unchecked(tokenizer_json, tokenizer_config);
    } catch (const json::exception& e) {
        throw Error(ErrorCode::invalid_file, path_to_utf8(tokenizer_json) + ": a field has the wrong JSON type: " + e.what(),
                    "the tokenizer.json (or tokenizer_config.json) is damaged or not a Hugging Face tokenizers file");
    }
}

}  // namespace ft
