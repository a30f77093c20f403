#include "serve/tool_parser_common.h"

#include <algorithm>

namespace ft::serve {

namespace {

// Length of the UTF-8 sequence that starts with `lead` (0: not a lead byte).
int utf8_len(unsigned char lead) {
    if (lead < 0x80) return 1;
    if (lead >= 0xc2 && lead <= 0xdf) return 2;
    if (lead >= 0xe0 && lead <= 0xef) return 3;
    if (lead >= 0xf0 && lead <= 0xf4) return 4;
    return 0;
}

// Whether s[i..i+n) is a well-formed sequence (RFC 3629), given n = utf8_len(s[i]) bytes are available.
bool utf8_valid_at(std::string_view s, std::size_t i, int n) {
    const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
    unsigned char lo = 0x80, hi = 0xbf;
    if (b(0) == 0xe0) lo = 0xa0;
    if (b(0) == 0xed) hi = 0x9f;
    if (b(0) == 0xf0) lo = 0x90;
    if (b(0) == 0xf4) hi = 0x8f;
    for (int k = 1; k < n; ++k) {
        const unsigned char c = b(static_cast<std::size_t>(k));
        if (c < (k == 1 ? lo : 0x80) || c > (k == 1 ? hi : 0xbf)) return false;
    }
    return true;
}

}  // namespace

std::size_t utf8_incomplete_tail(std::string_view s) {
    const std::size_t n = s.size();
    for (std::size_t back = 1; back <= 3 && back <= n; ++back) {
        const auto c = static_cast<unsigned char>(s[n - back]);
        if ((c & 0xc0) == 0x80) continue;  // continuation byte: look further back
        const int len = utf8_len(c);
        return len > static_cast<int>(back) ? back : 0;
    }
    return 0;
}

std::string utf8_sanitize(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    std::size_t i = 0;
    while (i < s.size()) {
        const int len = utf8_len(static_cast<unsigned char>(s[i]));
        if (len == 1) {
            out += s[i++];
            continue;
        }
        if (len > 0 && i + static_cast<std::size_t>(len) <= s.size() && utf8_valid_at(s, i, len)) {
            out.append(s.substr(i, static_cast<std::size_t>(len)));
            i += static_cast<std::size_t>(len);
            continue;
        }
        out += "\xef\xbf\xbd";
        ++i;
    }
    return out;
}

TagHit tag_find(std::string_view s, Tags tags) {
    TagHit best;
    int i = 0;
    for (std::string_view t : tags) {
        const std::size_t p = s.find(t);
        if (p != std::string_view::npos &&
            (p < best.pos || (p == best.pos && t.size() > std::data(tags)[best.tag].size()))) {
            best.pos = p;
            best.tag = i;
        }
        ++i;
    }
    return best;
}

std::size_t tag_partial_suffix(std::string_view s, Tags tags) {
    std::size_t best = 0;
    for (std::string_view t : tags) {
        const std::size_t max = std::min(s.size(), t.size() - 1);
        for (std::size_t k = max; k > best; --k)
            if (s.substr(s.size() - k) == t.substr(0, k)) {
                best = k;
                break;
            }
    }
    return best;
}

void TextChannel::put(std::string_view s, std::vector<ToolEvent>& out) {
    if (at_start_) {
        while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
        if (s.empty()) return;
        at_start_ = false;
    }
    std::size_t end = s.size();
    while (end > 0 && is_space(s[end - 1])) --end;
    if (end == 0) {
        held_ += s;
        return;
    }
    std::string text = std::move(held_);
    text += s.substr(0, end);
    held_.assign(s.substr(end));
    out.push_back({kind_, utf8_sanitize(text), -1, {}, {}});
}

ParserBase::ParserBase(const ToolParserOptions& options, bool think_blocks)
    : opt_(options), schemas_(ToolSchemas::parse(options.tools_json)), think_blocks_(think_blocks),
      phase_(initial_phase()) {}

ParserBase::Phase ParserBase::initial_phase() const {
    if (!think_blocks_ || !opt_.reasoning) return Phase::body;
    return opt_.prompt_opened_think ? Phase::reasoning : Phase::start;
}

void ParserBase::feed(std::string_view delta, std::vector<ToolEvent>& out) {
    out_ = &out;
    if (finished_) {  // the first feed after finish() starts a new message
        finished_ = false;
        calls_ = 0;
    }
    buf_.append(delta);
    while (step()) {
    }
}

void ParserBase::finish(std::vector<ToolEvent>& out) {
    out_ = &out;
    final_ = true;
    while (step()) {
    }
    if (phase_ == Phase::reasoning) {
        reasoning_.put(buf_, out);
        buf_.clear();
    }
    body_end();
    buf_.clear();
    // Reset for a new message.
    final_ = false;
    finished_ = true;
    if (in_call_) ++calls_;  // (cannot happen: body_end closes every call)
    in_call_ = false;
    call_name_.clear();
    content_.end_block();
    reasoning_.end_block();
    phase_ = initial_phase();
    body_reset();
}

bool ParserBase::step() {
    switch (phase_) {
        case Phase::start: {
            std::size_t i = 0;
            while (i < buf_.size() && is_space(buf_[i])) ++i;
            const std::string_view rest = std::string_view(buf_).substr(i);
            constexpr std::string_view open = "<think>";
            if (rest.starts_with(open)) {
                buf_.erase(0, i + open.size());
                phase_ = Phase::reasoning;
                return true;
            }
            if (!final_ && open.starts_with(rest)) return false;  // empty or a prefix of <think>
            phase_ = Phase::body;
            return true;
        }
        case Phase::reasoning:
            if (text_until(reasoning_, {"</think>"}) == 0) {
                reasoning_.end_block();
                phase_ = Phase::body;
                return true;
            }
            return false;
        case Phase::body: return body_step();
    }
    return false;
}

int ParserBase::text_until(TextChannel& ch, Tags tags) {
    const TagHit hit = tag_find(buf_, tags);
    if (hit.tag >= 0) {
        ch.put(std::string_view(buf_).substr(0, hit.pos), *out_);
        buf_.erase(0, hit.pos + std::data(tags)[hit.tag].size());
        return hit.tag;
    }
    const std::size_t keep = final_ ? 0 : std::max(tag_partial_suffix(buf_, tags), utf8_incomplete_tail(buf_));
    ch.put(std::string_view(buf_).substr(0, buf_.size() - keep), *out_);
    buf_.erase(0, buf_.size() - keep);
    return -1;
}

int ParserBase::expect(Tags tags, bool skip_space) {
    std::size_t i = 0;
    if (skip_space)
        while (i < buf_.size() && is_space(buf_[i])) ++i;
    const std::string_view rest = std::string_view(buf_).substr(i);
    int k = 0, full = -1;
    std::size_t full_len = 0;
    bool maybe = false;
    for (std::string_view t : tags) {
        if (rest.starts_with(t) && (full < 0 || t.size() > full_len)) {
            full = k;
            full_len = t.size();
        } else if (t.size() > rest.size() && t.starts_with(rest)) {
            maybe = true;  // a longer tag may still arrive ("```" now, "```json" later)
        }
        ++k;
    }
    if (maybe && !final_) return -2;
    if (full >= 0) buf_.erase(0, i + full_len);
    return full;
}

JsonStreamChecker::Status ParserBase::stream_args(JsonStreamChecker& checker) {
    std::string accepted;
    std::size_t i = 0;
    auto st = JsonStreamChecker::Status::more;
    while (i < buf_.size() && st == JsonStreamChecker::Status::more) {
        const char c = buf_[i];
        if (!checker.started() && is_space(c)) {  // whitespace before the object is not part of the args
            ++i;
            continue;
        }
        st = checker.put(c);
        if (st == JsonStreamChecker::Status::error) break;  // the offending byte stays in the buffer
        ++i;
        // Emitted only at character boundaries: every args delta is whole UTF-8.
        args_pending_ += c;
        if (!checker.mid_character()) {
            accepted += args_pending_;
            args_pending_.clear();
        }
    }
    buf_.erase(0, i);
    call_args(accepted);
    if (st == JsonStreamChecker::Status::error) {
        args_pending_.clear();
        call_error("the arguments are not valid JSON (" + checker.error() + ")");
    }
    return st;
}

bool ParserBase::collect_until(std::string& dst, Tags tags, int* which) {
    const TagHit hit = tag_find(buf_, tags);
    if (hit.tag >= 0) {
        dst.append(buf_, 0, hit.pos);
        buf_.erase(0, hit.pos + std::data(tags)[hit.tag].size());
        if (which) *which = hit.tag;
        return true;
    }
    const std::size_t keep = final_ ? 0 : tag_partial_suffix(buf_, tags);
    dst.append(buf_, 0, buf_.size() - keep);
    buf_.erase(0, buf_.size() - keep);
    return false;
}

void ParserBase::call_begin(std::string name) {
    content_.end_block();
    args_pending_.clear();
    in_call_ = true;
    call_name_ = utf8_sanitize(name);
    out_->push_back({ToolEventKind::tool_begin, {}, calls_, opt_.id_prefix + std::to_string(calls_), call_name_});
}

void ParserBase::call_args(std::string_view json_text) {
    if (!json_text.empty()) out_->push_back({ToolEventKind::tool_args, std::string(json_text), calls_, {}, {}});
}

void ParserBase::call_end() {
    out_->push_back({ToolEventKind::tool_end, {}, calls_, {}, {}});
    in_call_ = false;
    ++calls_;
}

void ParserBase::call_error(const std::string& why) {
    out_->push_back({ToolEventKind::error,
                     "tool call " + std::to_string(calls_) + " (" + call_name_ + "): " + why +
                         "; the call was dropped, ask the model to try again",
                     calls_, {}, {}});
    in_call_ = false;
    ++calls_;
}

void XmlArgs::open(ParserBase& p) {
    p_ = &p;
    any_ = false;
    emit("{");
}

void XmlArgs::key(std::string_view name) {
    std::string s = any_ ? ", \"" : "\"";
    s += json_escape_string_body(name);
    s += "\": ";
    any_ = true;
    emit(s);
}

void XmlArgs::emit(std::string_view s) { p_->call_args(s); }

}  // namespace ft::serve
