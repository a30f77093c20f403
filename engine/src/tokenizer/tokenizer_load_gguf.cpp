// Loading a tokenizer from GGUF metadata (tokenizer.ggml.*).
#include "format/gguf.h"

#include "ft/error.h"
#include "tokenizer/tokenizer_impl.h"
#include "ft/utf8.h"

namespace ft {

Tokenizer Tokenizer::from_gguf(const std::filesystem::path& gguf_file) {
    const gguf::Reader reader = gguf::Reader::open(gguf_file);
    const gguf::Metadata& md = reader.metadata();
    const std::string src = path_to_utf8(gguf_file);
    auto m = std::make_shared<Impl>();

    if (!md.contains("tokenizer.ggml.model"))
        throw Error(ErrorCode::not_found, src + ": the file has no tokenizer (tokenizer.ggml.model)",
                    "use a GGUF file converted with its vocabulary, or the model's tokenizer.json");
    const std::string kind(md.get_string("tokenizer.ggml.model"));
    if (kind == "gpt2") {
        m->model = Impl::Model::bpe_ranks;
        m->model_name = "bpe";
        m->byte_level = true;
    } else if (kind == "llama") {
        m->model = Impl::Model::spm_scores;
        m->model_name = "spm";
        m->byte_level = false;
    } else if (kind == "bert") {
        m->model = Impl::Model::wpm;
        m->model_name = "wpm";
        m->byte_level = false;
    } else {
        throw Error(ErrorCode::unsupported,
                    src + ": tokenizer model \"" + kind + "\" is not supported (tokenizer.ggml.model)",
                    "supported: gpt2 (byte-level BPE), llama (SentencePiece BPE) and bert (WordPiece)");
    }

    const auto tokens = md.get_strings("tokenizer.ggml.tokens");
    const std::size_t n = tokens.size();
    if (n == 0 || n > (1u << 24))
        throw Error(ErrorCode::invalid_file, src + ": vocabulary size " + std::to_string(n) + " is not plausible (tokenizer.ggml.tokens)");
    m->tokens.reserve(n);
    m->token_ids.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
        m->tokens.emplace_back(tokens[i]);
        m->token_ids.emplace(m->tokens.back(), static_cast<std::int32_t>(i));  // first id wins on duplicates
    }
    m->kinds.assign(n, TokenKind::normal);
    if (md.contains("tokenizer.ggml.token_type")) {
        const auto types = md.get_i32_array("tokenizer.ggml.token_type");
        if (types.size() != n)
            throw Error(ErrorCode::invalid_file, src + ": " + std::to_string(types.size()) + " token types for " +
                                                     std::to_string(n) + " tokens (tokenizer.ggml.token_type)");
        for (std::size_t i = 0; i < n; ++i) {
            if (types[i] < 1 || types[i] > 6)
                throw Error(ErrorCode::invalid_file, src + ": token " + std::to_string(i) + " has type " +
                                                         std::to_string(types[i]) + " (tokenizer.ggml.token_type)");
            m->kinds[i] = static_cast<TokenKind>(types[i]);
        }
    }
    m->scores.assign(n, 0.0f);
    if (md.contains("tokenizer.ggml.scores")) {
        auto sc = md.get_f32_array("tokenizer.ggml.scores");
        if (sc.size() != n)
            throw Error(ErrorCode::invalid_file, src + ": " + std::to_string(sc.size()) + " scores for " +
                                                     std::to_string(n) + " tokens (tokenizer.ggml.scores)");
        m->scores = std::move(sc);
    } else if (m->model == Impl::Model::spm_scores) {
        throw Error(ErrorCode::invalid_file, src + ": a llama (SentencePiece) vocabulary needs tokenizer.ggml.scores");
    }

    if (m->model == Impl::Model::bpe_ranks) {
        if (!md.contains("tokenizer.ggml.merges"))
            throw Error(ErrorCode::invalid_file, src + ": a gpt2 (BPE) vocabulary needs tokenizer.ggml.merges");
        const auto merges = md.get_strings("tokenizer.ggml.merges");
        m->merges.reserve(merges.size() * 2);
        std::string joined;
        for (std::size_t r = 0; r < merges.size(); ++r) {
            const std::string_view s = merges[r];
            const auto sp = s.find(' ', 1);
            if (sp == std::string_view::npos)
                throw Error(ErrorCode::invalid_file, src + ": merge " + std::to_string(r) + " has no space (tokenizer.ggml.merges)");
            const std::string_view a = s.substr(0, sp), b = s.substr(sp + 1);
            joined.assign(a);
            joined.append(b);
            const std::int32_t ia = m->id_of(a), ib = m->id_of(b), ir = m->id_of(joined);
            if (ia < 0 || ib < 0 || ir < 0) continue;  // llama.cpp-converted files carry a few unusable merges
            m->merges.emplace((static_cast<std::uint64_t>(static_cast<std::uint32_t>(ia)) << 32) | static_cast<std::uint32_t>(ib),
                              tok::Merge{static_cast<std::int32_t>(r), ir});
        }
        const std::string pre(md.opt_string("tokenizer.ggml.pre").value_or("default"));
        std::vector<std::string> regexes;
        bool ignore = false, nfc = false;
        if (!tok::pre_regexes_for(pre, regexes, ignore, nfc))
            throw Error(ErrorCode::unsupported, src + ": pre-tokenizer \"" + pre + "\" is not supported (tokenizer.ggml.pre)",
                        "supported: " + tok::known_pre_names());
        m->pre_name = pre;
        m->ignore_merges = ignore;
        m->normalizer.nfc = nfc;
        for (const std::string& rx : regexes) {
            tok::PreStep step;
            step.regex = std::make_shared<tok::Regex>(rx, src + " (pre-tokenizer " + pre + ")");
            m->pre.push_back(std::move(step));
        }
    } else if (m->model == Impl::Model::wpm) {
        m->pre_name = std::string(md.opt_string("tokenizer.ggml.pre").value_or("default"));
        m->strip_leading_space = true;
    } else {
        m->pre_name = std::string(md.opt_string("tokenizer.ggml.pre").value_or("default"));
        const bool prefix = md.opt_bool("tokenizer.ggml.add_space_prefix").value_or(true);
        if (prefix) m->normalizer.prepend = "\xE2\x96\x81";
        m->normalizer.replace.emplace_back(" ", "\xE2\x96\x81");
        m->strip_leading_space = prefix;
        m->byte_fallback = true;
    }

    auto opt_id = [&](const char* key) -> std::int32_t {
        const auto v = md.opt_u64(key);
        return v ? static_cast<std::int32_t>(std::min<std::uint64_t>(*v, 1u << 30)) : -1;
    };
    m->bos = opt_id("tokenizer.ggml.bos_token_id");
    m->eos = opt_id("tokenizer.ggml.eos_token_id");
    m->pad = opt_id("tokenizer.ggml.padding_token_id");
    m->unk = opt_id("tokenizer.ggml.unknown_token_id");
    m->add_bos = md.opt_bool("tokenizer.ggml.add_bos_token").value_or(m->model == Impl::Model::spm_scores);
    m->add_eos = md.opt_bool("tokenizer.ggml.add_eos_token").value_or(false);
    if (m->model == Impl::Model::wpm) {
        // BERT frames a text as [CLS] … [SEP].
        if (const std::int32_t cls = opt_id("tokenizer.ggml.cls_token_id"); cls >= 0) m->bos = cls;
        if (const std::int32_t sep = opt_id("tokenizer.ggml.seperator_token_id"); sep >= 0) m->eos = sep;
        m->add_bos = md.opt_bool("tokenizer.ggml.add_bos_token").value_or(true);
        m->add_eos = md.opt_bool("tokenizer.ggml.add_eos_token").value_or(true);
    }
    if (auto ct = md.opt_string("tokenizer.chat_template")) m->chat_template = std::string(*ct);

    for (std::size_t i = 0; i < n; ++i) {
        if (m->kinds[i] == TokenKind::control || m->kinds[i] == TokenKind::user_defined) {
            m->added.insert(m->tokens[i], static_cast<std::int32_t>(i));
            m->has_added = true;
        }
    }
    m->finalize(src);
    return Tokenizer(std::move(m));
}

}  // namespace ft
