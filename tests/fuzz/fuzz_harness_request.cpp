// Fuzz harness of the API server's request parsers (engine/src/serve): a request body as a client sends it, parsed
// by the endpoint's parser, prepared against the tiny model's real chat template and tokenizer (api_prepare), and
// answered by the endpoint's writer fed a fixed model output (reasoning, text and a tool call), streamed or not.
//
// The server answers a client's mistake with a 4xx: only ApiError (4xx) and ft::Error(invalid_argument, which the
// server turns into a 400) may come out; anything else would be a 500 or a crash. The writer's output must be JSON
// (the body) and well-formed SSE frames of JSON (the stream), whatever the request asked for.
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "ft/chat_template.h"
#include "ft/error.h"
#include "ft/tokenizer.h"
#include "fuzz_harness.h"
#include "fuzz_harness_util.h"
#include "serve/api_request.h"
#include "serve/api_response.h"
#include "serve/response_store.h"

namespace ft::fuzz {

namespace {

using serve::ApiError;
using serve::Endpoint;

// The model the requests are prepared against, loaded once (a real Qwen3 template and tokenizer).
struct FuzzModel {
    ChatTemplate tpl;
    Tokenizer tok;
    serve::ServedModel served;
    FuzzModel()
        : tpl(load_chat_template(FT_SOURCE_DIR "/tests/data/qwen3-moe-tiny")),
          tok(Tokenizer::load(FT_SOURCE_DIR "/tests/data/qwen3-moe-tiny")) {
        served.id = "tiny";
        served.aliases = {"gpt-4o"};
        served.architecture = "qwen3_moe";
        served.n_ctx = 4096;
        served.chat_template = &tpl;
        served.tokenizer = &tok;
    }
};

const FuzzModel& model() {
    static const FuzzModel m;
    return m;
}

// A stored response the seeds continue with previous_response_id "resp_seed" (a tool call, then its output).
const serve::ResponseLookup& stored_responses() {
    static serve::ResponseStore store;
    static const bool seeded = store.put(
        "resp_seed",
        R"({"id":"resp_seed","object":"response","output":[{"id":"fc_1","type":"function_call","status":"completed",)"
        R"("call_id":"call_1","name":"close_agent","namespace":"ns","arguments":"{}"}]})",
        R"([{"type":"message","role":"user","content":[{"type":"input_text","text":"Read notes.txt"}]}])");
    (void)seeded;
    static const serve::ResponseLookup lookup = [](const std::string& id) -> std::optional<std::string> {
        auto r = store.get(id);
        if (!r) return std::nullopt;
        return r->items_json;
    };
    return lookup;
}

void check_api_error(const ApiError& e) {
    if (e.status < 400 || e.status >= 500) invariant_broken("a request error that is not a 4xx");
    if (std::string(e.what()).empty()) invariant_broken("an error without a message");
    for (auto p : {serve::Protocol::openai, serve::Protocol::anthropic}) {
        const auto j = nlohmann::json::parse(serve::error_body(p, e), nullptr, false);
        if (j.is_discarded() || !j.is_object()) invariant_broken("an error body that is not a JSON object");
    }
}

// Each SSE frame ends with a blank line and its data is JSON (or [DONE]).
void check_sse(const std::string& s) {
    std::size_t pos = 0;
    while (pos < s.size()) {
        const std::size_t end = s.find("\n\n", pos);
        if (end == std::string::npos) invariant_broken("an SSE frame without its blank line");
        const std::string frame = s.substr(pos, end - pos);
        pos = end + 2;
        const std::size_t d = frame.find("data: ");
        if (d == std::string::npos) invariant_broken("an SSE frame without data");
        const std::string data = frame.substr(d + 6);
        if (data == "[DONE]") continue;
        const auto j = nlohmann::json::parse(data, nullptr, false);
        if (j.is_discarded() || !j.is_object()) invariant_broken("SSE data that is not a JSON object");
    }
}

// The model output every prepared request is answered with (Qwen3 markup, cut inside its tags).
const char* const kOutput[] = {"<thi", "nk>\nhm", "m\n</think>\n\nHel", "lo \xe4\xbd", "\xa0", "\n<tool_call>\n{\"name\": \"f\", ",
                               "\"arguments\": {\"s\": \"x\"}}\n</tool_call>"};

}  // namespace

int request_one_input(const std::uint8_t* data, std::size_t size) {
    // [endpoint][flags] + the request body. Flags bit 0: the stream finishes at the length limit.
    if (size < 2) return 0;
    const std::string body(reinterpret_cast<const char*>(data) + 2, size - 2);
    g_input = std::string_view(reinterpret_cast<const char*>(data), size);
    const int which = data[0] % 5;
    const bool cut = (data[1] & 1) != 0;
    try {
        serve::ApiRequest r;
        switch (which) {
        case 0: r = serve::parse_openai_chat(body); break;
        case 1: r = serve::parse_openai_completion(body); break;
        case 2: r = serve::parse_openai_responses(body, stored_responses()); break;
        case 3: r = serve::parse_anthropic_messages(body); break;
        default: r = serve::parse_anthropic_messages(body, true); break;
        }
        const FuzzModel& m = model();
        if (r.endpoint == Endpoint::count_tokens) {
            g_sink = g_sink + std::uint64_t(serve::count_prompt_tokens(r, m.served));
            return 1;
        }
        serve::PreparedRequest p = serve::prepare(r, m.served, "resp_fuzz", 0);
        if (p.generation.prompt.empty() || p.generation.max_tokens < 0) invariant_broken("a prepared request without a prompt");
        for (std::int32_t t : p.generation.prompt)
            if (t < 0 || t >= m.tok.vocab_size()) invariant_broken("a prompt token outside the vocabulary");
        std::string out = p.writer->start();
        int n = 0;
        for (const char* piece : kOutput) {
            TokenEvent ev;
            ev.token = 1 + n;
            ev.text = piece;
            ev.logprob = -0.25f;
            ev.top_logprobs = {{ev.token, -0.25f}, {7, -2.f}};
            out += p.writer->token(ev);
            ++n;
        }
        FinishEvent fin;
        fin.reason = cut ? FinishReason::length : FinishReason::stop;
        fin.prompt_tokens = p.prompt_tokens;
        fin.completion_tokens = n;
        out += p.writer->finish(fin);
        if (r.stream) {
            out += p.writer->stream_error(serve::bad_request("late"));
            check_sse(out);
        } else {
            const auto j = nlohmann::json::parse(p.writer->body(), nullptr, false);
            if (j.is_discarded() || !j.is_object()) invariant_broken("a response body that is not a JSON object");
        }
        g_sink = g_sink + out.size();
        return 1;
    } catch (const ApiError& e) {
        check_api_error(e);
        return 0;
    } catch (const Error& e) {
        if (e.code() != ErrorCode::invalid_argument) invariant_broken("an ft::Error the server would answer with a 500");
        return 0;
    } catch (const std::exception& e) {
        escaped(e);
    }
}

}  // namespace ft::fuzz
