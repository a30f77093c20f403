// Qwen2.5 / Qwen3: <think>…</think> reasoning, then
//   <tool_call>\n{"name": "NAME", "arguments": {…}}\n</tool_call>
// (one block per call). The head up to "arguments": is matched exactly so the arguments can stream through the JSON
// checker; any other shape of the block (keys in another order, arguments as a string) is buffered to its
// </tool_call> and parsed whole.
#include <nlohmann/json.hpp>

#include "serve/json_stream.h"
#include "serve/tool_parser_common.h"
#include "serve/tool_parser_formats.h"

namespace ft::serve {

namespace {

constexpr std::string_view kOpen = "<tool_call>";
constexpr std::string_view kClose = "</tool_call>";
constexpr std::size_t kMaxHead = 4096;

enum class Match { more, no, yes };

// ws* { ws* "name" ws* : ws* "STRING" ws* , ws* ("arguments"|"parameters") ws* :
Match match_head(std::string_view s, std::string& name, std::size_t& used) {
    std::size_t i = 0;
    auto ws = [&] {
        while (i < s.size() && is_space(s[i])) ++i;
    };
    auto lit = [&](std::string_view l) {
        const std::string_view rest = s.substr(i);
        if (rest.starts_with(l)) {
            i += l.size();
            return Match::yes;
        }
        return l.starts_with(rest) ? Match::more : Match::no;
    };
#define FT_STEP(m)                            \
    do {                                      \
        const Match r_ = (m);                 \
        if (r_ != Match::yes) return r_;      \
    } while (0)
    ws();
    FT_STEP(lit("{"));
    ws();
    FT_STEP(lit("\"name\""));
    ws();
    FT_STEP(lit(":"));
    ws();
    if (i == s.size()) return Match::more;
    if (s[i] != '"') return Match::no;
    std::size_t j = i + 1;
    while (j < s.size() && s[j] != '"') j += s[j] == '\\' ? 2 : 1;
    if (j >= s.size()) return Match::more;
    const nlohmann::json n = nlohmann::json::parse(s.substr(i, j + 1 - i), nullptr, false);
    if (n.is_discarded() || !n.is_string() || n.get<std::string>().empty()) return Match::no;
    name = n.get<std::string>();
    i = j + 1;
    ws();
    FT_STEP(lit(","));
    ws();
    if (i == s.size()) return Match::more;
    const Match a = lit("\"arguments\"");
    if (a == Match::more) return Match::more;
    if (a == Match::no) FT_STEP(lit("\"parameters\""));
    ws();
    FT_STEP(lit(":"));
#undef FT_STEP
    ws();
    if (i == s.size()) return Match::more;
    if (s[i] != '{') return Match::no;  // arguments as a string (or worse): parse the whole block at its end
    used = i;
    return Match::yes;
}

class Qwen3Parser final : public ParserBase {
public:
    explicit Qwen3Parser(const ToolParserOptions& o) : ParserBase(o, true) {}
    ToolFormat format() const override { return ToolFormat::qwen3; }

private:
    enum class S { content, head, args, tail, close, skip, buffered };

    bool body_step() override {
        switch (s_) {
            case S::content: {
                if (buf_.empty()) return false;
                if (!opt_.tools) {
                    text_until(content_, {});
                    return false;
                }
                if (text_until(content_, {kOpen}) == 0) {
                    s_ = S::head;
                    return true;
                }
                return false;
            }
            case S::head: {
                std::string name;
                std::size_t used = 0;
                const Match m = buf_.size() > kMaxHead ? Match::no : match_head(buf_, name, used);
                if (m == Match::more) return false;
                if (m == Match::no) {
                    body_.clear();
                    s_ = S::buffered;
                    return true;
                }
                buf_.erase(0, used);
                call_begin(std::move(name));
                checker_ = JsonStreamChecker(true);
                s_ = S::args;
                return true;
            }
            case S::args: {
                const auto st = stream_args(checker_);
                if (st == JsonStreamChecker::Status::more) return false;
                s_ = st == JsonStreamChecker::Status::done ? S::tail : S::skip;
                return true;
            }
            case S::tail: {
                std::size_t i = 0;
                while (i < buf_.size() && is_space(buf_[i])) ++i;
                if (i == buf_.size()) {
                    buf_.clear();
                    return false;
                }
                if (buf_[i] == '}') {
                    buf_.erase(0, i + 1);
                    s_ = S::close;
                } else {
                    call_end();  // the arguments were complete; ignore the rest of the block
                    s_ = S::skip;
                }
                return true;
            }
            case S::close: {
                const int r = expect({kClose});
                if (r == -2) return false;
                call_end();
                s_ = r == 0 ? S::content : S::skip;
                return true;
            }
            case S::skip: {
                std::string dropped;
                if (collect_until(dropped, {kClose})) {
                    s_ = S::content;
                    return true;
                }
                return false;
            }
            case S::buffered: {
                if (!collect_until(body_, {kClose})) return false;
                finish_buffered(true);
                s_ = S::content;
                return true;
            }
        }
        return false;
    }

    // A block in some other shape: a call if it is a JSON object with a name and object arguments, else content.
    void finish_buffered(bool closed) {
        using nlohmann::json;
        const json j = json::parse(body_, nullptr, false);
        if (!j.is_discarded() && j.is_object() && j.contains("name") && j["name"].is_string() &&
            !j["name"].get<std::string>().empty()) {
            json args = json::object();
            for (const char* key : {"arguments", "parameters"})
                if (j.contains(key)) args = j[key];
            if (args.is_string()) args = json::parse(args.get<std::string>(), nullptr, false);
            if (args.is_object()) {
                call_begin(j["name"].get<std::string>());
                call_args(args.dump(-1, ' ', false, json::error_handler_t::replace));
                call_end();
                return;
            }
        }
        as_content(std::string(kOpen) + body_ + (closed ? std::string(kClose) : std::string()));
    }

    void body_end() override {
        switch (s_) {
            case S::content: break;
            case S::head: as_content(std::string(kOpen) + buf_); break;
            case S::args:
                if (checker_.end() == JsonStreamChecker::Status::done) call_end();
                else call_error("the output ended inside the arguments JSON");
                break;
            case S::tail:
            case S::close: call_end(); break;
            case S::skip: break;
            case S::buffered: finish_buffered(false); break;
        }
    }

    void body_reset() override {
        s_ = S::content;
        body_.clear();
    }

    S s_ = S::content;
    std::string body_;
    JsonStreamChecker checker_;
};

}  // namespace

std::unique_ptr<ToolParser> make_qwen3_parser(const ToolParserOptions& options) {
    return std::make_unique<Qwen3Parser>(options);
}

}  // namespace ft::serve
