// The fuzz harness functions, shared by the libFuzzer targets (clang, -DFT_FUZZ=ON) and the CI smoke test (any
// compiler): parse untrusted bytes, then touch everything the parse produced. Only ft::Error may escape the parsers;
// the harnesses swallow it and let anything else through (libFuzzer reports it as a crash).
#pragma once

#include <cstddef>
#include <cstdint>

namespace ft::fuzz {

// Returns 1 when the input parsed as a valid file, 0 when it was rejected with ft::Error.
int gguf_one_input(const std::uint8_t* data, std::size_t size);
int safetensors_one_input(const std::uint8_t* data, std::size_t size);

// fuzz_harness_text.cpp. tool_parser: [format][flags][split seed] + model output; besides crashes it traps when the
// events break the parser contract (split feeding differs from one delta, an ended call's arguments are not a JSON
// object, text is not UTF-8). chat_template: template text [+ NUL + messages JSON]. tokenizer_json: a tokenizer.json.
int tool_parser_one_input(const std::uint8_t* data, std::size_t size);
int chat_template_one_input(const std::uint8_t* data, std::size_t size);
int tokenizer_json_one_input(const std::uint8_t* data, std::size_t size);

// fuzz_harness_request.cpp. The API server's request parsers: [endpoint][flags] + a request body (endpoint % 5:
// chat completions, completions, responses, messages, count_tokens), prepared against the tiny model and answered
// by the endpoint's writer; only 4xx ApiErrors (or ft::Error invalid_argument) may come out, outputs must be JSON.
int request_one_input(const std::uint8_t* data, std::size_t size);

}  // namespace ft::fuzz
