// Chat templates: turn a conversation (OpenAI-style messages, tools) into the prompt text a model expects, by
// rendering the model's Jinja chat template with the engine's own interpreter, configured like Hugging Face
// transformers' apply_chat_template (trim_blocks, lstrip_blocks, loop controls, tojson = json.dumps with ", " and
// ": " separators and key order kept, raise_exception, strftime_now).
//
// Threading: a ChatTemplate is immutable after construction; apply()/render_context() may run concurrently.
// Errors: ft::Error. invalid_file: the template does not parse (message names the line and column) or a model/config
// file is malformed; not_found: the model has no chat template; invalid_argument: the messages/tools/context JSON is
// malformed, or rendering failed (undefined value misuse, a type error, the template's raise_exception(), …; the
// message names the template line and column); out_of_memory: the template exceeded a render limit (64 MiB of
// output, 10 million loop iterations, macro recursion depth 200).
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>

namespace ft {

// A chat template and the special-token strings it is rendered with.
struct ChatTemplateSource {
    std::string text;       // the Jinja source
    std::string bos_token;  // "" when the model defines none
    std::string eos_token;
    std::string origin;     // where it came from, for messages ("model.gguf: tokenizer.chat_template")
};

// Reads the chat template and BOS/EOS strings of a model:
//  - a GGUF file: `tokenizer.chat_template` (or `tokenizer.chat_template.<name>`), BOS/EOS from
//    `tokenizer.ggml.{bos,eos}_token_id` looked up in `tokenizer.ggml.tokens`;
//  - a Hugging Face folder: `chat_template.jinja` if present, else `tokenizer_config.json`'s `chat_template`, else
//    `chat_template.json`; bos_token/eos_token from tokenizer_config.json (strings or AddedToken objects);
//  - a tokenizer_config.json (or any .json file beside one, e.g. tokenizer.json).
// `name` picks one of several named templates (HF's list form, e.g. "tool_use"); empty means "default".
// With require_template=false a model without a chat template gives an empty `text` (BOS/EOS still read), for
// callers that bring their own template.
ChatTemplateSource load_chat_template(const std::filesystem::path& model, const std::string& name = {},
                                      bool require_template = true);

struct ChatRenderRequest {
    std::string messages_json;            // JSON array of {role, content, tool_calls?, tool_call_id?, reasoning_content?, …}
    std::string tools_json;               // JSON array of tool definitions; empty: `tools` stays undefined
    bool add_generation_prompt = true;
    std::optional<bool> enable_thinking;  // unset: `enable_thinking` stays undefined (the template's default)
    std::string extra_json;               // JSON object of further variables (e.g. {"reasoning_effort": "high"})
    std::optional<std::string> now;       // "YYYY-MM-DD HH:MM:SS": the clock strftime_now reads; unset: local time
};

class ChatTemplate {
public:
    // Parses the template. Throws ft::Error(invalid_file) naming the line and column of a syntax error.
    explicit ChatTemplate(ChatTemplateSource source);
    ~ChatTemplate();
    ChatTemplate(ChatTemplate&&) noexcept;
    ChatTemplate& operator=(ChatTemplate&&) noexcept;

    // Renders a conversation. Variables: messages, tools (if given), add_generation_prompt, bos_token, eos_token,
    // enable_thinking (if set), then extra_json's keys. Messages are passed as given (key order kept), except that
    // a tool call's `function.arguments` given as a JSON string holding an object becomes that object (the HF
    // convention the templates expect; OpenAI clients send strings).
    std::string apply(const ChatRenderRequest& request) const;

    // Renders with exactly the variables of a JSON object (nothing else defined). `now` as in ChatRenderRequest.
    std::string render_context(const std::string& context_json, const std::optional<std::string>& now = {}) const;

    const ChatTemplateSource& source() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace ft
