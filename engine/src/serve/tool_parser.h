// Streaming tool-call and reasoning parsers of the API server (transport-free, no Qt).
//
// A parser is fed the text the model generates, in arbitrary deltas (one token's text at a time; a tag such as
// "</think>" or "<｜tool▁call▁begin｜>" may be split across deltas, and so may a UTF-8 character), and turns it into
// an ordered list of events: reasoning text, content text, and tool calls (begin, argument JSON text as it arrives,
// end). It holds back only what it must: a suffix that may be the start of a tag, an incomplete UTF-8 character,
// whitespace it may trim, or (where a format gives no other choice) a parameter value until its type is known.
//
// The detokenizer must render special tokens as text ("<|channel|>", "<｜tool▁sep｜>"…): the formats' markers are
// special tokens in most of these models.
//
// Guarantees, whatever the model writes:
//   * the concatenated tool_args texts of one call are one valid JSON object (when the call ends with tool_end);
//     a call that turns out malformed after it began ends with an `error` event for its index instead;
//   * a call that is malformed before anything of it was emitted comes out as content, unchanged;
//   * feeding the same text in any split gives the same events, up to how adjacent text deltas are cut;
//   * nothing but ft::Error (bad options only, from the factory) is thrown.
//
// Threading: a parser is a plain value with no shared state; use one per generated message, on one thread.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace ft::serve {

enum class ToolEventKind {
    reasoning,   // text: a delta of reasoning ("thinking") text
    content,     // text: a delta of the visible answer
    tool_begin,  // index, id, name: a tool call starts
    tool_args,   // index, text: a delta of the call's arguments JSON text
    tool_end,    // index: the call is complete; its tool_args concatenate to a valid JSON object
    error,       // index (-1 when not about a call), text: why the model's output could not be parsed
};

struct ToolEvent {
    ToolEventKind kind = ToolEventKind::content;
    std::string text;
    int index = -1;    // 0-based number of the tool call within this message
    std::string id;    // tool_begin only
    std::string name;  // tool_begin only
};

enum class ToolFormat {
    none,         // plain text (still splits <think>…</think> when reasoning is on)
    qwen3,        // Qwen2.5 / Qwen3: <think>…</think>, <tool_call>\n{"name":…, "arguments":{…}}\n</tool_call>
    qwen3_coder,  // Qwen3-Coder / Qwen3.5: <tool_call><function=NAME><parameter=P>v</parameter></function></tool_call>
    deepseek_v3,  // DeepSeek-V3 / R1 / V3.1: <think>…</think>, <｜tool▁calls▁begin｜>…<｜tool▁calls▁end｜>
    glm4_moe,     // GLM-4.5 / 4.6: <think>…</think>, <tool_call>NAME<arg_key>k</arg_key><arg_value>v</arg_value>
    harmony,      // gpt-oss: <|channel|>analysis|final|commentary to=functions.NAME … <|message|>…<|end|>/<|call|>
};

struct ToolParserOptions {
    // The prompt already opened a think block (a Qwen3/DeepSeek-R1 template that ends with "<think>\n"): the output
    // starts as reasoning. Use prompt_opens_think() on the rendered prompt to find out. A prompt that ends with an
    // empty, closed block ("<think>\n\n</think>\n\n", thinking off) does not open one.
    bool prompt_opened_think = false;
    // false: nothing is reported as reasoning; think blocks are passed through as content, tags included.
    bool reasoning = true;
    // false: tool-call markup is passed through as content (the request had no tools).
    bool tools = true;
    // The request's tools as JSON text, in OpenAI form ([{"type":"function","function":{"name",…,"parameters"}}])
    // or Anthropic form ([{"name",…,"input_schema"}]); may be empty. Used to type the parameter values of the XML
    // formats (qwen3_coder, glm4_moe): a parameter declared "string" stays a string, "integer" becomes a number, …
    std::string tools_json;
    // Tool call ids are id_prefix + index; give each request its own prefix (e.g. "call_<request id>_").
    std::string id_prefix = "call_";
};

class ToolParser {
public:
    virtual ~ToolParser() = default;
    // Consumes the next piece of generated text and appends the events it completes to `out`.
    virtual void feed(std::string_view delta, std::vector<ToolEvent>& out) = 0;
    // The generation ended: flushes what was held back (an unclosed think block's text as reasoning, an unclosed
    // tool call as an error event or as content). Feeding after finish() starts a new message.
    virtual void finish(std::vector<ToolEvent>& out) = 0;
    virtual ToolFormat format() const = 0;
    // Number of tool calls begun in this message so far (after finish(): in the message just finished, e.g. to
    // choose finish_reason "tool_calls").
    virtual int tool_calls() const = 0;
};

// Picks the format from the chat template's text (its markers win: Qwen3-Coder shares the qwen3_moe architecture
// with Qwen3) and otherwise from the architecture name ("qwen3_moe", "qwen3_5_moe", "deepseek_v3", "glm4_moe",
// "gpt_oss", …). Unknown both ways: none.
ToolFormat tool_format_detect(std::string_view architecture, std::string_view chat_template);

// Throws ft::Error (invalid_argument) when options.tools_json is not a JSON array of tools.
std::unique_ptr<ToolParser> tool_parser_make(ToolFormat format, const ToolParserOptions& options);

// tool_parser_make(tool_format_detect(architecture, chat_template), options).
std::unique_ptr<ToolParser> tool_parser_for_model(std::string_view architecture, std::string_view chat_template,
                                                  const ToolParserOptions& options);

// True when the rendered prompt ends inside an open think block ("…<think>\n", trailing whitespace ignored).
bool prompt_opens_think(std::string_view rendered_prompt);

std::string_view tool_format_name(ToolFormat format);

// Merges adjacent text events of the same kind and call (reasoning, content, tool_args) and drops empty ones:
// the canonical form in which two splits of the same text compare equal.
std::vector<ToolEvent> tool_events_coalesce(const std::vector<ToolEvent>& events);

}  // namespace ft::serve
