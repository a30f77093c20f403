#include <cstdio>
#include <fstream>
#include <sstream>

#include "commands.h"
#include "engine_options.h"
#include "ft/engine.h"
#include "ft/error.h"
#include "ft/tokenizer.h"
#include "ft/utf8.h"

namespace ft::cli {

const CommandSpec& spec_run() {
    static const CommandSpec spec{
        "run",
        "[--model PATH] (--prompt TEXT | --ids 1,2,3) [--max-tokens N] [sampling flags]",
        "raw completion of a prompt",
        "Runs a raw completion (no chat template): the prompt is tokenized as is (special-token text such as "
        "<|im_start|> is recognised) and the continuation is streamed to standard output. Figures (prompt tokens, "
        "time to first token, tok/s) go to standard error. Without --model it runs the bundled demo model "
        "(freetoken-demo.gguf: a small Qwen3-MoE model trained for trying FreeToken).",
        concat(concat(load_option_specs(true), sampling_option_specs()),
               {
                   {"prompt", "TEXT", "prompt text", ""},
                   {"ids", "LIST", "prompt as comma-separated token ids", ""},
                   {"max-tokens", "N", "tokens to generate", "128"},
                   {"stop", "TEXT", "stop string (repeatable)", "", true},
                   {"ignore-eos", "", "continue past end-of-generation tokens", ""},
                   {"print-ids", "", "print the generated token ids (one line, comma-separated) after the text", ""},
                   {"logits-out", "FILE", "write float32 logits [prompt positions x vocab] of the prompt and exit", ""},
               }),
        "",
    };
    return spec;
}

namespace {
std::vector<std::int32_t> parse_ids(const std::string& s) {
    std::vector<std::int32_t> ids;
    std::stringstream ss(s);
    std::string item;
    while (std::getline(ss, item, ',')) {
        if (item.empty()) continue;
        char* end = nullptr;
        const long v = std::strtol(item.c_str(), &end, 10);
        if (*end != '\0' || v < 0 || v > INT32_MAX)
            throw Error(ErrorCode::invalid_argument, "--ids: '" + item + "' is not a token id");
        ids.push_back(std::int32_t(v));
    }
    if (ids.empty()) throw Error(ErrorCode::invalid_argument, "--ids is empty");
    return ids;
}
}  // namespace

int run_run(const Args& args) {
    const LoadOptions lo = load_options_from(args, true);
    const bool has_prompt = args.has("prompt"), has_ids = args.has("ids");
    if (has_prompt == has_ids) throw Error(ErrorCode::invalid_argument, "give exactly one of --prompt and --ids");
    Engine engine;
    const ModelInfo info = engine.load_sync(lo);
    std::fprintf(stderr, "model: %s (%s), %s, loaded in %.2f s\n", info.name.c_str(), info.architecture.c_str(),
                 info.device.c_str(), info.load_seconds);

    std::vector<std::int32_t> ids;
    if (has_ids) ids = parse_ids(*args.get("ids"));

    if (auto out = args.get_path("logits-out")) {
        if (ids.empty()) {
            EncodeOptions eo;
            eo.add_special = true;
            eo.parse_special = true;
            ids = engine.tokenizer().encode(*args.get("prompt"), eo);
        }
        const auto logits = engine.evaluate_logits(ids);
        std::ofstream f(*out, std::ios::binary);
        f.write(reinterpret_cast<const char*>(logits.data()), std::streamsize(logits.size() * sizeof(float)));
        if (!f) throw Error(ErrorCode::io, "cannot write " + path_to_utf8(*out));
        std::fprintf(stderr, "wrote %zu x %u float32 logits to %s\n", ids.size(), info.n_vocab, path_to_utf8(*out).c_str());
        return 0;
    }

    GenerationRequest req;
    req.prompt = ids;
    if (!has_ids) req.prompt_text = *args.get("prompt");
    req.sampling = sampling_from(args);
    req.max_tokens = int(args.get_int("max-tokens", 128));
    req.stop = args.get_all("stop");
    req.ignore_eos = args.has("ignore-eos");
    std::vector<std::int32_t> generated;
    const FinishEvent fin = generate(engine, std::move(req), [&](const TokenEvent& ev) {
        if (ev.token >= 0) generated.push_back(ev.token);
        std::fwrite(ev.text.data(), 1, ev.text.size(), stdout);
        std::fflush(stdout);
    });
    std::printf("\n");
    if (args.has("print-ids")) {
        for (std::size_t i = 0; i < generated.size(); ++i) std::printf("%s%d", i ? "," : "", generated[i]);
        std::printf("\n");
    }
    std::fprintf(stderr, "[%s] prompt %d tokens, generated %d; TTFT %.1f ms, prefill %.1f tok/s, decode %.2f tok/s\n",
                 std::string(finish_reason_name(fin.reason)).c_str(), fin.prompt_tokens, fin.completion_tokens,
                 fin.ttft_ms, fin.prefill_tok_s, fin.decode_tok_s);
    return 0;
}

}  // namespace ft::cli
