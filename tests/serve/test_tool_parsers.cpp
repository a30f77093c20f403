// The streaming tool-call and reasoning parsers (engine/src/serve/tool_parser*.cpp) on the formats' real token
// sequences, as the models' chat templates write them (tests/../shared/testdata/chat-templates): the events of one
// delta, of every two-way split and of byte-at-a-time feeding must agree; every ended call's arguments must be one
// valid JSON object; malformed output degrades to content or an error event.
#include <nlohmann/json.hpp>

#include <QTest>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "ft/error.h"
#include "ft_test.h"
#include "serve/json_stream.h"
#include "serve/tool_parser.h"
#include "serve/tool_schema.h"

using namespace ft::serve;

namespace {

// DeepSeek's special tokens (fullwidth bar U+FF5C, lower one-eighth block U+2581).
const std::string kDsCallsBegin = "<\xef\xbd\x9ctool\xe2\x96\x81" "calls\xe2\x96\x81" "begin\xef\xbd\x9c>";
const std::string kDsCallsEnd = "<\xef\xbd\x9ctool\xe2\x96\x81" "calls\xe2\x96\x81" "end\xef\xbd\x9c>";
const std::string kDsCallBegin = "<\xef\xbd\x9ctool\xe2\x96\x81" "call\xe2\x96\x81" "begin\xef\xbd\x9c>";
const std::string kDsCallEnd = "<\xef\xbd\x9ctool\xe2\x96\x81" "call\xe2\x96\x81" "end\xef\xbd\x9c>";
const std::string kDsSep = "<\xef\xbd\x9ctool\xe2\x96\x81" "sep\xef\xbd\x9c>";

const char* kTools = R"([
  {"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object", "properties": {
      "city": {"type": "string"}, "days": {"type": "integer"}, "metric": {"type": "boolean"},
      "opts": {"type": "object"}, "code": {"type": "string"}, "ratio": {"type": ["number", "null"]}}}}},
  {"name": "write_file", "input_schema": {"type": "object", "properties": {
      "path": {"type": "string"}, "content": {"type": "string"}}}}
])";

// One line per event: R:text, C:text, B<i>:id:name, A<i>:json, E<i>, X<i>:error.
std::string render(const std::vector<ToolEvent>& events) {
    std::string s;
    for (const ToolEvent& e : events) {
        switch (e.kind) {
            case ToolEventKind::reasoning: s += "R:" + e.text; break;
            case ToolEventKind::content: s += "C:" + e.text; break;
            case ToolEventKind::tool_begin: s += "B" + std::to_string(e.index) + ":" + e.id + ":" + e.name; break;
            case ToolEventKind::tool_args: s += "A" + std::to_string(e.index) + ":" + e.text; break;
            case ToolEventKind::tool_end: s += "E" + std::to_string(e.index); break;
            case ToolEventKind::error: s += "X" + std::to_string(e.index); break;
        }
        s += "\n";
    }
    return s;
}

std::vector<ToolEvent> run_pieces(ToolFormat f, const ToolParserOptions& o, const std::vector<std::string>& pieces) {
    auto p = tool_parser_make(f, o);
    std::vector<ToolEvent> ev;
    for (const auto& piece : pieces) p->feed(piece, ev);
    p->finish(ev);
    return ev;
}

// Every invariant of the event stream: calls nest properly, indices count up, ended calls' args are JSON objects,
// every text is valid UTF-8.
void check_invariants(const std::vector<ToolEvent>& ev, const std::string& what) {
    int open = -1, next = 0;
    std::string args;
    for (const ToolEvent& e : ev) {
        QVERIFY2(nlohmann::json(e.text).dump().size() > 0, what.c_str());  // throws on invalid UTF-8
        switch (e.kind) {
            case ToolEventKind::reasoning:
            case ToolEventKind::content: QVERIFY2(open < 0, ("text inside a call: " + what).c_str()); break;
            case ToolEventKind::tool_begin:
                QVERIFY2(open < 0 && e.index == next && !e.name.empty() && !e.id.empty(), what.c_str());
                open = e.index;
                args.clear();
                break;
            case ToolEventKind::tool_args:
                QVERIFY2(e.index == open, what.c_str());
                args += e.text;
                break;
            case ToolEventKind::tool_end: {
                QVERIFY2(e.index == open, what.c_str());
                const auto j = nlohmann::json::parse(args, nullptr, false);
                QVERIFY2(!j.is_discarded() && j.is_object(), ("args not a JSON object: " + args + " in " + what).c_str());
                open = -1;
                ++next;
                break;
            }
            case ToolEventKind::error:
                QVERIFY2(e.index == open || (open < 0 && e.index == next), what.c_str());
                QVERIFY2(!e.text.empty(), what.c_str());
                open = -1;
                ++next;
                break;
        }
    }
    QVERIFY2(open < 0, ("a call left open: " + what).c_str());
}

// The case's events fed as one delta, then at every split point and byte by byte: all must agree.
std::string parse_all_splits(ToolFormat f, const ToolParserOptions& o, const std::string& text) {
    const auto whole = tool_events_coalesce(run_pieces(f, o, {text}));
    check_invariants(whole, text);
    const std::string expect = render(whole);
    for (std::size_t at = 0; at <= text.size(); ++at) {
        const auto ev = tool_events_coalesce(run_pieces(f, o, {text.substr(0, at), text.substr(at)}));
        if (render(ev) != expect) {
            qWarning("split at %zu of %s\n--- one delta:\n%s--- split:\n%s", at, text.c_str(), expect.c_str(),
                     render(ev).c_str());
            [&] { QCOMPARE(render(ev), expect); }();
            return expect;
        }
    }
    std::vector<std::string> bytes;
    for (char c : text) bytes.emplace_back(1, c);
    const auto raw = run_pieces(f, o, bytes);
    check_invariants(raw, text);
    [&] { QCOMPARE(render(tool_events_coalesce(raw)), expect); }();
    return expect;
}

ToolParserOptions opts(bool opened_think = false, std::string tools = kTools) {
    ToolParserOptions o;
    o.prompt_opened_think = opened_think;
    o.tools_json = std::move(tools);
    return o;
}

std::string slurp(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

}  // namespace

class TestToolParsers : public QObject {
    Q_OBJECT

private slots:
    void detectsTheFormatFromTemplatesAndArchitectures() {
        const std::filesystem::path dir = std::filesystem::path(FT_TESTDATA_DIR) / "chat-templates";
        if (!std::filesystem::exists(dir)) QSKIP("no shared testdata/chat-templates beside the checkout");
        const std::pair<const char*, ToolFormat> cases[] = {
            {"Qwen-Qwen3-0.6B.jinja", ToolFormat::qwen3},
            {"Qwen-Qwen2.5-7B-Instruct.jinja", ToolFormat::qwen3},
            {"Qwen3-Coder.jinja", ToolFormat::qwen3_coder},
            {"Qwen3.5-4B.jinja", ToolFormat::qwen3_coder},
            {"deepseek-ai-DeepSeek-V3.1.jinja", ToolFormat::deepseek_v3},
            {"deepseek-ai-DeepSeek-R1-Distill-Qwen-32B.jinja", ToolFormat::deepseek_v3},
            {"GLM-4.6.jinja", ToolFormat::glm4_moe},
            {"GLM-4.7-Flash.jinja", ToolFormat::glm4_moe},
            {"openai-gpt-oss-120b.jinja", ToolFormat::harmony},
            {"meta-llama-Llama-3.1-8B-Instruct.jinja", ToolFormat::none},
        };
        for (const auto& [file, format] : cases) {
            const std::string t = slurp(dir / file);
            QVERIFY2(!t.empty(), file);
            QVERIFY2(tool_format_detect("", t) == format, file);
        }
        // The template's markers win over the architecture: Qwen3-Coder is a qwen3_moe model.
        QCOMPARE(tool_format_detect("qwen3_moe", slurp(dir / "Qwen3-Coder.jinja")), ToolFormat::qwen3_coder);
    }

    void detectsByArchitectureWithoutTemplate() {
        QCOMPARE(tool_format_detect("qwen3_moe", ""), ToolFormat::qwen3);
        QCOMPARE(tool_format_detect("qwen3_5_moe", ""), ToolFormat::qwen3_coder);
        QCOMPARE(tool_format_detect("deepseek_v3", ""), ToolFormat::deepseek_v3);
        QCOMPARE(tool_format_detect("glm4_moe", ""), ToolFormat::glm4_moe);
        QCOMPARE(tool_format_detect("gpt_oss", ""), ToolFormat::harmony);
        QCOMPARE(tool_format_detect("mixtral", "{{ messages }}"), ToolFormat::none);
        QCOMPARE(tool_parser_for_model("gpt_oss", "", {})->format(), ToolFormat::harmony);
        QCOMPARE(tool_format_name(ToolFormat::glm4_moe), std::string_view("glm4_moe"));
    }

    void promptOpensThink() {
        QVERIFY(prompt_opens_think("<|im_start|>assistant\n<think>\n"));
        QVERIFY(prompt_opens_think("<\xef\xbd\x9c" "Assistant\xef\xbd\x9c><think>"));
        QVERIFY(!prompt_opens_think("<|im_start|>assistant\n<think>\n\n</think>\n\n"));
        QVERIFY(!prompt_opens_think("<|im_start|>assistant\n"));
        QVERIFY(!prompt_opens_think(""));
    }

    void badToolsAreAClearError() {
        for (const char* bad : {"{\"name\": 1}", "[1, 2]", "not json"}) {
            try {
                (void)tool_parser_make(ToolFormat::qwen3_coder, opts(false, bad));
                QFAIL(bad);
            } catch (const ft::Error& e) {
                QCOMPARE(e.code(), ft::ErrorCode::invalid_argument);
                QVERIFY(std::string(e.what()).find("tools") != std::string::npos);
            }
        }
    }

    void qwen3ThinkContentAndTwoCalls() {
        // As Qwen3's template renders an assistant turn with reasoning, content and two tool calls.
        const std::string text =
            "<think>\nThe user wants the weather.\n</think>\n\nLet me check.\n"
            "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\", \"days\": 3}}\n</tool_call>\n"
            "<tool_call>\n{\"name\": \"get_time\", \"arguments\": {}}\n</tool_call>";
        QCOMPARE(parse_all_splits(ToolFormat::qwen3, opts(), text),
                 std::string("R:The user wants the weather.\nC:Let me check.\nB0:call_0:get_weather\n"
                             "A0:{\"city\": \"Paris\", \"days\": 3}\nE0\nB1:call_1:get_time\nA1:{}\nE1\n"));
    }

    void qwen3PromptOpenedThink() {
        // The Qwen3 template ends the prompt with "<think>\n" (thinking on): the output starts as reasoning.
        QCOMPARE(parse_all_splits(ToolFormat::qwen3, opts(true), "2 + 2 is basic.\n</think>\n\nThe answer is **4**."),
                 std::string("R:2 + 2 is basic.\nC:The answer is **4**.\n"));
        // Thinking off (an empty block closed in the prompt): all content; a stray tag is content too.
        QCOMPARE(parse_all_splits(ToolFormat::qwen3, opts(false), "Hi! </think> ok"), std::string("C:Hi! </think> ok\n"));
        // Unclosed think at the end of the output: all reasoning.
        QCOMPARE(parse_all_splits(ToolFormat::qwen3, opts(false), "<think>\nstill thinking"),
                 std::string("R:still thinking\n"));
        // Reasoning off: the block passes through as content.
        ToolParserOptions o = opts();
        o.reasoning = false;
        QCOMPARE(parse_all_splits(ToolFormat::qwen3, o, "<think>x</think>y"), std::string("C:<think>x</think>y\n"));
    }

    void qwen25Call() {
        // Qwen2.5's template: no think block; the arguments in another key order are parsed whole at the end.
        QCOMPARE(parse_all_splits(ToolFormat::qwen3, opts(),
                                  "<tool_call>\n{\"arguments\": {\"q\": \"\xc3\xa9t\xc3\xa9\"}, \"name\": \"search\"}\n"
                                  "</tool_call>"),
                 std::string("B0:call_0:search\nA0:{\"q\":\"\xc3\xa9t\xc3\xa9\"}\nE0\n"));
        // Arguments as a JSON string (some fine-tunes do this).
        QCOMPARE(parse_all_splits(ToolFormat::qwen3, opts(),
                                  "<tool_call>\n{\"name\": \"f\", \"arguments\": \"{\\\"a\\\": [1, 2]}\"}\n</tool_call>"),
                 std::string("B0:call_0:f\nA0:{\"a\":[1,2]}\nE0\n"));
    }

    void qwen3Malformed() {
        // Invalid JSON after the call began: an error event, then the text after the block.
        QCOMPARE(parse_all_splits(ToolFormat::qwen3, opts(),
                                  "<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": tru}}\n</tool_call>after"),
                 std::string("B0:call_0:f\nA0:{\"a\": tru\nX0\nC:after\n"));
        // Not JSON at all, and an unclosed block: content, unchanged.
        QCOMPARE(parse_all_splits(ToolFormat::qwen3, opts(), "<tool_call>not json</tool_call>"),
                 std::string("C:<tool_call>not json</tool_call>\n"));
        QCOMPARE(parse_all_splits(ToolFormat::qwen3, opts(), "x <tool_call>\n{\"name\": \"f\", \"argu"),
                 std::string("C:x <tool_call>\n{\"name\": \"f\", \"argu\n"));
        // The output stops inside the arguments: the call is reported as failed.
        QCOMPARE(parse_all_splits(ToolFormat::qwen3, opts(), "<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": [1"),
                 std::string("B0:call_0:f\nA0:{\"a\": [1\nX0\n"));
        // No tools in the request: markup is content.
        ToolParserOptions o = opts();
        o.tools = false;
        QCOMPARE(parse_all_splits(ToolFormat::qwen3, o, "<tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n</tool_call>"),
                 std::string("C:<tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n</tool_call>\n"));
    }

    void streamsWithMinimalHoldBack() {
        auto p = tool_parser_make(ToolFormat::qwen3, opts());
        std::vector<ToolEvent> ev;
        p->feed("Hello <tool_ca", ev);
        QCOMPARE(render(ev), std::string("C:Hello\n"));  // "<tool_ca" (and the space before it) held back
        ev.clear();
        p->feed("ll>\n{\"name\": \"f\", \"arguments\": {\"text\": \"abc", ev);
        QCOMPARE(render(tool_events_coalesce(ev)), std::string("B0:call_0:f\nA0:{\"text\": \"abc\n"));
        ev.clear();
        p->feed("\xe2\x82", ev);  // half a "€": held back, never split inside a character
        QVERIFY(ev.empty());
        p->feed("\xac\"}}\n</tool_call>", ev);
        QCOMPARE(render(tool_events_coalesce(ev)), std::string("A0:\xe2\x82\xac\"}\nE0\n"));
        QCOMPARE(p->tool_calls(), 1);
        ev.clear();
        p->finish(ev);
        QVERIFY(ev.empty());
        QCOMPARE(p->tool_calls(), 1);  // still the finished message's count (finish_reason "tool_calls")
        // After finish() the parser starts a new message (indices from 0 again).
        p->feed("<tool_call>\n{\"name\": \"g\", \"arguments\": {}}</tool_call>", ev);
        QCOMPARE(render(tool_events_coalesce(ev)), std::string("B0:call_0:g\nA0:{}\nE0\n"));
    }

    void qwen3CoderTypedParameters() {
        // As Qwen3-Coder's template renders a call; values typed by the request's schemas.
        const std::string text =
            "I'll check.\n\n<tool_call>\n<function=get_weather>\n<parameter=city>\nSan Francisco\n</parameter>\n"
            "<parameter=days>\n3\n</parameter>\n<parameter=metric>\nTrue\n</parameter>\n"
            "<parameter=opts>\n{\"hourly\": false}\n</parameter>\n<parameter=code>\n42\n</parameter>\n"
            "<parameter=ratio>\n0.5\n</parameter>\n</function>\n</tool_call>";
        QCOMPARE(parse_all_splits(ToolFormat::qwen3_coder, opts(), text),
                 std::string("C:I'll check.\nB0:call_0:get_weather\nA0:{\"city\": \"San Francisco\", \"days\": 3, "
                             "\"metric\": true, \"opts\": {\"hourly\": false}, \"code\": \"42\", \"ratio\": 0.5}\nE0\n"));
        // Without schemas: JSON-looking values are JSON, the rest strings.
        QCOMPARE(parse_all_splits(ToolFormat::qwen3_coder, opts(false, ""), text),
                 std::string("C:I'll check.\nB0:call_0:get_weather\nA0:{\"city\": \"San Francisco\", \"days\": 3, "
                             "\"metric\": \"True\", \"opts\": {\"hourly\": false}, \"code\": 42, \"ratio\": 0.5}\nE0\n"));
    }

    void qwen35ThinkAndMultilineString() {
        // Qwen3.5's template: the prompt opens <think>; a multi-line string value keeps its inner newlines and quotes.
        const std::string text =
            "Need to write it.\n</think>\n\n<tool_call>\n<function=write_file>\n<parameter=path>\n/tmp/a.py\n"
            "</parameter>\n<parameter=content>\nprint(\"hi\")\n\tx = 1\n\n</parameter>\n</function>\n</tool_call>\n"
            "<tool_call>\n<function=get_time>\n</function>\n</tool_call>";
        QCOMPARE(parse_all_splits(ToolFormat::qwen3_coder, opts(true), text),
                 std::string("R:Need to write it.\nB0:call_0:write_file\nA0:{\"path\": \"/tmp/a.py\", "
                             "\"content\": \"print(\\\"hi\\\")\\n\\tx = 1\\n\"}\nE0\nB1:call_1:get_time\nA1:{}\nE1\n"));
    }

    void qwen3CoderMalformed() {
        QCOMPARE(parse_all_splits(ToolFormat::qwen3_coder, opts(), "<tool_call>\nplain words</tool_call>"),
                 std::string("C:<tool_call>\nplain words</tool_call>\n"));
        QCOMPARE(parse_all_splits(ToolFormat::qwen3_coder, opts(),
                                  "<tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\noops</tool_call>ok"),
                 std::string("B0:call_0:f\nA0:{\"a\": 1\nX0\nC:ok\n"));
        QCOMPARE(parse_all_splits(ToolFormat::qwen3_coder, opts(),
                                  "<tool_call>\n<function=write_file>\n<parameter=content>\nunfinished"),
                 std::string("B0:call_0:write_file\nA0:{\"content\": \"unfinished\nX0\n"));
        QCOMPARE(parse_all_splits(ToolFormat::qwen3_coder, opts(), "see <function=bad name\n>"),
                 std::string("C:see <function=bad name\n>\n"));
    }

    void deepseekR1Calls() {
        // DeepSeek-R1's template: the prompt ends "<｜Assistant｜><think>\n"; calls in ```json fences.
        const std::string text = "The user asks for weather.\n</think>\n\nChecking." + kDsCallsBegin + kDsCallBegin +
                                 "function" + kDsSep + "get_weather\n```json\n{\"city\": \"Paris\"}\n```" + kDsCallEnd +
                                 "\n" + kDsCallBegin + "function" + kDsSep + "get_time\n```json\n{}\n```" + kDsCallEnd +
                                 kDsCallsEnd;
        QCOMPARE(parse_all_splits(ToolFormat::deepseek_v3, opts(true), text),
                 std::string("R:The user asks for weather.\nC:Checking.\nB0:call_0:get_weather\nA0:{\"city\": \"Paris\"}\n"
                             "E0\nB1:call_1:get_time\nA1:{}\nE1\n"));
    }

    void deepseekV31Calls() {
        // DeepSeek-V3.1's template: NAME<｜tool▁sep｜>{json}; thinking off ("<think></think>" in the prompt).
        const std::string text = "Sure." + kDsCallsBegin + kDsCallBegin + "get_weather" + kDsSep +
                                 "{\"city\": \"\xe5\x8c\x97\xe4\xba\xac\", \"days\": [1, 2.5e1, -0]}" + kDsCallEnd +
                                 kDsCallBegin + "function" + kDsSep + "{\"x\": null}" + kDsCallEnd + kDsCallsEnd;
        QCOMPARE(parse_all_splits(ToolFormat::deepseek_v3, opts(), text),
                 std::string("C:Sure.\nB0:call_0:get_weather\nA0:{\"city\": \"\xe5\x8c\x97\xe4\xba\xac\", \"days\": "
                             "[1, 2.5e1, -0]}\nE0\nB1:call_1:function\nA1:{\"x\": null}\nE1\n"));
        // Invalid JSON: an error event; the next call still parses.
        const std::string bad = kDsCallsBegin + kDsCallBegin + "f" + kDsSep + "{\"a\": 01}" + kDsCallEnd + kDsCallBegin +
                                "g" + kDsSep + "{}" + kDsCallEnd + kDsCallsEnd + "done";
        QCOMPARE(parse_all_splits(ToolFormat::deepseek_v3, opts(), bad),
                 std::string("B0:call_0:f\nA0:{\"a\": 0\nX0\nB1:call_1:g\nA1:{}\nE1\nC:done\n"));
        // A call cut off before its separator: content.
        QCOMPARE(parse_all_splits(ToolFormat::deepseek_v3, opts(), "a" + kDsCallBegin + "get_wea"),
                 "C:a" + kDsCallBegin + "get_wea\n");
    }

    void glmThinkAndCalls() {
        // GLM-4.6's template: "\n<think>…</think>" then content, then calls with bare string values.
        const std::string text =
            "\n<think>Need the weather tool.</think>\nI'll check.\n<tool_call>get_weather\n<arg_key>city</arg_key>\n"
            "<arg_value>Beijing</arg_value>\n<arg_key>days</arg_key>\n<arg_value>2</arg_value>\n"
            "<arg_key>opts</arg_key>\n<arg_value>{\"hourly\": true}</arg_value>\n</tool_call>\n"
            "<tool_call>get_time\n</tool_call>";
        QCOMPARE(parse_all_splits(ToolFormat::glm4_moe, opts(), text),
                 std::string("R:Need the weather tool.\nC:I'll check.\nB0:call_0:get_weather\nA0:{\"city\": \"Beijing\", "
                             "\"days\": 2, \"opts\": {\"hourly\": true}}\nE0\nB1:call_1:get_time\nA1:{}\nE1\n"));
        // Thinking off ("<think></think>" in the prompt) and a malformed call.
        QCOMPARE(parse_all_splits(ToolFormat::glm4_moe, opts(),
                                  "<tool_call>f\n<arg_key>a</arg_key>\nno value\n</tool_call>rest"),
                 std::string("B0:call_0:f\nA0:{\"a\": \nX0\nC:rest\n"));
        QCOMPARE(parse_all_splits(ToolFormat::glm4_moe, opts(), "<tool_call>get_weather\n<arg_key>city</arg_key><arg_val"),
                 std::string("B0:call_0:get_weather\nA0:{\"city\": \nX0\n"));
    }

    void harmonyAnalysisFinal() {
        // gpt-oss: the prompt ends "<|start|>assistant"; analysis, then the final answer.
        QCOMPARE(parse_all_splits(ToolFormat::harmony, opts(),
                                  "<|channel|>analysis<|message|>User says hi. Reply briefly.<|end|>"
                                  "<|start|>assistant<|channel|>final<|message|>Hello! How can I help?<|return|>"),
                 std::string("R:User says hi. Reply briefly.\nC:Hello! How can I help?\n"));
    }

    void harmonyToolCalls() {
        // The model's order (recipient after the channel, <|constrain|>json) and the template's (recipient first).
        QCOMPARE(parse_all_splits(ToolFormat::harmony, opts(),
                                  "<|channel|>analysis<|message|>Need weather.<|end|><|start|>assistant<|channel|>"
                                  "commentary to=functions.get_weather <|constrain|>json<|message|>"
                                  "{\"location\":\"Tokyo\"}<|call|>"),
                 std::string("R:Need weather.\nB0:call_0:get_weather\nA0:{\"location\":\"Tokyo\"}\nE0\n"));
        QCOMPARE(parse_all_splits(ToolFormat::harmony, opts(),
                                  " to=functions.get_time<|channel|>commentary json<|message|>{}<|call|>"),
                 std::string("B0:call_0:get_time\nA0:{}\nE0\n"));
        // A commentary preamble without a recipient is content; invalid arguments are an error event.
        QCOMPARE(parse_all_splits(ToolFormat::harmony, opts(),
                                  "<|channel|>commentary<|message|>Let me look.<|end|><|start|>assistant<|channel|>"
                                  "commentary to=functions.f <|constrain|>json<|message|>{oops}<|call|>"),
                 std::string("C:Let me look.\nB0:call_0:f\nA0:{\nX0\n"));
        // Plain text without headers, and a header that never ends: content.
        QCOMPARE(parse_all_splits(ToolFormat::harmony, opts(), "just text"), std::string("C:just text\n"));
        QCOMPARE(parse_all_splits(ToolFormat::harmony, opts(), "<|channel|>final"), std::string("C:<|channel|>final\n"));
    }

    void plainFormatSplitsThinkOnly() {
        QCOMPARE(parse_all_splits(ToolFormat::none, opts(), "<think>a</think>b <tool_call>"),
                 std::string("R:a\nC:b <tool_call>\n"));
    }

    void invalidUtf8BecomesReplacementCharacters() {
        QCOMPARE(parse_all_splits(ToolFormat::qwen3, opts(), "a\xff" "b\xe2\x82"),
                 std::string("C:a\xef\xbf\xbd" "b\xef\xbf\xbd\xef\xbf\xbd\n"));
    }

    void jsonCheckerAgreesWithNlohmann() {
        // Differential: the incremental checker and nlohmann::json::accept on valid texts and their mutations.
        const std::vector<std::string> seeds = {
            R"({"a": [1, -2.5e+3, 0, true, false, null, {"b": "\u00e9\ud83d\ude00\n"}], "c": {}})",
            R"({"x": "\u20ac", "y": [[[]]], "z": -0.0E-1})", R"({})", "{\"k\": \"\\\"\\\\\\/\\b\\f\\n\\r\\t\"}",
            "{\"utf8\": \"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"}"};
        const std::string alphabet = "{}[]\":,.-+eE0123456789 tfnrulasx\\\x80\xc3\xe2\xed\xf0\xf4\xff\x01";
        std::uint64_t s = 0x1234567;
        auto rnd = [&] {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            return s;
        };
        int accepted = 0, rejected = 0;
        for (int i = 0; i < 20000; ++i) {
            std::string t = seeds[rnd() % seeds.size()];
            for (int e = 1 + static_cast<int>(rnd() % 3); e > 0 && !t.empty(); --e) {
                const std::size_t at = rnd() % t.size();
                switch (rnd() % 3) {
                    case 0: t[at] = alphabet[rnd() % alphabet.size()]; break;
                    case 1: t.erase(at, 1); break;
                    case 2: t.insert(at, 1, alphabet[rnd() % alphabet.size()]); break;
                }
            }
            JsonStreamChecker c(true);
            JsonStreamChecker::Status st = JsonStreamChecker::Status::more;
            for (char ch : t) {
                st = c.put(ch);
                if (st == JsonStreamChecker::Status::error) break;
            }
            const bool mine = st != JsonStreamChecker::Status::error && c.end() == JsonStreamChecker::Status::done;
            const auto j = nlohmann::json::parse(t, nullptr, false);
            const bool ref = !j.is_discarded() && j.is_object();
            if (mine != ref) QFAIL(("checker and nlohmann disagree on: " + t).c_str());
            (mine ? accepted : rejected)++;
        }
        QVERIFY(accepted > 500 && rejected > 500);
        // Numbers: valid syntax that overflows a double is rejected like nlohmann does; underflow is accepted.
        for (const char* t : {R"({"n": 1e400})", R"({"n": -1.5E+309})", R"({"n": 1e-400})", R"({"n": 0.0000e999})",
                              R"({"n": 123456789012345678901234567890})", R"({"n": 1.7976931348623157e308})"}) {
            JsonStreamChecker c(true);
            auto st = JsonStreamChecker::Status::more;
            for (const char* p = t; *p && st == JsonStreamChecker::Status::more; ++p) st = c.put(*p);
            const auto j = nlohmann::json::parse(t, nullptr, false);
            QVERIFY2((st == JsonStreamChecker::Status::done) == !j.is_discarded(), t);
        }
    }

    void paramValueTyping() {
        QCOMPARE(param_value_to_json("12", param_string), std::string("\"12\""));
        QCOMPARE(param_value_to_json(" 12 ", param_integer), std::string("12"));
        QCOMPARE(param_value_to_json("twelve", param_integer), std::string("\"twelve\""));
        QCOMPARE(param_value_to_json("null", param_number | param_null), std::string("null"));
        QCOMPARE(param_value_to_json("[1,2]", param_array), std::string("[1,2]"));
        QCOMPARE(param_value_to_json("a\"b\n", 0), std::string("\"a\\\"b\\n\""));
        QCOMPARE(param_value_to_json(std::string("7\0x", 3), param_integer), std::string("\"7\\u0000x\""));
        const ToolSchemas s = ToolSchemas::parse(kTools);
        QCOMPARE(s.types("get_weather", "ratio"), ParamTypes(param_number | param_null));
        QCOMPARE(s.types("write_file", "content"), ParamTypes(param_string));
        QCOMPARE(s.types("nope", "x"), ParamTypes(0));
    }
};

FT_TEST_MAIN(TestToolParsers)
#include "test_tool_parsers.moc"
