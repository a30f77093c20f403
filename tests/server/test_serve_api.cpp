// The API server's transport-free part (engine/src/serve): OpenAI and Anthropic request JSON → ApiRequest, the
// protocol-shaped error bodies, SSE framing, and the response writers fed token events through the real Qwen3
// tool/reasoning parser; prepare() with the tiny model's real template and tokenizer.
#include <nlohmann/json.hpp>

// Engine headers before Qt's: EngineStats has a field named `slots`, which Qt defines as a macro.
#include "ft/chat_template.h"
#include "ft/tokenizer.h"
#include "serve/api_request.h"
#include "serve/api_response.h"
#include "serve/response_store.h"
#include "serve/tool_parser.h"
// (keep the engine headers above)
#include "ft_test.h"

#include <QFile>

using namespace ft::serve;
using json = nlohmann::ordered_json;

namespace {

const std::string kModel = FT_SOURCE_DIR "/tests/data/qwen3-moe-tiny";

// Splits an SSE stream into (event name, data) frames; fails on a frame not ended by a blank line.
std::vector<std::pair<std::string, std::string>> sse_frames(const std::string& s) {
    std::vector<std::pair<std::string, std::string>> out;
    std::size_t pos = 0;
    while (pos < s.size()) {
        const std::size_t end = s.find("\n\n", pos);
        if (end == std::string::npos) {
            out.push_back({"<unterminated>", s.substr(pos)});
            break;
        }
        const std::string frame = s.substr(pos, end - pos);
        pos = end + 2;
        std::string name, data;
        std::size_t lp = 0;
        while (lp <= frame.size()) {
            std::size_t le = frame.find('\n', lp);
            if (le == std::string::npos) le = frame.size();
            const std::string line = frame.substr(lp, le - lp);
            if (line.rfind("event: ", 0) == 0) name = line.substr(7);
            else if (line.rfind("data: ", 0) == 0) data += line.substr(6);
            lp = le + 1;
        }
        out.push_back({name, data});
    }
    return out;
}

ft::TokenEvent tok(const std::string& text, std::int32_t id = 1) {
    ft::TokenEvent e;
    e.token = id;
    e.text = text;
    e.logprob = -0.5f;
    e.top_logprobs = {{id, -0.5f}, {2, -1.5f}};
    return e;
}

// A served qwen3_moe model over a loaded template and tokenizer.
ServedModel served(std::string id, int n_ctx, const ft::ChatTemplate& tpl, const ft::Tokenizer& tk) {
    ServedModel m;
    m.id = std::move(id);
    m.architecture = "qwen3_moe";
    m.n_ctx = n_ctx;
    m.chat_template = &tpl;
    m.tokenizer = &tk;
    return m;
}

ft::FinishEvent fin(ft::FinishReason r, int prompt, int completion, std::string stop_text = {}) {
    ft::FinishEvent f;
    f.reason = r;
    f.prompt_tokens = prompt;
    f.completion_tokens = completion;
    f.stop_text = std::move(stop_text);
    return f;
}

std::unique_ptr<ToolParser> qwen3_parser(bool tools) {
    ToolParserOptions o;
    o.tools = tools;
    o.id_prefix = "call_t_";
    return tool_parser_make(ToolFormat::qwen3, o);
}

// The model output the writer tests feed, cut at awkward places (inside tags).
const std::vector<std::string> kPieces = {"<thi", "nk>\nLet me", " think.\n</th", "ink>\n\nHello", " world",
                                          "\n<tool_", "call>\n{\"name\": \"get_weather\", \"argu",
                                          "ments\": {\"city\": \"Paris\"}}\n</tool_call>"};

int status_of(const std::function<void()>& f, std::string* type = nullptr, std::string* param = nullptr) {
    try {
        f();
    } catch (const ApiError& e) {
        if (type) *type = e.type;
        if (param) *param = e.param;
        return e.status;
    }
    return 0;
}

}  // namespace

class TestServeApi : public QObject {
    Q_OBJECT
private slots:
    void openaiChatFields() {
        const auto r = parse_openai_chat(R"({"model":"m","messages":[{"role":"developer","content":"be brief"},
            {"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}],
            "stream":true,"stream_options":{"include_usage":true},"max_tokens":9,"max_completion_tokens":7,
            "stop":"END","seed":42,"temperature":0,"top_p":0.5,"logprobs":true,"top_logprobs":3,
            "tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object"}}}],
            "tool_choice":"auto","parallel_tool_calls":false})");
        QCOMPARE(r.model, std::string("m"));
        QVERIFY(r.stream && r.include_usage);
        QCOMPARE(r.max_tokens, 7);  // max_completion_tokens wins
        QCOMPARE(r.stop, std::vector<std::string>{"END"});
        QCOMPARE(r.sampling.seed, std::uint64_t(42));
        QCOMPARE(r.sampling.temperature, 0.f);
        QCOMPARE(r.sampling.top_p, 0.5f);
        QVERIFY(r.logprobs);
        QCOMPARE(r.top_logprobs, 3);
        QVERIFY(!r.parallel_tool_calls);
        const json m = json::parse(r.messages_json);
        QCOMPARE(m[0]["role"].get<std::string>(), std::string("system"));
        QCOMPARE(m[1]["content"].get<std::string>(), std::string("ab"));
        const json t = json::parse(r.tools_json);
        QCOMPARE(t[0]["function"]["name"].get<std::string>(), std::string("f"));
    }

    void openaiToolRoundTripRequest() {
        // The second turn of a tool call: the assistant's call (arguments as a JSON string) and the tool's result.
        json body = json::parse(R"({"model":"m","messages":[{"role":"user","content":"weather?"},
            {"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function",
              "function":{"name":"get_weather"}}]},
            {"role":"tool","tool_call_id":"call_1","content":"sunny"}],
            "tools":[{"type":"function","function":{"name":"get_weather","parameters":{"type":"object"}}}]})");
        body["messages"][1]["tool_calls"][0]["function"]["arguments"] = json{{"city", "Paris"}}.dump();  // a JSON string
        const auto r = parse_openai_chat(body.dump());
        const json m = json::parse(r.messages_json);
        QCOMPARE(m[1]["content"].get<std::string>(), std::string());  // templates need a string
        QCOMPARE(m[1]["tool_calls"][0]["function"]["name"].get<std::string>(), std::string("get_weather"));
        QCOMPARE(m[2]["role"].get<std::string>(), std::string("tool"));
        QCOMPARE(m[2]["tool_call_id"].get<std::string>(), std::string("call_1"));
        // Rendered by the model's own template: the call and the result appear where Qwen3 puts them.
        ft::ChatTemplate tpl(ft::load_chat_template(kModel));
        ft::ChatRenderRequest rr;
        rr.messages_json = r.messages_json;
        rr.tools_json = r.tools_json;
        const std::string p = tpl.apply(rr);
        QVERIFY2(p.find("<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>") !=
                     std::string::npos,
                 p.c_str());
        QVERIFY2(p.find("<tool_response>\nsunny\n</tool_response>") != std::string::npos, p.c_str());
        QVERIFY(p.find("# Tools") != std::string::npos);
    }

    void openaiJsonObjectAddsInstruction() {
        const auto r = parse_openai_chat(R"({"model":"m","messages":[{"role":"user","content":"x"}],
            "response_format":{"type":"json_object"}})");
        QVERIFY(r.json_object);
        const json m = json::parse(r.messages_json);
        QCOMPARE(m[0]["role"].get<std::string>(), std::string("system"));
        QVERIFY(m[0]["content"].get<std::string>().find("JSON") != std::string::npos);
    }

    void openaiErrors() {
        std::string type, param;
        QCOMPARE(status_of([] { parse_openai_chat("{not json"); }, &type), 400);
        QCOMPARE(type, std::string("invalid_request_error"));
        QCOMPARE(status_of([] { parse_openai_chat(R"({"model":"m"})"); }, nullptr, &param), 400);
        QCOMPARE(param, std::string("messages"));
        QCOMPARE(status_of([] { parse_openai_chat(R"({"model":"m","messages":[{"role":"user","content":"x"}],"temperature":3})"); },
                           nullptr, &param),
                 400);
        QCOMPARE(param, std::string("temperature"));
        QCOMPARE(status_of([] { parse_openai_chat(R"({"model":"m","messages":[{"role":"user","content":"x"}],"n":2})"); }), 400);
        QCOMPARE(status_of([] {
                     parse_openai_chat(R"({"model":"m","messages":[{"role":"user","content":[{"type":"image_url"}]}]})");
                 }),
                 400);
        QCOMPARE(status_of([] { parse_openai_chat(R"({"model":"m","messages":[{"role":"wizard","content":"x"}]})"); },
                           nullptr, &param),
                 400);
        QCOMPARE(param, std::string("messages[0].role"));
        QCOMPARE(status_of([] { parse_openai_completion(R"({"model":"m"})"); }), 400);
        // Shapes.
        const ApiError e(404, "invalid_request_error", "no such model", "model", "model_not_found");
        const json o = json::parse(error_body(Protocol::openai, e));
        QCOMPARE(o["error"]["message"].get<std::string>(), std::string("no such model"));
        QCOMPARE(o["error"]["code"].get<std::string>(), std::string("model_not_found"));
        QCOMPARE(o["error"]["param"].get<std::string>(), std::string("model"));
        const json a = json::parse(error_body(Protocol::anthropic, ApiError(404, "not_found_error", "no such model")));
        QCOMPARE(a["type"].get<std::string>(), std::string("error"));
        QCOMPARE(a["error"]["type"].get<std::string>(), std::string("not_found_error"));
        QVERIFY(!o["error"].contains("ft_message") && !a["error"].contains("ft_message"));  // no key: nothing added
        // A keyed error: its key and arguments beside the protocol's fields (the desktop app words them in its
        // language), which stay what the SDKs read.
        ApiError k(429, "rate_limit_error", "the server is busy", {}, "rate_limit_exceeded");
        k.keyed("server_busy", {"8"});
        for (const Protocol p : {Protocol::openai, Protocol::anthropic}) {
            const json b = json::parse(error_body(p, k));
            QCOMPARE(b["error"]["message"].get<std::string>(), std::string("the server is busy"));
            QCOMPARE(b["error"]["type"].get<std::string>(), std::string("rate_limit_error"));
            QVERIFY(b["error"]["ft_message"] == (json{{"key", "server_busy"}, {"args", {"8"}}}));
        }
        QCOMPARE(json::parse(error_body(Protocol::openai, k))["error"]["code"].get<std::string>(), std::string("rate_limit_exceeded"));
        // A sampling value out of range names the field, its range and the value.
        try {
            parse_openai_chat(R"({"model":"m","temperature":7,"messages":[{"role":"user","content":"x"}]})");
            QFAIL("temperature 7 was taken");
        } catch (const ApiError& e) {
            QCOMPARE(e.message_key.key, std::string("field_range"));
            QCOMPARE(e.message_key.args, (std::vector<std::string>{"temperature", "[0.0, 2.0]", "7"}));
        }
    }

    void openaiCompletionFields() {
        const auto r = parse_openai_completion(R"({"model":"m","prompt":[1,2,3],"logprobs":2,"echo":true})");
        QCOMPARE(r.prompt_ids, (std::vector<std::int32_t>{1, 2, 3}));
        QCOMPARE(r.max_tokens, 16);  // OpenAI's default
        QVERIFY(r.logprobs && r.echo);
        QCOMPARE(r.top_logprobs, 2);
    }

    void anthropicConversion() {
        const auto r = parse_anthropic_messages(R"({"model":"m","max_tokens":100,
            "system":[{"type":"text","text":"You are terse."}],
            "thinking":{"type":"enabled","budget_tokens":1024},
            "tools":[{"name":"get_weather","description":"d","input_schema":{"type":"object"}},{"type":"web_search_20250305","name":"web_search"}],
            "tool_choice":{"type":"any","disable_parallel_tool_use":true},
            "stop_sequences":["@@@"], "temperature":0.2, "top_k":5,
            "messages":[{"role":"user","content":"weather?"},
              {"role":"assistant","content":[{"type":"thinking","thinking":"hm","signature":"sig"},{"type":"text","text":"Checking."},
                 {"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"city":"Paris"}}]},
              {"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":[{"type":"text","text":"sunny"}]},
                 {"type":"text","text":"thanks"}]}]})");
        QCOMPARE(r.max_tokens, 100);
        QCOMPARE(r.enable_thinking, std::optional<bool>(true));
        QVERIFY(r.tool_choice == ToolChoice::required && !r.parallel_tool_calls);
        QCOMPARE(r.stop, std::vector<std::string>{"@@@"});
        QCOMPARE(r.sampling.top_k, 5);
        const json t = json::parse(r.tools_json);
        QCOMPARE(int(t.size()), 1);  // the server tool without input_schema is left out
        QCOMPARE(t[0]["function"]["parameters"]["type"].get<std::string>(), std::string("object"));
        const json m = json::parse(r.messages_json);
        QCOMPARE(int(m.size()), 5);
        QCOMPARE(m[0]["content"].get<std::string>(), std::string("You are terse."));
        QCOMPARE(m[2]["reasoning_content"].get<std::string>(), std::string("hm"));
        QCOMPARE(m[2]["content"].get<std::string>(), std::string("Checking."));
        QCOMPARE(m[2]["tool_calls"][0]["function"]["arguments"]["city"].get<std::string>(), std::string("Paris"));
        QCOMPARE(m[3]["role"].get<std::string>(), std::string("tool"));
        QCOMPARE(m[3]["tool_call_id"].get<std::string>(), std::string("toolu_1"));
        QCOMPARE(m[3]["content"].get<std::string>(), std::string("sunny"));
        QCOMPARE(m[4]["content"].get<std::string>(), std::string("thanks"));
        // Errors: max_tokens required except for count_tokens; unsupported blocks are named.
        QCOMPARE(status_of([] { parse_anthropic_messages(R"({"model":"m","messages":[{"role":"user","content":"x"}]})"); }), 400);
        QCOMPARE(status_of([] { parse_anthropic_messages(R"({"model":"m","messages":[{"role":"user","content":"x"}]})", true); }), 0);
        QCOMPARE(status_of([] {
                     parse_anthropic_messages(
                         R"({"model":"m","max_tokens":5,"messages":[{"role":"user","content":[{"type":"image","source":{}}]}]})");
                 }),
                 400);
    }

    void sseFraming() {
        QCOMPARE(sse_data("{\"a\":1}"), std::string("data: {\"a\":1}\n\n"));
        QCOMPARE(sse_event("ping", "{}"), std::string("event: ping\ndata: {}\n\n"));
        QCOMPARE(sse_done(), std::string("data: [DONE]\n\n"));
    }

    // Streamed chunks and the non-streamed body come from the same events: same text, reasoning and tool call.
    void openaiWriterStreamEqualsBody() {
        std::string streamed_content, streamed_reasoning, streamed_args, call_name, stream;
        std::string body;
        for (bool streaming : {true, false}) {
            WriterSetup s;
            s.id = "chatcmpl-x";
            s.model = "m";
            s.stream = streaming;
            s.include_usage = true;
            s.logprobs = true;
            s.top_logprobs = 2;
            s.token_bytes = [](std::int32_t id) { return "t" + std::to_string(id); };
            auto w = openai_chat_writer(s, qwen3_parser(true));
            std::string out = w->start();
            for (const auto& p : kPieces) out += w->token(tok(p));
            ft::FinishEvent f = fin(ft::FinishReason::stop, 11, int(kPieces.size()));
            f.cached_tokens = 8;  // from the prefix cache
            out += w->finish(f);
            if (streaming) stream = out;
            else body = w->body();
        }
        QCOMPARE(json::parse(body)["usage"]["prompt_tokens_details"]["cached_tokens"].get<int>(), 8);
        const auto frames = sse_frames(stream);
        QVERIFY(frames.size() >= 4);
        QCOMPARE(frames.back().second, std::string("[DONE]"));
        int usage_chunks = 0;
        std::string finish_reason;
        for (std::size_t i = 0; i + 1 < frames.size(); ++i) {
            QVERIFY2(frames[i].first.empty(), frames[i].first.c_str());
            const json c = json::parse(frames[i].second);
            QCOMPARE(c["object"].get<std::string>(), std::string("chat.completion.chunk"));
            if (c["choices"].empty()) {
                ++usage_chunks;
                QCOMPARE(c["usage"]["prompt_tokens"].get<int>(), 11);
                QCOMPARE(c["usage"]["prompt_tokens_details"]["cached_tokens"].get<int>(), 8);
                continue;
            }
            const json& d = c["choices"][0]["delta"];
            if (d.contains("content")) streamed_content += d["content"].get<std::string>();
            if (d.contains("reasoning_content")) streamed_reasoning += d["reasoning_content"].get<std::string>();
            if (d.contains("tool_calls"))
                for (const auto& tc : d["tool_calls"]) {
                    QCOMPARE(tc["index"].get<int>(), 0);
                    if (tc.contains("id")) call_name = tc["function"]["name"].get<std::string>();
                    streamed_args += tc["function"]["arguments"].get<std::string>();
                }
            if (!c["choices"][0]["finish_reason"].is_null()) finish_reason = c["choices"][0]["finish_reason"].get<std::string>();
        }
        QCOMPARE(usage_chunks, 1);
        QCOMPARE(finish_reason, std::string("tool_calls"));
        const json b = json::parse(body);
        const json& msg = b["choices"][0]["message"];
        QCOMPARE(msg["content"].get<std::string>(), streamed_content);
        QCOMPARE(streamed_content, std::string("Hello world"));
        QCOMPARE(msg["reasoning_content"].get<std::string>(), streamed_reasoning);
        QCOMPARE(streamed_reasoning, std::string("Let me think."));
        QCOMPARE(call_name, std::string("get_weather"));
        QCOMPARE(msg["tool_calls"][0]["function"]["arguments"].get<std::string>(), streamed_args);
        QCOMPARE(json::parse(streamed_args)["city"].get<std::string>(), std::string("Paris"));
        QCOMPARE(b["choices"][0]["finish_reason"].get<std::string>(), std::string("tool_calls"));
        QCOMPARE(b["usage"]["total_tokens"].get<int>(), 11 + int(kPieces.size()));
        // logprobs: one entry per token, with the token's bytes and 2 alternatives.
        const json& lp = b["choices"][0]["logprobs"]["content"];
        QCOMPARE(int(lp.size()), int(kPieces.size()));
        QCOMPARE(lp[0]["token"].get<std::string>(), std::string("t1"));
        QCOMPARE(int(lp[0]["top_logprobs"].size()), 2);
    }

    void openaiWriterNoToolsIsText() {
        // Without tools in the request, tool-call markup is plain content.
        WriterSetup s;
        s.id = "x";
        auto w = openai_chat_writer(s, qwen3_parser(false));
        w->start();
        w->token(tok("<tool_call>{\"name\":\"f\",\"arguments\":{}}</tool_call>"));
        w->finish(fin(ft::FinishReason::length, 1, 1));
        const json b = json::parse(w->body());
        QVERIFY(b["choices"][0]["message"]["content"].get<std::string>().find("<tool_call>") != std::string::npos);
        QCOMPARE(b["choices"][0]["finish_reason"].get<std::string>(), std::string("length"));
    }

    void anthropicWriterEvents() {
        WriterSetup s;
        s.id = "msg_x";
        s.model = "m";
        s.stream = true;
        s.prompt_tokens = 11;
        auto w = anthropic_writer(s, qwen3_parser(true));
        std::string out = w->start();
        for (const auto& p : kPieces) out += w->token(tok(p));
        out += w->finish(fin(ft::FinishReason::stop, 11, 8));
        const auto frames = sse_frames(out);
        std::vector<std::string> names;
        std::string text, thinking, partial;
        std::vector<std::string> block_types;
        for (const auto& [name, data] : frames) {
            const json j = json::parse(data);
            QCOMPARE(j["type"].get<std::string>(), name);  // event name == data.type
            names.push_back(name);
            if (name == "content_block_start") {
                block_types.push_back(j["content_block"]["type"].get<std::string>());
                QCOMPARE(j["index"].get<int>(), int(block_types.size()) - 1);
            }
            if (name == "content_block_delta") {
                const json& d = j["delta"];
                const std::string t = d["type"].get<std::string>();
                if (t == "text_delta") text += d["text"].get<std::string>();
                else if (t == "thinking_delta") thinking += d["thinking"].get<std::string>();
                else if (t == "input_json_delta") partial += d["partial_json"].get<std::string>();
                else QFAIL(t.c_str());
            }
            if (name == "message_delta") {
                QCOMPARE(j["delta"]["stop_reason"].get<std::string>(), std::string("tool_use"));
                QCOMPARE(j["usage"]["output_tokens"].get<int>(), 8);
            }
        }
        QCOMPARE(names.front(), std::string("message_start"));
        QCOMPARE(names.back(), std::string("message_stop"));
        QCOMPARE(block_types, (std::vector<std::string>{"thinking", "text", "tool_use"}));
        QCOMPARE(int(std::count(names.begin(), names.end(), "content_block_stop")), 3);
        QCOMPARE(thinking, std::string("Let me think."));
        QCOMPARE(text, std::string("Hello world"));
        QCOMPARE(json::parse(partial)["city"].get<std::string>(), std::string("Paris"));
    }

    // /v1/responses: input items → chat messages (the tool round trip included), flat tools, the echoed settings.
    void responsesRequestFields() {
        json body = json::parse(R"({"model":"m","instructions":"be brief","store":true,
            "input":[{"role":"developer","content":"dev"},
              {"type":"message","role":"user","content":[{"type":"input_text","text":"weather"},{"type":"input_text","text":"?"}]},
              {"type":"reasoning","id":"rs_1","summary":[],"content":[{"type":"reasoning_text","text":"use the tool"}]},
              {"type":"function_call","call_id":"call_1","name":"get_weather","arguments":"ARGS"},
              {"type":"function_call_output","call_id":"call_1","output":"sunny"},
              {"role":"assistant","content":[{"type":"output_text","text":"Sunny."}]}],
            "tools":[{"type":"function","name":"get_weather","description":"d","parameters":{"type":"object"}}],
            "tool_choice":{"type":"function","name":"get_weather"},"parallel_tool_calls":false,
            "max_output_tokens":9,"temperature":0,"top_p":0.5,"stream":true,"reasoning":{"effort":"none"}})");
        body["input"][3]["arguments"] = json{{"city", "Paris"}}.dump(-1);  // a JSON string
        const auto r = parse_openai_responses(body.dump());
        QVERIFY(r.endpoint == Endpoint::responses);
        QVERIFY(r.stream && !r.parallel_tool_calls);
        QCOMPARE(r.max_tokens, 9);
        QCOMPARE(r.sampling.top_p, 0.5f);
        QVERIFY(r.tool_choice == ToolChoice::named);
        QCOMPARE(r.tool_choice_name, std::string("get_weather"));
        QVERIFY(r.enable_thinking == std::optional<bool>(false));
        const json m = json::parse(r.messages_json);
        QCOMPARE(int(m.size()), 5);
        // The instructions, then the leading developer message: one system prompt.
        QCOMPARE(m[0]["role"].get<std::string>(), std::string("system"));
        QCOMPARE(m[0]["content"].get<std::string>(), std::string("be brief\n\ndev"));
        QCOMPARE(m[1]["content"].get<std::string>(), std::string("weather?"));
        QCOMPARE(m[2]["role"].get<std::string>(), std::string("assistant"));
        QCOMPARE(m[2]["reasoning_content"].get<std::string>(), std::string("use the tool"));
        QCOMPARE(m[2]["tool_calls"][0]["id"].get<std::string>(), std::string("call_1"));
        QCOMPARE(json::parse(m[2]["tool_calls"][0]["function"]["arguments"].get<std::string>())["city"].get<std::string>(),
                 std::string("Paris"));
        QCOMPARE(m[3]["role"].get<std::string>(), std::string("tool"));
        QCOMPARE(m[3]["name"].get<std::string>(), std::string("get_weather"));
        QCOMPARE(m[4]["content"].get<std::string>(), std::string("Sunny."));  // after the tool: a new message
        const json t = json::parse(r.tools_json);
        QCOMPARE(t[0]["function"]["name"].get<std::string>(), std::string("get_weather"));
        QCOMPARE(t[0]["function"]["parameters"]["type"].get<std::string>(), std::string("object"));
        const json echo = json::parse(r.echo_json);
        QCOMPARE(echo["store"].get<bool>(), true);  // kept: the conversation so far goes with it
        QVERIFY(r.store);
        QCOMPARE(int(json::parse(r.input_items_json).size()), 6);
        QCOMPARE(echo["tools"][0]["name"].get<std::string>(), std::string("get_weather"));
        QCOMPARE(echo["max_output_tokens"].get<int>(), 9);
        // The template renders the round trip.
        ft::ChatTemplate tpl(ft::load_chat_template(kModel));
        ft::ChatRenderRequest rr;
        rr.messages_json = r.messages_json;
        rr.tools_json = r.tools_json;
        const std::string p = tpl.apply(rr);
        QVERIFY2(p.find("<tool_response>\nsunny\n</tool_response>") != std::string::npos, p.c_str());
        QVERIFY2(p.find("\"city\": \"Paris\"") != std::string::npos, p.c_str());
        // A plain string input is one user message.
        const auto s1 = parse_openai_responses(R"({"model":"m","input":"hi"})");
        QVERIFY(json::parse(s1.messages_json) == json::parse(R"([{"role":"user","content":"hi"}])"));
    }

    void responsesErrors() {
        std::string type, param;
        auto st = [&](const char* body) {
            type.clear();
            param.clear();
            return status_of([&] { parse_openai_responses(body); }, &type, &param);
        };
        QCOMPARE(st(R"({"model":"m"})"), 400);
        QCOMPARE(param, std::string("input"));
        QCOMPARE(st(R"({"model":"m","input":"x","previous_response_id":"resp_1"})"), 400);  // none kept
        QCOMPARE(param, std::string("previous_response_id"));
        QCOMPARE(st(R"({"model":"m","input":7})"), 400);
        QCOMPARE(param, std::string("input"));
        QCOMPARE(st(R"({"model":"m","input":[{"type":"item_reference","id":"msg_1"}]})"), 400);
        QCOMPARE(param, std::string("input[0].type"));
        QCOMPARE(st(R"({"model":"m","input":[{"role":"user","content":[{"type":"input_image","image_url":"u"}]}]})"), 400);
        QCOMPARE(param, std::string("input[0].content[0].type"));
        QCOMPARE(st(R"({"model":"m","input":"x","tools":[{"type":"namespace","name":"ns"}]})"), 400);
        QCOMPARE(param, std::string("tools[0].tools"));
        QCOMPARE(st(R"({"model":"m","input":"x","tools":[{"type":"custom","name":"c","format":{"type":"regex"}}]})"), 400);
        QCOMPARE(param, std::string("tools[0].format.type"));
        QCOMPARE(st(R"({"model":"m","input":"x","tools":[{"type":"web_search"}],"tool_choice":"required"})"), 400);
        QCOMPARE(st(R"({"model":"m","input":"x","tool_choice":{"type":"web_search_preview"}})"), 400);
        QCOMPARE(param, std::string("tool_choice.type"));
        QCOMPARE(st(R"({"model":"m","input":"x","tools":[{"type":"function","name":"f"}],
                       "tool_choice":{"type":"function","name":"g"}})"), 400);
        QCOMPARE(param, std::string("tool_choice.name"));
        QCOMPARE(st(R"({"model":"m","input":"x","include":"reasoning.encrypted_content"})"), 400);
        QCOMPARE(param, std::string("include"));
        QCOMPARE(st(R"({"model":"m","input":"x","reasoning":{"summary":"long"}})"), 400);
        QCOMPARE(param, std::string("reasoning.summary"));
        QCOMPARE(st(R"({"model":"m","input":"x","text":{"verbosity":"loud"}})"), 400);
        QCOMPARE(param, std::string("text.verbosity"));
        QCOMPARE(st(R"({"model":"m","input":"x","client_metadata":"x"})"), 400);
        QCOMPARE(param, std::string("client_metadata"));
        QCOMPARE(st(R"({"model":"m","input":[{"type":"custom_tool_call","name":"c","input":"i"}]})"), 400);
        QCOMPARE(param, std::string("input[0].call_id"));
        QCOMPARE(st(R"({"model":"m","input":[{"type":"mystery_item"}]})"), 400);
        QCOMPARE(param, std::string("input[0].type"));
        QCOMPARE(st(R"({"model":"m","input":"x","tool_choice":"required"})"), 400);
        QCOMPARE(st(R"({"model":"m","input":"x","max_output_tokens":0})"), 400);
        QCOMPARE(param, std::string("max_output_tokens"));
        QCOMPARE(st(R"({"model":"m","input":"x","reasoning":{"effort":"maximal"}})"), 400);
        QCOMPARE(st(R"({"model":"m","input":[{"type":"function_call","name":"f"}]})"), 400);
        QCOMPARE(param, std::string("input[0].call_id"));
        QCOMPARE(type, std::string("invalid_request_error"));
        QCOMPARE(st(R"({"model":"m","input":"x","background":true})"), 400);
    }

    // The Responses writer: typed events with consecutive sequence numbers, each item announced, filled and closed;
    // the stream's final response object equals the non-streamed body (ids aside, which are per writer).
    void responsesWriterStreamEqualsBody() {
        std::string stream, body;
        for (bool streaming : {true, false}) {
            WriterSetup s;
            s.id = "resp_abc";
            s.model = "m";
            s.stream = streaming;
            s.echo_json = R"({"tools":[],"store":false})";
            auto w = openai_responses_writer(s, qwen3_parser(true));
            std::string out = w->start();
            for (const auto& p : kPieces) out += w->token(tok(p));
            ft::FinishEvent f = fin(ft::FinishReason::stop, 11, int(kPieces.size()));
            f.cached_tokens = 8;  // from the prefix cache
            out += w->finish(f);
            if (streaming) stream = out;
            else body = w->body();
        }
        QCOMPARE(json::parse(body)["usage"]["input_tokens_details"]["cached_tokens"].get<int>(), 8);
        const auto frames = sse_frames(stream);
        std::vector<std::string> names;
        std::string text, reasoning, args;
        json last;
        for (std::size_t i = 0; i < frames.size(); ++i) {
            const json j = json::parse(frames[i].second);
            QCOMPARE(j["type"].get<std::string>(), frames[i].first);
            QCOMPARE(j["sequence_number"].get<int>(), int(i));
            names.push_back(frames[i].first);
            if (frames[i].first == "response.output_text.delta") text += j["delta"].get<std::string>();
            if (frames[i].first == "response.reasoning_text.delta") reasoning += j["delta"].get<std::string>();
            if (frames[i].first == "response.function_call_arguments.delta") {
                QCOMPARE(j["output_index"].get<int>(), 2);
                args += j["delta"].get<std::string>();
            }
            if (frames[i].first == "response.function_call_arguments.done")
                QCOMPARE(j["arguments"].get<std::string>(), args);
            last = j;
        }
        const std::vector<std::string> expected = {
            "response.created", "response.in_progress",
            "response.output_item.added", "response.content_part.added"};
        QCOMPARE(std::vector<std::string>(names.begin(), names.begin() + 4), expected);
        QCOMPARE(names.back(), std::string("response.completed"));
        QCOMPARE(int(std::count(names.begin(), names.end(), "response.output_item.added")), 3);
        QCOMPARE(int(std::count(names.begin(), names.end(), "response.output_item.done")), 3);
        QCOMPARE(int(std::count(names.begin(), names.end(), "response.content_part.done")), 2);
        QCOMPARE(int(std::count(names.begin(), names.end(), "response.reasoning_text.done")), 1);
        QCOMPARE(int(std::count(names.begin(), names.end(), "response.output_text.done")), 1);
        QCOMPARE(reasoning, std::string("Let me think."));
        QCOMPARE(text, std::string("Hello world"));
        const json b = json::parse(body);
        QVERIFY2(last["response"] == b, last.dump().c_str());
        QCOMPARE(b["object"].get<std::string>(), std::string("response"));
        QCOMPARE(b["status"].get<std::string>(), std::string("completed"));
        QCOMPARE(b["store"].get<bool>(), false);
        const json& out = b["output"];
        QCOMPARE(int(out.size()), 3);
        QCOMPARE(out[0]["type"].get<std::string>(), std::string("reasoning"));
        QCOMPARE(out[0]["content"][0]["text"].get<std::string>(), reasoning);
        QCOMPARE(out[1]["type"].get<std::string>(), std::string("message"));
        QCOMPARE(out[1]["content"][0]["type"].get<std::string>(), std::string("output_text"));
        QCOMPARE(out[1]["content"][0]["text"].get<std::string>(), text);
        QCOMPARE(out[2]["type"].get<std::string>(), std::string("function_call"));
        QCOMPARE(out[2]["name"].get<std::string>(), std::string("get_weather"));
        QCOMPARE(out[2]["call_id"].get<std::string>(), std::string("call_t_0"));
        QCOMPARE(out[2]["status"].get<std::string>(), std::string("completed"));
        QCOMPARE(out[2]["arguments"].get<std::string>(), args);
        QCOMPARE(json::parse(args)["city"].get<std::string>(), std::string("Paris"));
        QCOMPARE(b["usage"]["input_tokens"].get<int>(), 11);
        QCOMPARE(b["usage"]["total_tokens"].get<int>(), 11 + int(kPieces.size()));
        QVERIFY(b["usage"]["output_tokens_details"]["reasoning_tokens"].get<int>() > 0);
    }

    // Cut by max_output_tokens: status incomplete (response.incomplete), the cut item incomplete too; a broken-off
    // tool call is closed as incomplete.
    void responsesWriterIncomplete() {
        WriterSetup s;
        s.id = "resp_x";
        s.model = "m";
        s.stream = true;
        auto w = openai_responses_writer(s, qwen3_parser(true));
        std::string out = w->start();
        out += w->token(tok("Hello"));
        out += w->finish(fin(ft::FinishReason::length, 3, 1));
        const auto frames = sse_frames(out);
        QCOMPARE(frames.back().first, std::string("response.incomplete"));
        const json b = json::parse(w->body());
        QCOMPARE(b["status"].get<std::string>(), std::string("incomplete"));
        QCOMPARE(b["incomplete_details"]["reason"].get<std::string>(), std::string("max_output_tokens"));
        QCOMPARE(b["output"][0]["status"].get<std::string>(), std::string("incomplete"));

        s.stream = false;
        auto w2 = openai_responses_writer(s, qwen3_parser(true));
        w2->token(tok("<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": 1"));
        w2->finish(fin(ft::FinishReason::stop, 3, 1));
        const json b2 = json::parse(w2->body());
        for (const auto& o : b2["output"])
            if (o["type"] == "function_call") QCOMPARE(o["status"].get<std::string>(), std::string("incomplete"));
        // An error after the stream began: an `error` event with the next sequence number.
        const json e = json::parse(sse_frames(w->stream_error(bad_request("boom", "x")))[0].second);
        QCOMPARE(e["type"].get<std::string>(), std::string("error"));
        QCOMPARE(e["message"].get<std::string>(), std::string("boom"));
        QCOMPARE(e["sequence_number"].get<int>(), int(frames.size()));
    }

    // The request shape the Codex CLI (0.171) sends, trimmed: developer messages, a namespace tool, a built-in
    // web_search tool, a custom (freeform) tool, a tool type nobody knows, and a history with a namespace call, a
    // custom tool call, a local_shell call, their outputs, and an encrypted-only reasoning item; store false,
    // include, prompt_cache_key, client_metadata, reasoning.summary, text.verbosity.
    void responsesCodexRequest() {
        const json body = json::parse(R"({"model":"m","stream":true,"instructions":null,
            "input":[
              {"type":"message","id":"msg_1","role":"developer","content":[{"type":"input_text","text":"You are Codex."}]},
              {"type":"message","id":"msg_2","role":"developer","content":[{"type":"input_text","text":"<skills/>"}]},
              {"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context/>"}]},
              {"type":"message","role":"user","content":[{"type":"input_text","text":"Read notes.txt"}]},
              {"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"gAAAA"},
              {"type":"function_call","name":"close_agent","namespace":"multi_agent_v1","arguments":"{}","call_id":"call_1"},
              {"type":"function_call_output","call_id":"call_1","output":"closed"},
              {"type":"custom_tool_call","status":"completed","call_id":"call_2","name":"apply_patch","input":"*** Begin Patch\n*** End Patch"},
              {"type":"custom_tool_call_output","call_id":"call_2","output":"Done!"},
              {"type":"local_shell_call","call_id":"call_3","status":"completed","action":{"type":"exec","command":["cat","notes.txt"]}},
              {"type":"local_shell_call_output","call_id":"call_3","output":"pelican"},
              {"type":"web_search_call","status":"completed","action":{"type":"search","query":"q"}},
              {"type":"message","role":"assistant","content":[{"type":"output_text","text":"The word is pelican."}]}],
            "tools":[
              {"type":"function","name":"exec_command","description":"Runs a command","strict":false,
               "parameters":{"type":"object","properties":{"cmd":{"type":"string"}},"required":["cmd"]}},
              {"type":"namespace","name":"multi_agent_v1","description":"Sub-agents.","tools":[
                {"type":"function","name":"close_agent","description":"Close an agent","strict":false,
                 "parameters":{"type":"object","properties":{"target":{"type":"string"}}}},
                {"type":"function","name":"spawn_agent","description":"Spawn","strict":false,"parameters":{"type":"object"}}]},
              {"type":"custom","name":"apply_patch","description":"Edit files.",
               "format":{"type":"grammar","syntax":"lark","definition":"start: begin_patch hunk+ end_patch"}},
              {"type":"web_search","external_web_access":true},
              {"type":"local_shell"},
              {"type":"hologram","name":"h"}],
            "tool_choice":"auto","parallel_tool_calls":true,"reasoning":{"summary":"auto"},"store":false,
            "include":["reasoning.encrypted_content"],"prompt_cache_key":"01a2","service_tier":"default",
            "text":{"verbosity":"low"},"client_metadata":{"thread_id":"01a2"},"unknown_future_field":{"x":1}})");
        const auto r = parse_openai_responses(body.dump());
        QVERIFY(!r.store);
        QVERIFY(r.input_items_json.empty());  // nothing is kept
        QVERIFY(!r.enable_thinking.has_value());
        QCOMPARE(int(r.warnings.size()), 1);
        QVERIFY2(r.warnings[0].find("tools[5]") != std::string::npos && r.warnings[0].find("hologram") != std::string::npos,
                 r.warnings[0].c_str());
        // The model sees functions only: the namespace's flattened, the custom tool with one string argument whose
        // description carries the grammar; no web_search, local_shell or hologram.
        const json t = json::parse(r.tools_json);
        std::vector<std::string> names;
        for (const auto& f : t) names.push_back(f["function"]["name"].get<std::string>());
        QCOMPARE(names, (std::vector<std::string>{"exec_command", "multi_agent_v1.close_agent",
                                                  "multi_agent_v1.spawn_agent", "apply_patch"}));
        QVERIFY(t[1]["function"]["description"].get<std::string>().find("Sub-agents.") != std::string::npos);
        const json& ap = t[3]["function"]["parameters"];
        QCOMPARE(ap["required"][0].get<std::string>(), std::string("input"));
        QVERIFY(ap["properties"]["input"]["description"].get<std::string>().find("start: begin_patch") != std::string::npos);
        // The history: one system prompt (the two developer messages), the calls under the names the model knows.
        const json m = json::parse(r.messages_json);
        QCOMPARE(m[0]["role"].get<std::string>(), std::string("system"));
        QCOMPARE(m[0]["content"].get<std::string>(), std::string("You are Codex.\n\n<skills/>"));
        QCOMPARE(m[1]["role"].get<std::string>(), std::string("user"));
        QCOMPARE(m[2]["role"].get<std::string>(), std::string("user"));
        QCOMPARE(m[3]["role"].get<std::string>(), std::string("assistant"));
        const json& calls = m[3]["tool_calls"];
        QCOMPARE(int(calls.size()), 1);
        QCOMPARE(calls[0]["function"]["name"].get<std::string>(), std::string("multi_agent_v1.close_agent"));
        QCOMPARE(m[4]["content"].get<std::string>(), std::string("closed"));
        QCOMPARE(m[4]["name"].get<std::string>(), std::string("multi_agent_v1.close_agent"));
        QCOMPARE(m[5]["tool_calls"][0]["function"]["name"].get<std::string>(), std::string("apply_patch"));
        QCOMPARE(json::parse(m[5]["tool_calls"][0]["function"]["arguments"].get<std::string>())["input"].get<std::string>(),
                 std::string("*** Begin Patch\n*** End Patch"));
        QCOMPARE(m[6]["role"].get<std::string>(), std::string("tool"));
        QCOMPARE(m[7]["tool_calls"][0]["function"]["name"].get<std::string>(), std::string("local_shell"));
        QCOMPARE(m[8]["content"].get<std::string>(), std::string("pelican"));
        QCOMPARE(m[8]["tool_call_id"].get<std::string>(), std::string("call_3"));
        QCOMPARE(m[9]["content"].get<std::string>(), std::string("The word is pelican."));
        QCOMPARE(int(m.size()), 10);  // the web_search_call left no trace
        // The response repeats the tools as the client sent them (the writer reads the names back from there).
        const json echo = json::parse(r.echo_json);
        QCOMPARE(echo["tools"][1]["type"].get<std::string>(), std::string("namespace"));
        QCOMPARE(echo["store"].get<bool>(), false);
        QCOMPARE(echo["text"]["verbosity"].get<std::string>(), std::string("low"));
        QCOMPARE(echo["reasoning"]["summary"].get<std::string>(), std::string("auto"));
        QCOMPARE(echo["prompt_cache_key"].get<std::string>(), std::string("01a2"));
        // The tiny model's real template renders it all.
        ft::ChatTemplate tpl(ft::load_chat_template(kModel));
        ft::ChatRenderRequest rr;
        rr.messages_json = r.messages_json;
        rr.tools_json = r.tools_json;
        const std::string p = tpl.apply(rr);
        QVERIFY2(p.find("multi_agent_v1.close_agent") != std::string::npos, p.c_str());
        QVERIFY2(p.find("<tool_response>\npelican\n</tool_response>") != std::string::npos, p.c_str());
        // An empty input is a probe (Codex sends one with max_output_tokens 1): accepted.
        const auto probe = parse_openai_responses(R"({"model":"m","input":[],"max_output_tokens":1,"instructions":"hi"})");
        QCOMPARE(probe.max_tokens, 1);
        QCOMPARE(int(json::parse(probe.messages_json).size()), 1);
        // …also without instructions: an empty user turn, which the template renders (an empty list it cannot).
        const auto bare = parse_openai_responses(R"({"model":"m","input":[],"max_output_tokens":1})");
        QVERIFY(json::parse(bare.messages_json) == json::parse(R"([{"role":"user","content":""}])"));
        ft::ChatRenderRequest br;
        br.messages_json = bare.messages_json;
        br.add_generation_prompt = true;
        QVERIFY(!tpl.apply(br).empty());
        // A namespace may hold tool types this server does not know (no name needed): left out with a warning.
        const auto odd = parse_openai_responses(
            R"({"model":"m","input":"x","tools":[{"type":"namespace","name":"ns","tools":[{"type":"mystery"}]}]})");
        QVERIFY(odd.tools_json.empty());
        QCOMPARE(int(odd.warnings.size()), 1);
    }

    // previous_response_id: the stored conversation comes first, then the new input; the instructions are this
    // request's; an id the lookup does not know is a 400 naming the field.
    void responsesPreviousResponseId() {
        ResponseStore store;
        const json first_input = json::parse(R"([{"type":"message","role":"user","content":[{"type":"input_text","text":"Read notes.txt"}]}])");
        const json first_response = json::parse(R"({"id":"resp_1","object":"response","output":[
            {"id":"fc_1","type":"function_call","status":"completed","call_id":"call_9","name":"exec_command","arguments":"{}"}]})");
        QVERIFY(store.put("resp_1", first_response.dump(), first_input.dump()));
        auto lookup = [&store](const std::string& id) -> std::optional<std::string> {
            auto r = store.get(id);
            if (!r) return std::nullopt;
            return r->items_json;
        };
        const auto r = parse_openai_responses(R"({"model":"m","previous_response_id":"resp_1","instructions":"new rules",
            "input":[{"type":"function_call_output","call_id":"call_9","output":"pelican"}],
            "tools":[{"type":"function","name":"exec_command","parameters":{"type":"object"}}]})", lookup);
        QCOMPARE(r.previous_response_id, std::string("resp_1"));
        const json m = json::parse(r.messages_json);
        QCOMPARE(int(m.size()), 4);
        QCOMPARE(m[0]["content"].get<std::string>(), std::string("new rules"));
        QCOMPARE(m[1]["content"].get<std::string>(), std::string("Read notes.txt"));
        QCOMPARE(m[2]["tool_calls"][0]["function"]["name"].get<std::string>(), std::string("exec_command"));
        QCOMPARE(m[3]["role"].get<std::string>(), std::string("tool"));
        QCOMPARE(m[3]["name"].get<std::string>(), std::string("exec_command"));
        QCOMPARE(json::parse(r.echo_json)["previous_response_id"].get<std::string>(), std::string("resp_1"));
        // This turn's conversation (to keep with its response): all three items.
        QCOMPARE(int(json::parse(r.input_items_json).size()), 3);
        std::string param, code;
        try {
            parse_openai_responses(R"({"model":"m","previous_response_id":"resp_2","input":"x"})", lookup);
            QFAIL("an unknown previous_response_id was accepted");
        } catch (const ApiError& e) {
            QCOMPARE(e.status, 400);
            param = e.param;
            code = e.code;
        }
        QCOMPARE(param, std::string("previous_response_id"));
        QCOMPARE(code, std::string("previous_response_not_found"));
    }

    // The store: bounded in count and bytes, least recently used out first; erase; the conversation is the input
    // items followed by the response's output.
    void responseStoreBounds() {
        ResponseStore s(3, 100000);
        const std::string in = R"([{"type":"message","role":"user","content":"hi"}])";
        const std::string resp = R"({"output":[{"type":"message","role":"assistant","content":[{"type":"output_text","text":"yo"}]}]})";
        for (const char* id : {"a", "b", "c"}) QVERIFY(s.put(id, resp, in));
        QVERIFY(s.get("a"));  // a is now the most recent: b goes first
        QVERIFY(s.put("d", resp, in));
        QCOMPARE(int(s.size()), 3);
        QVERIFY(!s.get("b"));
        QVERIFY(s.get("a") && s.get("c") && s.get("d"));
        const auto a = s.get("a");
        QCOMPARE(int(a->n_input), 1);
        const json items = json::parse(a->items_json);
        QCOMPARE(int(items.size()), 2);
        QCOMPARE(items[1]["content"][0]["text"].get<std::string>(), std::string("yo"));
        QVERIFY(s.erase("a"));
        QVERIFY(!s.erase("a"));
        QVERIFY(!s.get("a"));
        // Bytes: a store of 1,000 bytes keeps what fits, and nothing larger than itself.
        ResponseStore small(100, 1000);
        const std::string big(2000, 'x');
        QVERIFY(!small.put("huge", "{\"output\":[],\"pad\":\"" + big + "\"}", "[]"));
        QCOMPARE(int(small.size()), 0);
        for (int i = 0; i < 20; ++i) small.put("r" + std::to_string(i), resp, in);
        QVERIFY(small.bytes() <= 1000);
        QVERIFY(small.size() < 20 && small.size() > 0);
        QVERIFY(small.get("r19"));  // the newest stays
        QVERIFY(!small.get("r0"));
    }

    // The writer returns calls under the client's names: a namespace tool's function as {name, namespace}, a
    // custom tool's call as a custom_tool_call with the freeform input (streamed as custom_tool_call_input events,
    // never as function-call argument deltas); streamed and non-streamed agree.
    void responsesWriterNamespaceAndCustom() {
        const std::string echo = R"({"store":false,"tools":[
            {"type":"function","name":"exec_command","parameters":{"type":"object"}},
            {"type":"namespace","name":"multi_agent_v1","tools":[{"type":"function","name":"close_agent","parameters":{"type":"object"}}]},
            {"type":"custom","name":"apply_patch","format":{"type":"text"}},
            {"type":"web_search"}]})";
        const std::vector<std::string> pieces = {
            "<tool_call>\n{\"name\": \"multi_agent_v1.close_agent\", \"arguments\": {\"target\": \"a1\"}}\n</tool_call>\n",
            "<tool_call>\n{\"name\": \"apply_patch\", \"arguments\": {\"input\": \"*** Begin Patch\\n*** End",
            " Patch\"}}\n</tool_call>\n",
            "<tool_call>\n{\"name\": \"close_agent\", \"arguments\": {}}\n</tool_call>\n",
            "<tool_call>\n{\"name\": \"exec_command\", \"arguments\": {\"cmd\": \"ls\"}}\n</tool_call>"};
        std::string stream, body;
        for (bool streaming : {true, false}) {
            WriterSetup s;
            s.id = "resp_ns";
            s.model = "m";
            s.stream = streaming;
            s.echo_json = echo;
            auto w = openai_responses_writer(s, qwen3_parser(true));
            std::string out = w->start();
            for (const auto& p : pieces) out += w->token(tok(p));
            out += w->finish(fin(ft::FinishReason::stop, 5, 5));
            if (streaming) stream = out;
            else body = w->body();
        }
        const json b = json::parse(body);
        const json& out = b["output"];
        QCOMPARE(int(out.size()), 4);
        QCOMPARE(out[0]["type"].get<std::string>(), std::string("function_call"));
        QCOMPARE(out[0]["name"].get<std::string>(), std::string("close_agent"));
        QCOMPARE(out[0]["namespace"].get<std::string>(), std::string("multi_agent_v1"));
        QCOMPARE(json::parse(out[0]["arguments"].get<std::string>())["target"].get<std::string>(), std::string("a1"));
        QCOMPARE(out[1]["type"].get<std::string>(), std::string("custom_tool_call"));
        QCOMPARE(out[1]["name"].get<std::string>(), std::string("apply_patch"));
        QCOMPARE(out[1]["input"].get<std::string>(), std::string("*** Begin Patch\n*** End Patch"));
        QCOMPARE(out[1]["status"].get<std::string>(), std::string("completed"));
        QVERIFY(!out[1].contains("arguments"));
        QCOMPARE(out[2]["name"].get<std::string>(), std::string("close_agent"));  // the bare name, mapped too
        QCOMPARE(out[2]["namespace"].get<std::string>(), std::string("multi_agent_v1"));
        QCOMPARE(out[3]["name"].get<std::string>(), std::string("exec_command"));
        QVERIFY(!out[3].contains("namespace"));
        const auto frames = sse_frames(stream);
        std::string custom_delta, custom_done;
        json last;
        for (std::size_t i = 0; i < frames.size(); ++i) {
            const json j = json::parse(frames[i].second);
            QCOMPARE(j["sequence_number"].get<int>(), int(i));
            if (frames[i].first == "response.function_call_arguments.delta") QVERIFY(j["output_index"].get<int>() != 1);
            if (frames[i].first == "response.custom_tool_call_input.delta") custom_delta += j["delta"].get<std::string>();
            if (frames[i].first == "response.custom_tool_call_input.done") custom_done = j["input"].get<std::string>();
            if (frames[i].first == "response.output_item.added" && j["output_index"].get<int>() == 1)
                QCOMPARE(j["item"]["type"].get<std::string>(), std::string("custom_tool_call"));
            last = j;
        }
        QCOMPARE(custom_delta, out[1]["input"].get<std::string>());
        QCOMPARE(custom_done, custom_delta);
        QCOMPARE(last["type"].get<std::string>(), std::string("response.completed"));
        QVERIFY2(last["response"] == b, last.dump().c_str());
    }

    void anthropicWriterBodyAndStopSequence() {
        WriterSetup s;
        s.id = "msg_y";
        s.stop = {"###"};
        auto w = anthropic_writer(s, qwen3_parser(false));
        w->start();
        w->token(tok("Hi"));
        w->finish(fin(ft::FinishReason::stop, 3, 1, "###"));
        const json b = json::parse(w->body());
        QCOMPARE(b["type"].get<std::string>(), std::string("message"));
        QCOMPARE(b["content"][0]["text"].get<std::string>(), std::string("Hi"));
        QCOMPARE(b["stop_reason"].get<std::string>(), std::string("stop_sequence"));
        QCOMPARE(b["stop_sequence"].get<std::string>(), std::string("###"));
        QCOMPARE(b["usage"]["input_tokens"].get<int>(), 3);
    }

    // A fuzz smoke of the three request parsers: deterministic mutations of valid bodies (bytes flipped, cut,
    // duplicated, JSON tokens spliced in) must give a parsed request or an ApiError with a 4xx status, nothing else.
    void requestParsersOnlyThrowApiErrors() {
        const std::vector<std::string> seeds = {
            R"({"model":"m","messages":[{"role":"user","content":"hi"},{"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c","content":"r"}],"tools":[{"type":"function","function":{"name":"f"}}],"tool_choice":{"type":"function","function":{"name":"f"}},"stop":["a","b"],"max_tokens":5,"logprobs":true,"top_logprobs":2,"response_format":{"type":"json_object"},"stream_options":{"include_usage":true}})",
            R"({"model":"m","prompt":[1,2,3],"max_tokens":3,"logprobs":1,"echo":true,"stop":"x"})",
            R"({"model":"m","max_tokens":9,"system":[{"type":"text","text":"s"}],"thinking":{"type":"enabled"},"tools":[{"name":"f","input_schema":{"type":"object"}}],"tool_choice":{"type":"tool","name":"f"},"messages":[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"thinking","thinking":"t"},{"type":"tool_use","id":"u","name":"f","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"u","content":"ok","is_error":true}]}]})",
            R"({"model":"m","instructions":"i","input":[{"role":"user","content":[{"type":"input_text","text":"q"}]},{"type":"reasoning","summary":[{"type":"summary_text","text":"r"}]},{"type":"function_call","call_id":"c","name":"f","arguments":"{}"},{"type":"function_call_output","call_id":"c","output":"ok"}],"tools":[{"type":"function","name":"f","parameters":{"type":"object"}}],"tool_choice":{"type":"function","name":"f"},"max_output_tokens":5,"reasoning":{"effort":"low"},"text":{"format":{"type":"json_object"}},"store":false})",
        };
        const std::vector<std::string> splice = {"null", "1e999", "-1", "[]", "{}", "\"\"", "true", "\"\\ud800\"", "18446744073709551616", ",", ":", "\xff"};
        std::uint64_t state = 0x12345678;
        auto next = [&] {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            return state;
        };
        int parsed = 0, rejected = 0;
        for (int round = 0; round < 3000; ++round) {
            std::string s = seeds[std::size_t(round) % seeds.size()];
            const int edits = 1 + int(next() % 4);
            for (int e = 0; e < edits && !s.empty(); ++e) {
                const std::size_t at = std::size_t(next() % s.size());
                switch (next() % 4) {
                case 0: s[at] = char(next() & 0xff); break;
                case 1: s.resize(at); break;
                case 2: s.insert(at, s.substr(at, std::size_t(next() % 16))); break;
                default: s.insert(at, splice[std::size_t(next() % splice.size())]); break;
                }
            }
            for (int which = 0; which < 5; ++which) {
                try {
                    if (which == 0) parse_openai_chat(s);
                    else if (which == 1) parse_openai_completion(s);
                    else if (which == 4) parse_openai_responses(s);
                    else parse_anthropic_messages(s, which == 3);
                    ++parsed;
                } catch (const ApiError& e) {
                    QVERIFY2(e.status >= 400 && e.status < 500, s.c_str());
                    QVERIFY(!std::string(e.what()).empty());
                    QVERIFY(json::parse(error_body(Protocol::openai, e)).is_object());  // valid JSON whatever the input
                    ++rejected;
                }
            }
        }
        QVERIFY(parsed > 0 && rejected > 0);
    }

    // What Claude Code 2.1.332 sends (tests/data/agents/claude-code-2.1.332: its first two requests of `claude -p`,
    // recorded): a system turn inside `messages` after the first user turn, a billing line heading the system prompt,
    // a deferred tool, thinking "adaptive", context_management / output_config / metadata (ignored). The billing line
    // and the deferred tool stay out of the prompt; the system turn renders where it stands (Qwen3's template allows
    // that); turn 1's prompt is a prefix of turn 2's (the prefix cache's premise), whatever the billing line says.
    void anthropicClaudeCodeShapes() {
        auto body = [](const char* turn) {
            QFile f(QStringLiteral(FT_SOURCE_DIR "/tests/data/agents/claude-code-2.1.332/%1.json").arg(turn));
            if (!f.open(QIODevice::ReadOnly)) return json();
            return json::parse(f.readAll().toStdString())["body"];
        };
        json t1 = body("turn1"), t2 = body("turn2");
        QVERIFY(t1.is_object() && t2.is_object());
        QCOMPARE(t1["messages"][1]["role"].get<std::string>(), std::string("system"));
        QVERIFY(t1["system"][0]["text"].get<std::string>().rfind("x-anthropic-billing-header:", 0) == 0);
        const auto r1 = parse_anthropic_messages(t1.dump());
        QVERIFY(r1.stream);
        QCOMPARE(r1.enable_thinking, std::optional<bool>(true));
        QVERIFY(r1.messages_json.find("x-anthropic-billing-header") == std::string::npos);
        const json m1 = json::parse(r1.messages_json);
        QCOMPARE(m1[0]["role"].get<std::string>(), std::string("system"));
        QCOMPARE(m1[1]["role"].get<std::string>(), std::string("user"));
        QCOMPARE(m1[2]["role"].get<std::string>(), std::string("system"));
        QVERIFY(m1[2]["content"].get<std::string>().rfind("# Environment", 0) == 0);
        const json tools = json::parse(r1.tools_json);
        QCOMPARE(int(tools.size()), int(t1["tools"].size()) - 1);  // DeferredToolPlaceholder (defer_loading) left out
        for (const auto& t : tools) QVERIFY(t["function"]["name"] != "DeferredToolPlaceholder");
        // Not streamed, and count_tokens: the same shapes parse.
        t1["stream"] = false;
        QVERIFY(!parse_anthropic_messages(t1.dump()).stream);
        QCOMPARE(parse_anthropic_messages(t1.dump(), true).messages_json, r1.messages_json);

        ft::ChatTemplate tpl(ft::load_chat_template(kModel));
        const ft::Tokenizer tk = ft::Tokenizer::load(kModel);
        QVERIFY(template_keeps_system_turns(tpl));
        ServedModel m = served("freetoken-demo", 65536, tpl, tk);
        const auto p1 = prepare(r1, m, "id", 0);
        const auto p2 = prepare(parse_anthropic_messages(t2.dump()), m, "id", 0);
        QVERIFY(p2.prompt_tokens > p1.prompt_tokens);
        std::size_t common = 0;
        while (common < p1.generation.prompt.size() && p1.generation.prompt[common] == p2.generation.prompt[common]) ++common;
        // Turn 1 ends in the generation prompt ("<|im_start|>assistant\n" and maybe an opened think block), which
        // turn 2 writes with the assistant's tool call: everything before it is shared.
        QVERIFY2(common + 8 >= p1.generation.prompt.size(),
                 qPrintable(QString("%1 of %2 tokens shared").arg(common).arg(p1.generation.prompt.size())));
        // A different billing line (versions carry a per-request hash) changes nothing the model sees.
        json t1b = body("turn1");
        t1b["system"][0]["text"] = "x-anthropic-billing-header: cc_version=2.1.332.54f; cc_entrypoint=sdk-cli; cch=9f8e7d;";
        QCOMPARE(prepare(parse_anthropic_messages(t1b.dump()), m, "id", 0).generation.prompt, p1.generation.prompt);
        // count_tokens counts that same prompt.
        QCOMPARE(count_prompt_tokens(parse_anthropic_messages(t1.dump(), true), m), p1.prompt_tokens);
    }

    // A template that reads only messages[0] as the system prompt (silently dropping later system messages), and
    // one that rejects them (Mistral's): later system turns are merged into the first system message.
    void systemTurnsMergedWhereTemplateAllowsOne() {
        ft::ChatTemplateSource src;
        src.text = "{% if messages[0].role == 'system' %}SYS:{{ messages[0].content }}\n{% set rest = messages[1:] %}"
                   "{% else %}{% set rest = messages %}{% endif %}{% for m in rest %}{% if m.role != 'system' %}"
                   "{{ m.role }}:{{ m.content }}\n{% endif %}{% endfor %}{% if add_generation_prompt %}assistant:{% endif %}";
        ft::ChatTemplate first_only(src);
        QVERIFY(!template_keeps_system_turns(first_only));
        const ft::Tokenizer tk = ft::Tokenizer::load(kModel);
        ServedModel m = served("m", 4096, first_only, tk);
        m.system_turns_in_place = false;
        const auto r = parse_anthropic_messages(R"({"model":"m","max_tokens":5,"system":"Be brief.",
            "messages":[{"role":"user","content":"hi"},{"role":"system","content":"Working folder: /tmp/x"},
                        {"role":"assistant","content":"ok"},{"role":"user","content":"go"}]})");
        const auto p = prepare(r, m, "id", 0);
        QCOMPARE(QString::fromStdString(tk.decode(p.generation.prompt)),
                 QStringLiteral("SYS:Be brief.\n\nWorking folder: /tmp/x\nuser:hi\nassistant:ok\nuser:go\nassistant:"));
        const QString mistral = QStringLiteral(FT_TESTDATA_DIR "/chat-templates/mistralai-Mistral-Nemo-Instruct-2407.jinja");
        QFile f(mistral);
        if (f.open(QIODevice::ReadOnly)) {
            ft::ChatTemplateSource ms;
            ms.text = f.readAll().toStdString();
            QVERIFY(!template_keeps_system_turns(ft::ChatTemplate(ms)));
        }
    }

    // The model's recommended sampling (ServedModel::sampling_defaults, from the file) fills what a request leaves
    // out, in each API; what a request sets (null: left out) stays.
    void samplingDefaultsFillOmittedFields() {
        ft::ChatTemplate tpl(ft::load_chat_template(kModel));
        const ft::Tokenizer tk = ft::Tokenizer::load(kModel);
        ServedModel m = served("m", 4096, tpl, tk);
        m.sampling_defaults.temperature = 0.f;
        m.sampling_defaults.top_p = 0.8f;
        m.sampling_defaults.top_k = 20;
        const std::string msgs = R"("messages":[{"role":"user","content":"hi"}])";
        for (const ApiRequest& r : {parse_anthropic_messages(R"({"model":"m","max_tokens":5,)" + msgs + "}"),
                                    parse_openai_chat(R"({"model":"m","temperature":null,)" + msgs + "}"),
                                    parse_openai_responses(R"({"model":"m","input":"hi"})")}) {
            const auto p = prepare(r, m, "id", 0);
            QCOMPARE(p.generation.sampling.temperature, 0.f);
            QCOMPARE(p.generation.sampling.top_p, 0.8f);
            QCOMPARE(p.generation.sampling.top_k, 20);
        }
        // The Responses object says what was used (it said the request's 1.0 before).
        {
            auto p = prepare(parse_openai_responses(R"({"model":"m","input":"hi"})"), m, "resp_1", 0);
            p.writer->token(tok("Hi"));
            p.writer->finish(fin(ft::FinishReason::stop, 3, 1));
            const json b = json::parse(p.writer->body());
            QCOMPARE(b["temperature"].get<double>(), 0.0);
            QCOMPARE(float(b["top_p"].get<double>()), 0.8f);
            auto set = prepare(parse_openai_responses(R"({"model":"m","input":"hi","temperature":0.5,"top_p":1})"), m, "resp_2", 0);
            set.writer->finish(fin(ft::FinishReason::stop, 3, 0));
            const json b2 = json::parse(set.writer->body());
            QCOMPARE(b2["temperature"].get<double>(), 0.5);
            QCOMPARE(b2["top_p"].get<double>(), 1.0);
        }
        const auto set = prepare(parse_openai_chat(R"({"model":"m","temperature":0.5,"top_p":1,"top_k":0,)" + msgs + "}"), m, "id", 0);
        QCOMPARE(set.generation.sampling.temperature, 0.5f);
        QCOMPARE(set.generation.sampling.top_p, 1.f);
        QCOMPARE(set.generation.sampling.top_k, 0);
        m.sampling_defaults = {};  // a file that recommends nothing: the APIs' own defaults
        QCOMPARE(prepare(parse_anthropic_messages(R"({"model":"m","max_tokens":5,)" + msgs + "}"), m, "id", 0).generation.sampling.temperature,
                 1.f);
    }

    // Anthropic blocks agents send beyond text: documents (text sources) read as text, images and PDFs a 400 naming
    // the block, server-tool history skipped, system turns anywhere.
    void anthropicBlocks() {
        const auto r = parse_anthropic_messages(R"({"model":"m","max_tokens":5,"metadata":{"user_id":"u"},"service_tier":"auto",
            "messages":[{"role":"user","content":[{"type":"document","title":"notes","source":{"type":"text","media_type":"text/plain","data":"D1"},"cache_control":{"type":"ephemeral"}},{"type":"text","text":"sum up"}]},
              {"role":"assistant","content":[{"type":"server_tool_use","id":"s","name":"web_search","input":{}},{"type":"web_search_tool_result","tool_use_id":"s","content":[]},{"type":"redacted_thinking","data":"x"},{"type":"text","text":"done"}]},
              {"role":"system","content":[{"type":"text","text":"reminder"}]},
              {"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"a"},{"type":"document","source":{"type":"content","content":[{"type":"text","text":"b"}]}}]}]}]})");
        const json m = json::parse(r.messages_json);
        QCOMPARE(m[0]["content"].get<std::string>(), std::string("notes\n\nD1\nsum up"));
        QCOMPARE(m[1]["content"].get<std::string>(), std::string("done"));
        QCOMPARE(m[2]["role"].get<std::string>(), std::string("system"));
        QCOMPARE(m[3]["content"].get<std::string>(), std::string("a\nb"));
        std::string type;
        for (const char* bad : {
                 R"({"model":"m","max_tokens":5,"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AA=="}}]}]}]})",
                 R"({"model":"m","max_tokens":5,"messages":[{"role":"user","content":[{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"AA=="}}]}]})",
                 R"({"model":"m","max_tokens":5,"messages":[{"role":"tool","content":"x"}]})"}) {
            try {
                parse_anthropic_messages(bad);
                QFAIL(bad);
            } catch (const ApiError& e) {
                QCOMPARE(e.status, 400);
                QVERIFY2(std::string(e.what()).find("messages.0") != std::string::npos, e.what());
            }
        }
    }

    // prepare(): the real template and tokenizer of the tiny model; model names; the context check.
    void prepareWithTinyModel() {
        ft::ChatTemplate tpl(ft::load_chat_template(kModel));
        const ft::Tokenizer tk = ft::Tokenizer::load(kModel);
        ServedModel m = served("tiny", 256, tpl, tk);
        m.aliases = {"claude-test"};
        auto r = parse_openai_chat(R"({"model":"tiny","messages":[{"role":"user","content":"Hello"}],"max_tokens":1000})");
        auto p = prepare(r, m, "id", 0);
        ft::ChatRenderRequest rr;
        rr.messages_json = R"([{"role":"user","content":"Hello"}])";
        ft::EncodeOptions eo;
        eo.parse_special = true;
        QCOMPARE(p.generation.prompt, tk.encode(tpl.apply(rr), eo));
        QCOMPARE(p.generation.max_tokens, 256 - p.prompt_tokens);  // clipped to the context
        r.model = "claude-test";
        QCOMPARE(status_of([&] { prepare(r, m, "id", 0); }), 0);
        r.model = "gpt-nothing";
        std::string type;
        QCOMPARE(status_of([&] { prepare(r, m, "id", 0); }, &type), 404);
        auto a = parse_anthropic_messages(R"({"model":"gpt-nothing","max_tokens":5,"messages":[{"role":"user","content":"x"}]})");
        QCOMPARE(status_of([&] { prepare(a, m, "id", 0); }, &type), 404);
        QCOMPARE(type, std::string("not_found_error"));
        try {
            prepare(a, m, "id", 0);
        } catch (const ApiError& e) {
            QCOMPARE(e.message_key.key, std::string("server_unknown_model"));
            QCOMPARE(e.message_key.args, (std::vector<std::string>{"gpt-nothing", m.id}));
        }
        // Context overflow: 400 context_length_exceeded.
        std::string longtext;
        for (int i = 0; i < 300; ++i) longtext += "word ";
        auto big = parse_openai_chat(json{{"model", "tiny"}, {"messages", {{{"role", "user"}, {"content", longtext}}}}}.dump());
        try {
            prepare(big, m, "id", 0);
            QFAIL("no context error");
        } catch (const ApiError& e) {
            QCOMPARE(e.status, 400);
            QCOMPARE(e.code, std::string("context_length_exceeded"));
            // "server_prompt_too_long" {the prompt's tokens, the context}.
            QCOMPARE(e.message_key.key, std::string("server_prompt_too_long"));
            QCOMPARE(e.message_key.args.size(), std::size_t(2));
            QCOMPARE(e.message_key.args[1], std::to_string(m.n_ctx));
            QVERIFY(std::stoi(e.message_key.args[0]) >= m.n_ctx);
        }
        // count_tokens renders the same prompt.
        auto c = parse_anthropic_messages(R"({"model":"tiny","messages":[{"role":"user","content":"Hello"}]})", true);
        QCOMPARE(count_prompt_tokens(c, m), p.prompt_tokens);
    }
};

FT_TEST_MAIN(TestServeApi)
#include "test_serve_api.moc"
