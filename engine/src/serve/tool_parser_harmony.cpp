// gpt-oss (harmony): the output is a sequence of messages, each a header and a body,
//   <|channel|>analysis<|message|>…<|end|><|start|>assistant<|channel|>final<|message|>…<|return|>
// and a tool call is a message to a recipient,
//   <|channel|>commentary to=functions.NAME <|constrain|>json<|message|>{…}<|call|>
// (or "<|start|>assistant to=functions.NAME<|channel|>commentary json<|message|>", the template's order). The
// prompt ends with "<|start|>assistant", so the output begins inside a header. analysis is reasoning; final and
// commentary without a recipient are content.
#include "serve/json_stream.h"
#include "serve/tool_parser_common.h"
#include "serve/tool_parser_formats.h"

namespace ft::serve {

namespace {

constexpr std::string_view kStart = "<|start|>";
constexpr std::string_view kEnd = "<|end|>";
constexpr std::string_view kMessage = "<|message|>";
constexpr std::string_view kChannel = "<|channel|>";
constexpr std::string_view kConstrain = "<|constrain|>";
constexpr std::string_view kCall = "<|call|>";
constexpr std::string_view kReturn = "<|return|>";
constexpr std::size_t kMaxHeader = 512;

// The word after `key` in a header ("analysis", "functions.get_weather"), or empty.
std::string header_word(std::string_view h, std::string_view key) {
    const std::size_t at = h.rfind(key);
    if (at == std::string_view::npos) return {};
    std::size_t i = at + key.size(), j = i;
    while (j < h.size() && !is_space(h[j]) && h[j] != '<') ++j;
    return std::string(h.substr(i, j - i));
}

class HarmonyParser final : public ParserBase {
public:
    explicit HarmonyParser(const ToolParserOptions& o) : ParserBase(o, false) {}
    ToolFormat format() const override { return ToolFormat::harmony; }

private:
    enum class S { header, body, between, args, args_end, skip };

    bool body_step() override {
        switch (s_) {
            case S::header: {
                if (hdr_.empty()) {
                    // Only a header-like start is a header; anything else is plain content.
                    std::size_t i = 0;
                    while (i < buf_.size() && is_space(buf_[i])) ++i;
                    const std::string_view rest = std::string_view(buf_).substr(i);
                    bool yes = false, maybe = false;
                    for (std::string_view t : {kChannel, kStart, kConstrain, std::string_view("to="),
                                               std::string_view("assistant")}) {
                        if (rest.starts_with(t)) yes = true;
                        else if (t.starts_with(rest)) maybe = true;
                    }
                    if (!yes && maybe && !final_) return false;
                    if (!yes) {
                        body_kind(false);
                        return true;
                    }
                }
                const bool found = collect_until(hdr_, {kMessage});
                if (!found && hdr_.size() <= kMaxHeader) return false;
                if (!found || hdr_.size() > kMaxHeader) {
                    as_content(hdr_);
                    hdr_.clear();
                    body_kind(false);
                    return true;
                }
                const std::string recipient = header_word(hdr_, "to=");
                const std::string channel = header_word(hdr_, kChannel);
                if (!recipient.empty() && recipient != "assistant" && opt_.tools) {
                    std::string name = recipient;
                    if (name.starts_with("functions.")) name.erase(0, 10);
                    hdr_.clear();
                    if (!name.empty()) {
                        call_begin(name);
                        checker_ = JsonStreamChecker(true);
                        s_ = S::args;
                        return true;
                    }
                }
                if (!recipient.empty() && recipient != "assistant" && !opt_.tools) {
                    as_content(hdr_ + std::string(kMessage));
                    hdr_.clear();
                    body_kind(false);
                    return true;
                }
                hdr_.clear();
                body_kind(channel == "analysis" && opt_.reasoning);
                return true;
            }
            case S::body: {
                TextChannel& ch = reasoning_body_ ? reasoning_ : content_;
                const int t = text_until(ch, {kEnd, kCall, kReturn, kStart, kChannel});
                if (t < 0) return false;
                ch.end_block();
                hdr_.clear();
                if (t <= 2) {
                    s_ = S::between;
                } else {
                    if (t == 4) hdr_ = kChannel;
                    s_ = S::header;
                }
                return true;
            }
            case S::between: {
                const int r = expect({kStart, kChannel});
                if (r == -2) return false;
                if (r == -1) {
                    body_kind(false);  // text after a message without a new header
                    return true;
                }
                hdr_ = r == 1 ? std::string(kChannel) : std::string();
                s_ = S::header;
                return true;
            }
            case S::args: {
                const auto st = stream_args(checker_);
                if (st == JsonStreamChecker::Status::more) return false;
                s_ = st == JsonStreamChecker::Status::done ? S::args_end : S::skip;
                return true;
            }
            case S::args_end: {
                const int r = expect({kCall, kEnd, kReturn});
                if (r == -2) return false;
                call_end();
                s_ = r >= 0 ? S::between : S::skip;
                return true;
            }
            case S::skip: {
                std::string dropped;
                if (!collect_until(dropped, {kCall, kEnd, kReturn})) return false;
                s_ = S::between;
                return true;
            }
        }
        return false;
    }

    void body_kind(bool reasoning) {
        reasoning_body_ = reasoning;
        s_ = S::body;
    }

    void body_end() override {
        switch (s_) {
            case S::header: as_content(hdr_); break;
            case S::args:
                if (checker_.end() == JsonStreamChecker::Status::done) call_end();
                else call_error("the output ended inside the arguments JSON");
                break;
            case S::args_end: call_end(); break;
            default: break;
        }
    }

    void body_reset() override {
        s_ = S::header;
        hdr_.clear();
    }

    S s_ = S::header;
    bool reasoning_body_ = false;
    std::string hdr_;
    JsonStreamChecker checker_;
};

}  // namespace

std::unique_ptr<ToolParser> make_harmony_parser(const ToolParserOptions& options) {
    return std::make_unique<HarmonyParser>(options);
}

}  // namespace ft::serve
