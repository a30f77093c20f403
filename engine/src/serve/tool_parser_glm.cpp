// GLM-4.5 / 4.6 / 4.7: <think>…</think> reasoning, then per call
//   <tool_call>NAME\n<arg_key>K</arg_key>\n<arg_value>V</arg_value>\n…</tool_call>
// The template writes string values bare and others as JSON; values are typed by the tool's schema
// (tool_schema.h), a declared string streams as it arrives, any other waits for its </arg_value>.
#include "serve/tool_parser_common.h"
#include "serve/tool_parser_formats.h"

namespace ft::serve {

namespace {

constexpr std::string_view kOpen = "<tool_call>";
constexpr std::string_view kClose = "</tool_call>";
constexpr std::string_view kKey = "<arg_key>";
constexpr std::string_view kKeyEnd = "</arg_key>";
constexpr std::string_view kValue = "<arg_value>";
constexpr std::string_view kValueEnd = "</arg_value>";
constexpr std::size_t kMaxName = 256;

std::string trimmed(std::string_view s) {
    while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
    while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
    return std::string(s);
}

bool name_ok(std::string_view n) {
    return !n.empty() && n.size() <= kMaxName && n.find_first_of("<>\"\\ \t\r\n") == std::string_view::npos;
}

class GlmParser final : public ParserBase {
public:
    explicit GlmParser(const ToolParserOptions& o) : ParserBase(o, true) {}
    ToolFormat format() const override { return ToolFormat::glm4_moe; }

private:
    enum class S { content, name, params, key, value_open, value_stream, value_buf, skip };

    void fail(const std::string& why) {
        call_error(why);
        s_ = S::skip;
    }

    bool body_step() override {
        switch (s_) {
            case S::content:
                if (buf_.empty()) return false;
                if (!opt_.tools) {
                    text_until(content_, {});
                    return false;
                }
                if (text_until(content_, {kOpen}) != 0) return false;
                name_.clear();
                s_ = S::name;
                return true;
            case S::name: {
                int which = -1;
                const bool found = collect_until(name_, {"\n", kKey, kClose}, &which);
                const std::string n = trimmed(name_);
                if ((found && !name_ok(n)) || (!found && name_.size() > kMaxName)) {
                    static const std::string_view tags[] = {"\n", kKey, kClose};
                    as_content(std::string(kOpen) + name_ + (found ? std::string(tags[which]) : std::string()));
                    s_ = S::content;
                    return true;
                }
                if (!found) return false;
                call_begin(n);
                args_.open(*this);
                if (which == 2) {
                    args_.close();
                    call_end();
                    s_ = S::content;
                } else {
                    key_.clear();
                    s_ = which == 1 ? S::key : S::params;
                }
                return true;
            }
            case S::params: {
                const int r = expect({kKey, kClose});
                if (r == -2) return false;
                if (r == 0) {
                    key_.clear();
                    s_ = S::key;
                } else if (r == 1) {
                    args_.close();
                    call_end();
                    s_ = S::content;
                } else {
                    fail("expected <arg_key> or </tool_call>");
                }
                return true;
            }
            case S::key: {
                const bool found = collect_until(key_, {kKeyEnd});
                const std::string k = trimmed(key_);
                if ((found && !name_ok(k)) || (!found && key_.size() > kMaxName)) {
                    fail("an <arg_key> without a valid name");
                    return true;
                }
                if (!found) return false;
                types_ = schemas_.types(call_name(), k);
                args_.key(k);
                s_ = S::value_open;
                return true;
            }
            case S::value_open: {
                const int r = expect({kValue});
                if (r == -2) return false;
                if (r == -1) {
                    fail("expected <arg_value> after </arg_key>");
                    return true;
                }
                value_.clear();
                if (param_types_string_only(types_)) {
                    args_.string_begin();
                    s_ = S::value_stream;
                } else {
                    s_ = S::value_buf;
                }
                return true;
            }
            case S::value_stream: {
                const std::size_t at = buf_.find(kValueEnd);
                if (at != std::string::npos) {
                    args_.string_chunk(std::string_view(buf_).substr(0, at));
                    args_.string_end();
                    buf_.erase(0, at + kValueEnd.size());
                    s_ = S::params;
                    return true;
                }
                if (final_) return false;
                const std::size_t safe =
                    buf_.size() - std::max(tag_partial_suffix(buf_, {kValueEnd}), utf8_incomplete_tail(buf_));
                args_.string_chunk(std::string_view(buf_).substr(0, safe));
                buf_.erase(0, safe);
                return false;
            }
            case S::value_buf:
                if (!collect_until(value_, {kValueEnd})) return false;
                args_.value(param_value_to_json(value_, types_));
                s_ = S::params;
                return true;
            case S::skip: {
                std::string dropped;
                if (!collect_until(dropped, {kClose})) return false;
                s_ = S::content;
                return true;
            }
        }
        return false;
    }

    void body_end() override {
        switch (s_) {
            case S::content: case S::skip: break;
            case S::name: as_content(std::string(kOpen) + name_); break;
            default: call_error("the output ended inside the tool call"); break;
        }
    }

    void body_reset() override { s_ = S::content; }

    S s_ = S::content;
    std::string name_, key_, value_;
    ParamTypes types_ = 0;
    XmlArgs args_;
};

}  // namespace

std::unique_ptr<ToolParser> make_glm_parser(const ToolParserOptions& options) {
    return std::make_unique<GlmParser>(options);
}

}  // namespace ft::serve
