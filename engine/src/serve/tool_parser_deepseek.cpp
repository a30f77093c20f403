// DeepSeek-V3 / R1 / V3.1: <think>…</think> reasoning, then a section of calls
//   <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME\n```json\n{…}\n```<｜tool▁call▁end｜>…
//   <｜tool▁calls▁end｜>
// or, V3.1: <｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{…}<｜tool▁call▁end｜>. Arguments stream through the JSON checker.
#include "serve/json_stream.h"
#include "serve/tool_parser_common.h"
#include "serve/tool_parser_formats.h"

namespace ft::serve {

namespace {

constexpr std::string_view kCallsBegin = "<\xef\xbd\x9ctool\xe2\x96\x81" "calls\xe2\x96\x81" "begin\xef\xbd\x9c>";
constexpr std::string_view kCallsEnd = "<\xef\xbd\x9ctool\xe2\x96\x81" "calls\xe2\x96\x81" "end\xef\xbd\x9c>";
constexpr std::string_view kCallBegin = "<\xef\xbd\x9ctool\xe2\x96\x81" "call\xe2\x96\x81" "begin\xef\xbd\x9c>";
constexpr std::string_view kCallEnd = "<\xef\xbd\x9ctool\xe2\x96\x81" "call\xe2\x96\x81" "end\xef\xbd\x9c>";
constexpr std::string_view kSep = "<\xef\xbd\x9ctool\xe2\x96\x81" "sep\xef\xbd\x9c>";
constexpr std::size_t kMaxName = 256;

std::string trimmed(std::string_view s) {
    while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
    while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
    return std::string(s);
}

bool name_ok(std::string_view n) {
    return !n.empty() && n.size() <= kMaxName && n.find_first_of("<>{}`\"\\ \t\r\n") == std::string_view::npos;
}

class DeepSeekParser final : public ParserBase {
public:
    explicit DeepSeekParser(const ToolParserOptions& o) : ParserBase(o, true) {}
    ToolFormat format() const override { return ToolFormat::deepseek_v3; }

private:
    enum class S { content, section, head, r1_name, fence, args, after_args, skip };

    void begin(const std::string& name) {
        call_begin(name);
        checker_ = JsonStreamChecker(true);
    }

    bool body_step() override {
        switch (s_) {
            case S::content: {
                if (buf_.empty()) return false;
                if (!opt_.tools) {
                    text_until(content_, {});
                    return false;
                }
                const int t = text_until(content_, {kCallsBegin, kCallBegin});
                if (t < 0) return false;
                head_.clear();
                s_ = t == 0 ? S::section : S::head;
                return true;
            }
            case S::section: {
                const int r = expect({kCallBegin, kCallsEnd});
                if (r == -2) return false;
                if (r == 0) {
                    head_.clear();
                    s_ = S::head;
                } else {
                    s_ = S::content;  // the section ended (or text follows it)
                }
                return true;
            }
            case S::head: {
                const bool found = collect_until(head_, {kSep});
                const std::string h = trimmed(head_);
                if ((found && !name_ok(h)) || (!found && head_.size() > kMaxName)) {
                    as_content(std::string(kCallBegin) + head_ + (found ? std::string(kSep) : std::string()));
                    s_ = S::content;
                    return true;
                }
                if (!found) return false;
                name_.clear();
                if (h == "function") {
                    s_ = S::r1_name;  // V3/R1: the type, then the name after the separator
                } else {
                    begin(h);
                    s_ = S::args;
                }
                return true;
            }
            case S::r1_name: {
                if (name_.empty()) {
                    std::size_t i = 0;
                    while (i < buf_.size() && is_space(buf_[i])) ++i;
                    if (i == buf_.size() && !final_) return false;
                    if (i < buf_.size() && buf_[i] == '{') {  // V3.1 form of a tool named "function"
                        begin("function");
                        s_ = S::args;
                        return true;
                    }
                }
                const bool found = collect_until(name_, {"\n", "```"});
                const std::string n = trimmed(name_);
                if ((found && !name_ok(n)) || (!found && name_.size() > kMaxName)) {
                    as_content(std::string(kCallBegin) + "function" + std::string(kSep) + name_);
                    s_ = S::content;
                    return true;
                }
                if (!found) return false;
                begin(n);
                s_ = S::fence;
                return true;
            }
            case S::fence: {
                const int r = expect({"```json", "```"});
                if (r == -2) return false;
                s_ = S::args;  // no fence: the checker decides
                return true;
            }
            case S::args: {
                const auto st = stream_args(checker_);
                if (st == JsonStreamChecker::Status::more) return false;
                s_ = st == JsonStreamChecker::Status::done ? S::after_args : S::skip;
                return true;
            }
            case S::after_args: {
                const int r = expect({kCallEnd, "```"});
                if (r == -2) return false;
                if (r == 1) return true;  // the closing fence
                call_end();
                s_ = r == 0 ? S::section : S::skip;
                return true;
            }
            case S::skip: {
                std::string dropped;
                if (!collect_until(dropped, {kCallEnd})) return false;
                s_ = S::section;
                return true;
            }
        }
        return false;
    }

    void body_end() override {
        switch (s_) {
            case S::content: case S::section: case S::skip: break;
            case S::head: as_content(std::string(kCallBegin) + head_); break;
            case S::r1_name: as_content(std::string(kCallBegin) + "function" + std::string(kSep) + name_); break;
            case S::fence: call_error("the output ended before the arguments"); break;
            case S::args:
                if (checker_.end() == JsonStreamChecker::Status::done) call_end();
                else call_error("the output ended inside the arguments JSON");
                break;
            case S::after_args: call_end(); break;
        }
    }

    void body_reset() override { s_ = S::content; }

    S s_ = S::content;
    std::string head_, name_;
    JsonStreamChecker checker_;
};

}  // namespace

std::unique_ptr<ToolParser> make_deepseek_parser(const ToolParserOptions& options) {
    return std::make_unique<DeepSeekParser>(options);
}

}  // namespace ft::serve
