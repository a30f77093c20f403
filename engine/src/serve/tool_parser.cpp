// The parser factory, format detection and the plain-text parser (think blocks only).
#include "serve/tool_parser.h"

#include "serve/tool_parser_common.h"
#include "serve/tool_parser_formats.h"

namespace ft::serve {

namespace {

class PlainParser final : public ParserBase {
public:
    explicit PlainParser(const ToolParserOptions& o) : ParserBase(o, true) {}
    ToolFormat format() const override { return ToolFormat::none; }

private:
    bool body_step() override {
        if (buf_.empty()) return false;
        const std::size_t before = buf_.size();
        text_until(content_, {});
        return buf_.size() != before;
    }
    void body_end() override {}
    void body_reset() override {}
};

bool contains(std::string_view s, std::string_view what) { return s.find(what) != std::string_view::npos; }

}  // namespace

std::string_view tool_format_name(ToolFormat format) {
    switch (format) {
        case ToolFormat::none: return "none";
        case ToolFormat::qwen3: return "qwen3";
        case ToolFormat::qwen3_coder: return "qwen3_coder";
        case ToolFormat::deepseek_v3: return "deepseek_v3";
        case ToolFormat::glm4_moe: return "glm4_moe";
        case ToolFormat::harmony: return "harmony";
    }
    return "none";
}

ToolFormat tool_format_detect(std::string_view architecture, std::string_view chat_template) {
    if (contains(chat_template, "<|channel|>")) return ToolFormat::harmony;
    if (contains(chat_template, "<\xef\xbd\x9ctool\xe2\x96\x81" "call")) return ToolFormat::deepseek_v3;
    if (contains(chat_template, "<arg_key>")) return ToolFormat::glm4_moe;
    if (contains(chat_template, "<function=")) return ToolFormat::qwen3_coder;
    if (contains(chat_template, "<tool_call>")) return ToolFormat::qwen3;
    const std::string_view a = architecture;
    if (a == "qwen3_5_moe" || a == "qwen3_5" || a == "qwen3next" || a == "qwen3_next") return ToolFormat::qwen3_coder;
    if (a == "qwen3_moe" || a == "qwen3moe" || a == "qwen3" || a == "qwen2_moe" || a == "qwen2moe" || a == "qwen2")
        return ToolFormat::qwen3;
    if (a == "deepseek_v3" || a == "deepseek2" || a == "deepseek_v2") return ToolFormat::deepseek_v3;
    if (a == "glm4_moe" || a == "glm4moe") return ToolFormat::glm4_moe;
    if (a == "gpt_oss" || a == "gpt-oss") return ToolFormat::harmony;
    return ToolFormat::none;
}

std::unique_ptr<ToolParser> tool_parser_make(ToolFormat format, const ToolParserOptions& options) {
    switch (format) {
        case ToolFormat::none: return std::make_unique<PlainParser>(options);
        case ToolFormat::qwen3: return make_qwen3_parser(options);
        case ToolFormat::qwen3_coder: return make_qwen3_coder_parser(options);
        case ToolFormat::deepseek_v3: return make_deepseek_parser(options);
        case ToolFormat::glm4_moe: return make_glm_parser(options);
        case ToolFormat::harmony: return make_harmony_parser(options);
    }
    return std::make_unique<PlainParser>(options);
}

std::unique_ptr<ToolParser> tool_parser_for_model(std::string_view architecture, std::string_view chat_template,
                                                  const ToolParserOptions& options) {
    return tool_parser_make(tool_format_detect(architecture, chat_template), options);
}

bool prompt_opens_think(std::string_view prompt) {
    while (!prompt.empty() && is_space(prompt.back())) prompt.remove_suffix(1);
    return prompt.ends_with("<think>");
}

std::vector<ToolEvent> tool_events_coalesce(const std::vector<ToolEvent>& events) {
    std::vector<ToolEvent> out;
    for (const ToolEvent& e : events) {
        const bool text = e.kind == ToolEventKind::reasoning || e.kind == ToolEventKind::content ||
                          e.kind == ToolEventKind::tool_args;
        if (text && e.text.empty()) continue;
        if (text && !out.empty() && out.back().kind == e.kind && out.back().index == e.index) {
            out.back().text += e.text;
            continue;
        }
        out.push_back(e);
    }
    return out;
}

}  // namespace ft::serve
