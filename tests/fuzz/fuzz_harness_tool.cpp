// Fuzz harness of the API server's tool-call and reasoning parsers (model output is untrusted input).
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "ft/error.h"
#include "fuzz_harness.h"
#include "fuzz_harness_util.h"
#include "serve/tool_parser.h"

namespace ft::fuzz {

namespace {

std::string events_text(const std::vector<serve::ToolEvent>& ev) {
    std::string s;
    for (const auto& e : ev) {
        s += static_cast<char>('0' + static_cast<int>(e.kind));
        s += std::to_string(e.index) + "|" + e.id + "|" + e.name + "|" + e.text + "\x1f";
    }
    return s;
}

void check_events(const std::vector<serve::ToolEvent>& ev) {
    int open = -1, next = 0;
    std::string args;
    for (const auto& e : ev) {
        try {
            (void)nlohmann::json(e.text).dump();
            (void)nlohmann::json(e.name).dump();
        } catch (const nlohmann::json::exception&) {
            invariant_broken("an event text is not valid UTF-8");
        }
        switch (e.kind) {
            case serve::ToolEventKind::reasoning:
            case serve::ToolEventKind::content:
                if (open >= 0) invariant_broken("text inside a tool call");
                break;
            case serve::ToolEventKind::tool_begin:
                if (open >= 0 || e.index != next || e.name.empty()) invariant_broken("tool_begin out of order");
                open = e.index;
                args.clear();
                break;
            case serve::ToolEventKind::tool_args:
                if (e.index != open) invariant_broken("tool_args outside its call");
                args += e.text;
                break;
            case serve::ToolEventKind::tool_end: {
                if (e.index != open) invariant_broken("tool_end outside its call");
                const auto j = nlohmann::json::parse(args, nullptr, false);
                if (j.is_discarded() || !j.is_object()) invariant_broken("ended call's arguments are not a JSON object");
                open = -1;
                ++next;
                break;
            }
            case serve::ToolEventKind::error:
                if (!(e.index == open || (open < 0 && e.index == next))) invariant_broken("error event out of order");
                open = -1;
                ++next;
                break;
        }
    }
    if (open >= 0) invariant_broken("a tool call left open after finish()");
}

}  // namespace

int tool_parser_one_input(const std::uint8_t* data, std::size_t size) {
    // [format][flags][split seed] then the model's text.
    if (size < 3) return 0;
    g_input = std::string_view(reinterpret_cast<const char*>(data), size);
    const auto format = static_cast<serve::ToolFormat>(data[0] % 6);
    serve::ToolParserOptions o;
    o.prompt_opened_think = data[1] & 1;
    o.reasoning = !(data[1] & 2);
    o.tools = !(data[1] & 4);
    if (data[1] & 8) o.tools_json = kFuzzTools;
    const std::string text(reinterpret_cast<const char*>(data + 3), size - 3);
    try {
        auto whole = serve::tool_parser_make(format, o);
        std::vector<serve::ToolEvent> a;
        whole->feed(text, a);
        whole->finish(a);
        check_events(a);
        // The same text in pieces of pseudo-random sizes (1..16 bytes): the same events, up to text cuts.
        auto pieces = serve::tool_parser_make(format, o);
        std::vector<serve::ToolEvent> b;
        std::uint32_t s = 0x9e3779b9u ^ data[2];
        for (std::size_t at = 0; at < text.size();) {
            s = s * 1664525u + 1013904223u;
            const std::size_t n = std::min<std::size_t>(text.size() - at, 1 + ((s >> 24) & 15));
            pieces->feed(std::string_view(text).substr(at, n), b);
            at += n;
        }
        pieces->finish(b);
        check_events(b);
        if (events_text(serve::tool_events_coalesce(a)) != events_text(serve::tool_events_coalesce(b)))
            invariant_broken("split feeding gave other events than one delta");
        g_sink = g_sink + a.size();
        return 1;
    } catch (const Error&) {
        return 0;
    } catch (const std::exception& e) {
        escaped(e);
    }
}

}  // namespace ft::fuzz
