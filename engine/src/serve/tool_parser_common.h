// Shared machinery of the tool-call parsers: tag search with hold-back of partial tags, UTF-8 hold-back and
// repair, whitespace-trimming text channels, the think-block phase, and the tool-call event helpers.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>

#include "serve/json_stream.h"
#include "serve/tool_parser.h"
#include "serve/tool_schema.h"

namespace ft::serve {

using Tags = std::initializer_list<std::string_view>;

// Bytes at the end of `s` that begin a UTF-8 character not yet complete (0..3).
std::size_t utf8_incomplete_tail(std::string_view s);
// `s` with every ill-formed UTF-8 sequence replaced by U+FFFD.
std::string utf8_sanitize(std::string_view s);

struct TagHit {
    std::size_t pos = std::string_view::npos;
    int tag = -1;  // index into the tag list; -1: none found
};
// The earliest occurrence of any tag (at equal positions the longest).
TagHit tag_find(std::string_view s, Tags tags);
// The longest suffix of `s` that is a proper prefix of some tag (it may still grow into that tag).
std::size_t tag_partial_suffix(std::string_view s, Tags tags);

inline bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// Emits reasoning or content text; drops whitespace at the start of a block and holds whitespace at its end until
// more text follows (so "\n\n" before a tool call or after </think> never becomes a delta of its own).
class TextChannel {
public:
    explicit TextChannel(ToolEventKind kind) : kind_(kind) {}
    void put(std::string_view s, std::vector<ToolEvent>& out);
    void end_block() {
        held_.clear();
        at_start_ = true;
    }

private:
    ToolEventKind kind_;
    bool at_start_ = true;
    std::string held_;
};

class XmlArgs;

class ParserBase : public ToolParser {
    friend class XmlArgs;

public:
    ParserBase(const ToolParserOptions& options, bool think_blocks);
    void feed(std::string_view delta, std::vector<ToolEvent>& out) final;
    void finish(std::vector<ToolEvent>& out) final;
    int tool_calls() const final { return calls_ + (in_call_ ? 1 : 0); }

protected:
    // One step of the format's own states once past the think block; false when it needs more input (or, in
    // finish, when nothing is left). Must consume input or change state when it returns true.
    virtual bool body_step() = 0;
    // finish(): the input is exhausted and body_step() made no progress; flush what is held, leave buf_ empty.
    virtual void body_end() = 0;
    // Back to the initial state (after finish()).
    virtual void body_reset() = 0;

    // Content text until the first tag: emits the text before it, consumes the tag, returns its index; or emits what
    // cannot belong to a tag and returns -1.
    int text_until(TextChannel& ch, Tags tags);
    // After optional whitespace, does buf_ start with one of the tags? Its index (whitespace and tag consumed);
    // -2: buf_ could still become one (wait); -1: no.
    int expect(Tags tags, bool skip_space = true);
    // Moves raw text up to `tag` into dst; true (tag consumed) when found.
    bool collect_until(std::string& dst, Tags tags, int* which = nullptr);

    // Streams argument JSON from buf_ through the checker: emits what it accepted; on `error` the call has been
    // ended with an error event (the offending byte left in buf_).
    JsonStreamChecker::Status stream_args(JsonStreamChecker& checker);

    void call_begin(std::string name);
    void call_args(std::string_view json_text);
    void call_end();
    void call_error(const std::string& why);
    bool in_call() const { return in_call_; }
    const std::string& call_name() const { return call_name_; }
    // Raw markup that turned out not to be a tool call: shown as content.
    void as_content(std::string_view raw) { content_.put(raw, *out_); }

    ToolParserOptions opt_;
    ToolSchemas schemas_;
    std::string buf_;
    std::vector<ToolEvent>* out_ = nullptr;
    bool final_ = false;
    TextChannel content_{ToolEventKind::content};
    TextChannel reasoning_{ToolEventKind::reasoning};

private:
    enum class Phase { start, reasoning, body };
    bool step();
    Phase initial_phase() const;

    bool think_blocks_;
    Phase phase_;
    int calls_ = 0;
    bool in_call_ = false;
    bool finished_ = false;
    std::string args_pending_;  // args bytes checked but not emitted: an incomplete UTF-8 character
    std::string call_name_;
};

// Argument JSON built from name/value pairs (the XML formats): {"k": v, …}, string values streamed as they arrive.
class XmlArgs {
public:
    void open(ParserBase& p);
    void key(std::string_view name);
    void string_begin() { emit("\""); }
    void string_chunk(std::string_view raw) { emit(json_escape_string_body(raw)); }
    void string_end() { emit("\""); }
    void value(std::string_view json_text) { emit(json_text); }
    void close() { emit("}"); }

private:
    void emit(std::string_view s);
    ParserBase* p_ = nullptr;
    bool any_ = false;
};

}  // namespace ft::serve
