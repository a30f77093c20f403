// Fuzz harnesses of the chat-template interpreter (a template from a downloaded model + request messages) and the
// tokenizer.json loader.
#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "ft/error.h"
#include "ft/tokenizer.h"
#include "fuzz_harness.h"
#include "fuzz_harness_util.h"
#include "tokenizer/chat_template.h"
#include "tokenizer/jinja_interpreter.h"

#if defined(_WIN32)
#include <process.h>
#define FT_GETPID _getpid
#else
#include <unistd.h>
#define FT_GETPID getpid
#endif

namespace ft::fuzz {

int chat_template_one_input(const std::uint8_t* data, std::size_t size) {
    // The template text, then optionally a NUL and the messages JSON.
    const std::string_view all(reinterpret_cast<const char*>(data), size);
    g_input = all;
    const std::size_t nul = all.find('\0');
    const std::string_view source = all.substr(0, nul);
    using nlohmann::ordered_json;
    ordered_json messages = ordered_json::array(
        {{{"role", "system"}, {"content", "Be brief."}}, {{"role", "user"}, {"content", "Hi"}},
         {{"role", "assistant"}, {"content", "Hello"}, {"reasoning_content", "greet"}},
         {{"role", "user"}, {"content", "Weather?"}}});
    if (nul != std::string_view::npos) {
        const std::string_view m = all.substr(nul + 1);
        ordered_json j = ordered_json::parse(m.begin(), m.end(), nullptr, false);
        if (!j.is_discarded()) messages = std::move(j);
    }
    try {
        const jinja::Template tpl(source, "fuzz template");
        jinja::RenderOptions options;
        options.now = jinja::parse_fixed_time("2026-01-02 03:04:05");
        // Tighter limits than a real render, so that one input costs milliseconds, not seconds.
        options.limits.max_output_bytes = 1u << 20;
        options.limits.max_loop_iterations = 100'000;
        options.limits.max_range = 10'000;
        options.limits.max_call_depth = 50;
        ordered_json context = {{"messages", messages}, {"add_generation_prompt", true}, {"bos_token", "<s>"},
                                {"eos_token", "</s>"}};
        context["tools"] = ordered_json::parse(std::string_view(kFuzzTools));
        try {
            context["messages"] = chat::normalize_messages(messages);
        } catch (const Error&) {
        }
        const std::string out = chat::render_json_context(tpl, context, options);
        g_sink = g_sink + out.size();
        return 1;
    } catch (const Error&) {
        return 0;
    } catch (const std::exception& e) {
        escaped(e);
    }
}

int tokenizer_json_one_input(const std::uint8_t* data, std::size_t size) {
    g_input = std::string_view(reinterpret_cast<const char*>(data), size);
    // The loader reads a file: write the input to this process's scratch file first.
    static const std::filesystem::path path =
        std::filesystem::temp_directory_path() / ("ft-fuzz-tokenizer-" + std::to_string(FT_GETPID()) + ".json");
    {
        std::ofstream f(path, std::ios::binary | std::ios::trunc);
        f.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    }
    try {
        const Tokenizer t = Tokenizer::from_hf(path);
        for (const char* text : {"Hello world", " 12345 caf\xc3\xa9 \xe4\xbd\xa0\xe5\xa5\xbd\n\n\t!?", "<|im_start|>user",
                                 "\xff\xfe", ""}) {
            for (bool special : {false, true}) {
                EncodeOptions eo;
                eo.add_special = special;
                eo.parse_special = special;
                const auto ids = t.encode(text, eo);
                for (std::int32_t id : ids)
                    if (id < 0 || id >= t.vocab_size()) invariant_broken("encode gave an id outside the vocabulary");
                g_sink = g_sink + t.decode(ids).size();
            }
        }
        const std::int32_t n = std::min<std::int32_t>(t.vocab_size(), 4096);
        for (std::int32_t id = 0; id < n; ++id) {
            g_sink = g_sink + t.token_to_bytes(id).size() + t.token_text(id).size();
            (void)t.token_kind(id);
        }
        std::vector<std::int32_t> all(static_cast<std::size_t>(n));
        for (std::int32_t id = 0; id < n; ++id) all[static_cast<std::size_t>(id)] = id;
        g_sink = g_sink + t.decode(all, true).size() + t.decode(all, false).size();
        (void)t.eog_ids();
        return 1;
    } catch (const Error&) {
        return 0;
    } catch (const std::exception& e) {
        escaped(e);
    }
}

}  // namespace ft::fuzz
