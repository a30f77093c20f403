// Qwen3-Coder / Qwen3.5 (XML calls):
//   <tool_call>\n<function=NAME>\n<parameter=P>\nVALUE\n</parameter>\n…</function>\n</tool_call>
// A value's surrounding newline pair is the template's, not the value's. Values are typed by the tool's schema
// (tool_schema.h); a value declared "string" streams as it arrives, any other waits for its </parameter>.
#include "serve/tool_parser_common.h"
#include "serve/tool_parser_formats.h"

namespace ft::serve {

namespace {

constexpr std::string_view kOpen = "<tool_call>";
constexpr std::string_view kClose = "</tool_call>";
constexpr std::string_view kFunction = "<function=";
constexpr std::string_view kFunctionEnd = "</function>";
constexpr std::string_view kParam = "<parameter=";
constexpr std::string_view kParamEnd = "</parameter>";
constexpr std::size_t kMaxName = 256;

std::string trimmed(std::string_view s) {
    while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
    while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
    return std::string(s);
}

bool name_ok(std::string_view n) {
    return !n.empty() && n.size() <= kMaxName && n.find_first_of("<>\"\\ \t\r\n") == std::string_view::npos;
}

class Qwen3CoderParser final : public ParserBase {
public:
    explicit Qwen3CoderParser(const ToolParserOptions& o) : ParserBase(o, true) {}
    ToolFormat format() const override { return ToolFormat::qwen3_coder; }

private:
    enum class S { content, open, fname, params, pname, value_lead, value_stream, value_buf, fclose, skip };

    void fail(const std::string& why) {
        call_error(why);
        s_ = S::skip;
    }

    bool body_step() override {
        switch (s_) {
            case S::content: {
                if (buf_.empty()) return false;
                if (!opt_.tools) {
                    text_until(content_, {});
                    return false;
                }
                const int t = text_until(content_, {kOpen, kFunction});
                if (t < 0) return false;
                raw_ = t == 0 ? kOpen : kFunction;
                name_.clear();
                s_ = t == 0 ? S::open : S::fname;
                return true;
            }
            case S::open: {
                const int r = expect({kFunction});
                if (r == -2) return false;
                if (r == -1) {
                    as_content(raw_);
                    s_ = S::content;
                    return true;
                }
                raw_ += "\n";
                raw_ += kFunction;
                s_ = S::fname;
                return true;
            }
            case S::fname: {
                const bool found = collect_until(name_, {">"});
                const std::string n = trimmed(name_);
                if ((found && !name_ok(n)) || (!found && name_.size() > kMaxName)) {
                    as_content(raw_ + name_ + (found ? ">" : ""));
                    s_ = S::content;
                    return true;
                }
                if (!found) return false;
                call_begin(n);
                args_.open(*this);
                s_ = S::params;
                return true;
            }
            case S::params: {
                const int r = expect({kParam, kFunctionEnd, kClose});
                if (r == -2) return false;
                if (r == 0) {
                    pname_.clear();
                    s_ = S::pname;
                } else if (r == 1) {
                    args_.close();
                    s_ = S::fclose;
                } else if (r == 2) {
                    args_.close();
                    call_end();
                    s_ = S::content;
                } else {
                    fail("expected <parameter=NAME> or </function>");
                }
                return true;
            }
            case S::pname: {
                const bool found = collect_until(pname_, {">"});
                const std::string n = trimmed(pname_);
                if ((found && !name_ok(n)) || (!found && pname_.size() > kMaxName)) {
                    fail("a <parameter=…> tag without a valid name");
                    return true;
                }
                if (!found) return false;
                types_ = schemas_.types(call_name(), n);
                args_.key(n);
                value_.clear();
                s_ = S::value_lead;
                return true;
            }
            case S::value_lead:
                if (buf_.empty() && !final_) return false;
                if (!buf_.empty() && buf_[0] == '\n') buf_.erase(0, 1);
                if (param_types_string_only(types_)) {
                    args_.string_begin();
                    s_ = S::value_stream;
                } else {
                    s_ = S::value_buf;
                }
                return true;
            case S::value_stream: {
                const std::size_t at = buf_.find(kParamEnd);
                if (at != std::string::npos) {
                    std::string_view v = std::string_view(buf_).substr(0, at);
                    if (v.ends_with('\n')) v.remove_suffix(1);
                    args_.string_chunk(v);
                    args_.string_end();
                    buf_.erase(0, at + kParamEnd.size());
                    s_ = S::params;
                    return true;
                }
                if (final_) return false;
                std::size_t safe = buf_.size() - std::max(tag_partial_suffix(buf_, {kParamEnd}),
                                                          utf8_incomplete_tail(buf_));
                if (safe > 0 && buf_[safe - 1] == '\n') --safe;  // may be the template's newline
                args_.string_chunk(std::string_view(buf_).substr(0, safe));
                buf_.erase(0, safe);
                return false;
            }
            case S::value_buf: {
                if (!collect_until(value_, {kParamEnd})) return false;
                std::string_view v = value_;
                if (v.ends_with('\n')) v.remove_suffix(1);
                args_.value(param_value_to_json(v, types_));
                s_ = S::params;
                return true;
            }
            case S::fclose: {
                const int r = expect({kClose});
                if (r == -2) return false;
                call_end();  // without </tool_call> too: a bare <function=…> block is complete at </function>
                s_ = S::content;
                return true;
            }
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
            case S::open: as_content(raw_); break;
            case S::fname: as_content(raw_ + name_); break;
            case S::fclose: call_end(); break;
            default: call_error("the output ended inside the tool call"); break;
        }
    }

    void body_reset() override { s_ = S::content; }

    S s_ = S::content;
    std::string raw_, name_, pname_, value_;
    ParamTypes types_ = 0;
    XmlArgs args_;
};

}  // namespace

std::unique_ptr<ToolParser> make_qwen3_coder_parser(const ToolParserOptions& options) {
    return std::make_unique<Qwen3CoderParser>(options);
}

}  // namespace ft::serve
