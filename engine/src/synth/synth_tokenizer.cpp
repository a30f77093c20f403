#include "synth/synth_tokenizer.h"

#include <fstream>
#include <map>

#include "ft/error.h"
#include "ft/utf8.h"

namespace ft::synth {

namespace {

using nlohmann::json;

json read_json(const std::filesystem::path& p) {
    std::ifstream in(p);
    if (!in) throw Error(ErrorCode::not_found, path_to_utf8(p) + ": cannot open", "pass --vocab PATH/tokenizer.json");
    json j = json::parse(in, nullptr, false);
    if (j.is_discarded() || !j.is_object()) throw Error(ErrorCode::invalid_file, path_to_utf8(p) + ": not a JSON object");
    return j;
}

// The id of an added or vocabulary token by its text, or -1.
std::int64_t id_of(const json& tok, const std::string& text) {
    if (tok.contains("added_tokens"))
        for (const auto& a : tok["added_tokens"])
            if (a.value("content", std::string()) == text) return a.value("id", std::int64_t(-1));
    const json& v = tok["model"]["vocab"];
    return v.contains(text) ? v[text].get<std::int64_t>() : -1;
}

json model_config_of(const json& tok) {
    json c = json::object();
    if (const auto bos = id_of(tok, "<|endoftext|>"); bos >= 0) c["bos_token_id"] = bos;
    if (const auto eos = id_of(tok, "<|im_end|>"); eos >= 0) c["eos_token_id"] = eos;
    return c;
}

}  // namespace

FittedTokenizer synth_fit_tokenizer(const std::filesystem::path& src_dir, std::uint32_t n_vocab,
                                    const std::filesystem::path& work_dir) {
    const auto tj = src_dir / "tokenizer.json";
    json tok = read_json(tj);
    if (!tok.contains("model") || !tok["model"].is_object() || !tok["model"].contains("vocab") ||
        !tok["model"]["vocab"].is_object())
        throw Error(ErrorCode::invalid_file, path_to_utf8(tj) + ": missing object (model.vocab)");
    json added = tok.contains("added_tokens") && tok["added_tokens"].is_array() ? tok["added_tokens"] : json::array();
    std::int64_t max_id = -1;
    for (const auto& [text, id] : tok["model"]["vocab"].items()) max_id = std::max(max_id, id.get<std::int64_t>());
    for (const auto& a : added) max_id = std::max(max_id, a.value("id", std::int64_t(-1)));
    FittedTokenizer out;
    if (max_id < std::int64_t(n_vocab)) {
        out.dir = src_dir;
        out.model_config = model_config_of(tok);
        return out;
    }
    // Keep the first `keep` BPE ids, then the added tokens.
    const std::int64_t keep = std::int64_t(n_vocab) - std::int64_t(added.size());
    if (keep < 256)
        throw Error(ErrorCode::unsupported, path_to_utf8(tj) + ": " + std::to_string(added.size()) +
                                                " added tokens leave no room for the byte symbols in " + std::to_string(n_vocab) + " ids");
    json& vocab = tok["model"]["vocab"];
    json kept = json::object();
    for (const auto& [text, id] : vocab.items())
        if (id.get<std::int64_t>() < keep) kept[text] = id;
    if (std::int64_t(kept.size()) != keep)
        throw Error(ErrorCode::unsupported, path_to_utf8(tj) + ": the vocabulary's ids below " + std::to_string(keep) + " are not contiguous");
    json merges = json::array();
    if (tok["model"].contains("merges") && tok["model"]["merges"].is_array())
        for (const auto& m : tok["model"]["merges"]) {
            std::string a, b;
            if (m.is_string()) {
                const std::string s = m.get<std::string>();
                const auto sp = s.find(' ');
                if (sp == std::string::npos) continue;
                a = s.substr(0, sp), b = s.substr(sp + 1);
            } else if (m.is_array() && m.size() == 2) {
                a = m[0].get<std::string>(), b = m[1].get<std::string>();
            } else {
                continue;
            }
            if (kept.contains(a) && kept.contains(b) && kept.contains(a + b)) merges.push_back(m);
        }
    vocab = std::move(kept);
    tok["model"]["merges"] = std::move(merges);
    std::map<std::string, std::int64_t> remap;
    for (std::size_t k = 0; k < added.size(); ++k) {
        remap[std::to_string(added[k].value("id", std::int64_t(-1)))] = keep + std::int64_t(k);
        added[k]["id"] = keep + std::int64_t(k);
    }
    tok["added_tokens"] = added;
    std::filesystem::create_directories(work_dir);
    std::ofstream(work_dir / "tokenizer.json") << tok.dump();
    if (std::filesystem::exists(src_dir / "tokenizer_config.json")) {
        json cfg = read_json(src_dir / "tokenizer_config.json");
        if (cfg.contains("added_tokens_decoder") && cfg["added_tokens_decoder"].is_object()) {
            json dec = json::object();
            for (const auto& [old_id, v] : cfg["added_tokens_decoder"].items())
                if (auto it = remap.find(old_id); it != remap.end()) dec[std::to_string(it->second)] = v;
            cfg["added_tokens_decoder"] = dec;
        }
        std::ofstream(work_dir / "tokenizer_config.json") << cfg.dump(2);
    }
    out.dir = work_dir;
    out.model_config = model_config_of(tok);
    out.cut = true;
    return out;
}

}  // namespace ft::synth
