// ft::Tokenizer: added-token splitting, normalization, pre-tokenization and the model, and decoding.
#include "ft/tokenizer.h"

#include <algorithm>
#include <cstdio>
#include <fstream>

#include "ft/error.h"
#include "tokenizer/tokenizer_impl.h"
#include "tokenizer/tokenizer_unicode.h"
#include "ft/utf8.h"

namespace ft {

namespace tok {

void AddedTrie::insert(std::string_view text, std::int32_t id) {
    if (text.empty()) return;
    std::int32_t node = 0;
    for (unsigned char c : text) {
        std::int32_t nx = child(node, c);
        if (nx < 0) {
            nx = static_cast<std::int32_t>(nodes.size());
            nodes.emplace_back();
            auto& v = nodes[static_cast<std::size_t>(node)].next;
            v.insert(std::lower_bound(v.begin(), v.end(), std::pair<unsigned char, std::int32_t>{c, -1}), {c, nx});
        }
        node = nx;
    }
    first[static_cast<unsigned char>(text[0])] = true;
    // The first id wins when two entries share a text (HF added_tokens order).
    if (nodes[static_cast<std::size_t>(node)].token < 0) nodes[static_cast<std::size_t>(node)].token = id;
}

std::int32_t AddedTrie::child(std::int32_t node, unsigned char c) const {
    const auto& v = nodes[static_cast<std::size_t>(node)].next;
    auto it = std::lower_bound(v.begin(), v.end(), std::pair<unsigned char, std::int32_t>{c, -1});
    return (it != v.end() && it->first == c) ? it->second : -1;
}

}  // namespace tok

void Tokenizer::Impl::finalize(const std::string& source) {
    const auto n = tokens.size();
    if (n == 0) throw Error(ErrorCode::invalid_file, source + ": the vocabulary is empty");
    if (kinds.size() != n || (model == Model::spm_scores && scores.size() != n))
        throw Error(ErrorCode::internal, source + ": vocabulary tables of different sizes");
    auto check_id = [&](std::int32_t& id, const char* what) {
        if (id >= static_cast<std::int32_t>(n)) {
            throw Error(ErrorCode::invalid_file,
                        source + ": " + what + " token id " + std::to_string(id) + " is outside the vocabulary (" +
                            std::to_string(n) + " tokens)");
        }
    };
    check_id(bos, "BOS");
    check_id(eos, "EOS");
    check_id(pad, "padding");
    check_id(unk, "unknown");

    const auto& bl = tok::ByteLevel::get();
    byte_ids.fill(-1);
    for (int b = 0; b < 256; ++b) {
        if (byte_level) {
            byte_ids[static_cast<std::size_t>(b)] = id_of(bl.byte_to_utf8[static_cast<std::size_t>(b)]);
        } else {
            char name[8];
            std::snprintf(name, sizeof name, "<0x%02X>", b);
            byte_ids[static_cast<std::size_t>(b)] = id_of(name);
        }
    }

    piece.assign(n, {});
    for (std::size_t i = 0; i < n; ++i) {
        const std::string& t = tokens[i];
        std::string& p = piece[i];
        const TokenKind k = kinds[i];
        if (k == TokenKind::control || k == TokenKind::user_defined) {
            p = t;
        } else if (k == TokenKind::byte && t.size() == 6 && t.starts_with("<0x") && t.back() == '>') {
            p.push_back(static_cast<char>(std::stoi(t.substr(3, 2), nullptr, 16)));
        } else if (byte_level) {
            for (std::size_t j = 0; j < t.size();) {
                std::size_t len = 0;
                bool ok = false;
                const char32_t cp = tok::utf8_decode(t, j, len, ok);
                const int b = ok ? bl.cp_to_byte(cp) : -1;
                if (b >= 0) p.push_back(static_cast<char>(b));
                else p.append(t, j, len);
                j += len;
            }
        } else {
            // SentencePiece: ▁ (U+2581) stands for a space.
            for (std::size_t j = 0; j < t.size();) {
                if (t.compare(j, 3, "\xE2\x96\x81") == 0) {
                    p.push_back(' ');
                    j += 3;
                } else {
                    p.push_back(t[j++]);
                }
            }
        }
    }

    eog.clear();
    if (eos >= 0) eog.push_back(eos);
    for (const char* name : {"<|im_end|>", "<|eot_id|>", "<|eom_id|>", "<|end|>", "<|endoftext|>", "<end_of_turn>",
                             "<|return|>", "<|call|>", "<|end_of_text|>", "<｜end▁of▁sentence｜>"}) {
        const std::int32_t id = id_of(name);
        if (id >= 0 && kinds[static_cast<std::size_t>(id)] == TokenKind::control &&
            std::find(eog.begin(), eog.end(), id) == eog.end())
            eog.push_back(id);
    }
}

void Tokenizer::Impl::encode_text(std::string_view text, std::vector<std::int32_t>& out, tok::MatchScratch& scratch,
                                  tok::WordCache* cache) const {
    if (text.empty()) return;
    if (model == Model::wpm) {
        wpm_text(text, out);
        return;
    }
    std::string buf;
    std::string_view t = text;
    if (normalizer.nfc && tok::nfc_normalize(t, buf)) t = buf;
    if (!normalizer.prepend.empty() || !normalizer.replace.empty()) {
        std::string s = normalizer.prepend;
        s.append(t);
        for (const auto& [from, to] : normalizer.replace) {
            if (from.empty()) continue;
            std::string r;
            r.reserve(s.size() + s.size() / 4);
            std::size_t p = 0;
            for (std::size_t f; (f = s.find(from, p)) != std::string::npos; p = f + from.size()) {
                r.append(s, p, f - p);
                r += to;
            }
            r.append(s, p);
            s = std::move(r);
        }
        buf = std::move(s);
        t = buf;
    }
    std::vector<tok::Span> pieces;
    if (pre.empty()) pieces.push_back({0, static_cast<std::uint32_t>(t.size())});
    else tok::pre_tokenize(t, pre, pieces, scratch);
    for (const tok::Span& s : pieces) {
        const std::string_view word = t.substr(s.begin, s.end - s.begin);
        if (model == Model::spm_scores) {
            spm_word(word, out);
            continue;
        }
        if (cache) {
            auto it = cache->index.find(word);
            if (it != cache->index.end()) {
                const auto* p = cache->ids.data() + it->second.first;
                out.insert(out.end(), p, p + it->second.second);
                continue;
            }
            const std::size_t before = out.size();
            bpe_word(word, out);
            if (cache->index.size() < 100000) {
                const auto off = static_cast<std::uint32_t>(cache->ids.size());
                cache->ids.insert(cache->ids.end(), out.begin() + static_cast<long>(before), out.end());
                cache->index.emplace(std::string(word), std::pair{off, static_cast<std::uint32_t>(out.size() - before)});
            }
        } else {
            bpe_word(word, out);
        }
    }
}

namespace {

// Unicode White_Space at byte offset i (what HF's lstrip/rstrip of added tokens swallow).
bool white_at(std::string_view text, std::size_t i) {
    std::size_t len = 0;
    bool ok = false;
    const char32_t c = tok::utf8_decode(text, i, len, ok);
    return ok && ((c >= 0x09 && c <= 0x0D) || c == 0x20 || c == 0x85 || c == 0xA0 || c == 0x1680 ||
                  (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F ||
                  c == 0x3000);
}

}  // namespace

Tokenizer::Tokenizer(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}

std::vector<std::int32_t> Tokenizer::encode(std::string_view text, const EncodeOptions& options) const {
    const Impl& m = *impl_;
    std::vector<std::int32_t> out;
    out.reserve(text.size() / 3 + 4);
    if (options.add_special && m.add_bos && m.bos >= 0) out.push_back(m.bos);
    tok::MatchScratch scratch;
    tok::WordCache cache;
    auto* cache_ptr = text.size() > 1024 && m.model == Impl::Model::bpe_ranks ? &cache : nullptr;
    std::size_t seg = 0;
    if (m.has_added) {
        for (std::size_t i = 0; i < text.size();) {
            if (!m.added.first[static_cast<unsigned char>(text[i])]) {
                ++i;
                continue;
            }
            std::int32_t node = 0, best = -1;
            std::size_t best_len = 0;
            for (std::size_t j = i; j < text.size(); ++j) {
                node = m.added.child(node, static_cast<unsigned char>(text[j]));
                if (node < 0) break;
                const std::int32_t id = m.added.nodes[static_cast<std::size_t>(node)].token;
                if (id >= 0 && (options.parse_special || m.kinds[static_cast<std::size_t>(id)] != TokenKind::control)) {
                    best = id;
                    best_len = j + 1 - i;
                }
            }
            if (best < 0) {
                ++i;
                continue;
            }
            std::size_t before_end = i, after = i + best_len;
            if (!m.added_strip.empty()) {
                if (auto it = m.added_strip.find(best); it != m.added_strip.end()) {
                    if (it->second & 1)
                        while (before_end > seg) {
                            std::size_t b = before_end - 1;
                            while (b > seg && (static_cast<unsigned char>(text[b]) & 0xC0) == 0x80) --b;
                            if (!white_at(text, b)) break;
                            before_end = b;
                        }
                    if (it->second & 2)
                        while (after < text.size() && white_at(text, after))
                            after += tok::utf8_seq_len(static_cast<unsigned char>(text[after]));
                }
            }
            m.encode_text(text.substr(seg, before_end - seg), out, scratch, cache_ptr);
            out.push_back(best);
            i = std::min(after, text.size());
            seg = i;
        }
    }
    m.encode_text(text.substr(seg), out, scratch, cache_ptr);
    if (options.add_special && m.add_eos && m.eos >= 0) out.push_back(m.eos);
    return out;
}

namespace {

void check_token(const Tokenizer::Impl& m, std::int32_t id) {
    if (id < 0 || id >= static_cast<std::int32_t>(m.tokens.size()))
        throw Error(ErrorCode::invalid_argument,
                    "token id " + std::to_string(id) + " is outside the vocabulary (" + std::to_string(m.tokens.size()) +
                        " tokens)");
}

// The piece to emit for a token (empty for a hidden control token). SentencePiece drops the prefix space of the
// first shown token only (HF: Strip(1) over the whole decoded text).
std::string_view piece_for(const Tokenizer::Impl& m, std::int32_t id, bool render_special, bool& first) {
    check_token(m, id);
    if (!render_special && m.kinds[static_cast<std::size_t>(id)] == TokenKind::control) return {};
    std::string_view p = m.piece[static_cast<std::size_t>(id)];
    if (first && m.strip_leading_space && !p.empty() && p[0] == ' ' &&
        m.kinds[static_cast<std::size_t>(id)] != TokenKind::control)
        p.remove_prefix(1);
    first = false;
    return p;
}

}  // namespace

std::string Tokenizer::decode(std::span<const std::int32_t> ids, bool render_special) const {
    std::string raw;
    bool first = true;
    for (std::int32_t id : ids) raw += piece_for(*impl_, id, render_special, first);
    return tok::utf8_sanitize(raw);
}

std::string Tokenizer::token_to_bytes(std::int32_t id) const {
    check_token(*impl_, id);
    return impl_->piece[static_cast<std::size_t>(id)];
}

std::string_view Tokenizer::token_text(std::int32_t id) const {
    check_token(*impl_, id);
    return impl_->tokens[static_cast<std::size_t>(id)];
}

std::int32_t Tokenizer::find_token(std::string_view text) const { return impl_->id_of(text); }

TokenKind Tokenizer::token_kind(std::int32_t id) const {
    check_token(*impl_, id);
    return impl_->kinds[static_cast<std::size_t>(id)];
}

std::int32_t Tokenizer::vocab_size() const { return static_cast<std::int32_t>(impl_->tokens.size()); }
std::int32_t Tokenizer::bos_id() const { return impl_->bos; }
std::int32_t Tokenizer::eos_id() const { return impl_->eos; }
std::int32_t Tokenizer::pad_id() const { return impl_->pad; }
std::int32_t Tokenizer::unk_id() const { return impl_->unk; }
const std::vector<std::int32_t>& Tokenizer::eog_ids() const { return impl_->eog; }
bool Tokenizer::add_bos() const { return impl_->add_bos; }
bool Tokenizer::add_eos() const { return impl_->add_eos; }
std::string_view Tokenizer::model_name() const { return impl_->model_name; }
std::string_view Tokenizer::pre_name() const { return impl_->pre_name; }
const std::string& Tokenizer::chat_template() const { return impl_->chat_template; }
std::string Tokenizer::bos_text() const { return impl_->bos >= 0 ? impl_->tokens[static_cast<std::size_t>(impl_->bos)] : std::string(); }
std::string Tokenizer::eos_text() const { return impl_->eos >= 0 ? impl_->tokens[static_cast<std::size_t>(impl_->eos)] : std::string(); }

Tokenizer Tokenizer::load(const std::filesystem::path& source) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!fs::exists(source, ec))
        throw Error(ErrorCode::not_found, path_to_utf8(source) + ": no such file or folder",
                    "give a GGUF file, a Hugging Face model folder or a tokenizer.json");
    if (fs::is_directory(source, ec)) {
        const fs::path json = source / "tokenizer.json";
        if (!fs::exists(json, ec))
            throw Error(ErrorCode::not_found, path_to_utf8(source) + ": the folder has no tokenizer.json",
                        "give the Hugging Face model folder that holds tokenizer.json, or a GGUF file");
        const fs::path config = source / "tokenizer_config.json";
        return from_hf(json, fs::exists(config, ec) ? config : fs::path());
    }
    char magic[4] = {};
    {
        std::ifstream f(source, std::ios::binary);
        if (!f) throw Error(ErrorCode::io, path_to_utf8(source) + ": cannot open the file");
        f.read(magic, 4);
    }
    if (std::string_view(magic, 4) == "GGUF") return from_gguf(source);
    const fs::path config = source.parent_path() / "tokenizer_config.json";
    return from_hf(source, fs::exists(config, ec) ? config : fs::path());
}

StreamDecoder::StreamDecoder(Tokenizer tokenizer, bool render_special)
    : tokenizer_(std::move(tokenizer)), render_special_(render_special) {}

std::string StreamDecoder::push(std::int32_t id) {
    pending_ += piece_for(tokenizer_.impl(), id, render_special_, first_);
    const std::size_t k = tok::utf8_complete_prefix(pending_);
    std::string out = tok::utf8_sanitize(std::string_view(pending_).substr(0, k));
    pending_.erase(0, k);
    return out;
}

std::string StreamDecoder::finish() {
    std::string out = tok::utf8_sanitize(pending_);
    pending_.clear();
    return out;
}

void StreamDecoder::reset() {
    pending_.clear();
    first_ = true;
}

}  // namespace ft
