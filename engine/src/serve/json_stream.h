// Incremental JSON syntax checker: fed one byte at a time, it says whether what it has seen is still the prefix of
// a valid JSON text (RFC 8259, strings checked to be well-formed UTF-8) and when the top-level value is complete.
// The tool-call parsers use it to stream argument JSON the moment it arrives and still promise a valid object.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ft::serve {

class JsonStreamChecker {
public:
    enum class Status { more, done, error };

    // `object_only`: the top-level value must be an object (tool-call arguments).
    explicit JsonStreamChecker(bool object_only = true) : object_only_(object_only) {}

    // Feeds one byte. `done` is returned once, for the byte that completes the top-level value; bytes after it are
    // errors unless whitespace. A top-level number cannot complete before the byte that follows it.
    Status put(char c);
    // The input ended: `done` if the top-level value is complete (or a top-level number ends here).
    Status end();

    bool started() const { return state_ != State::start; }
    bool complete() const { return state_ == State::finished; }
    // Inside a multi-byte UTF-8 character (its lead byte accepted, a continuation byte still due).
    bool mid_character() const { return state_ == State::utf8; }
    // Why the last byte was rejected (empty while valid).
    const std::string& error() const { return error_; }

private:
    enum class State : std::uint8_t {
        start, value, array_first, object_first, object_key, colon, after_value, string, escape, unicode,
        utf8, num_minus, num_zero, num_int, num_dot, num_frac, num_exp, num_exp_sign, num_exp_digits, literal,
        finished, failed
    };
    Status fail(const char* why);
    Status begin_value(char c);
    Status value_done();
    Status after_number(char c);
    Status number_char(char c, State next);

    bool object_only_;
    State state_ = State::start;
    bool string_is_key_ = false;
    int hex_left_ = 0;
    unsigned code_ = 0;        // the \u escape being read
    bool want_low_ = false;    // a high surrogate escape needs its low half next
    int utf8_left_ = 0;
    unsigned char utf8_lo_ = 0x80, utf8_hi_ = 0xbf;  // allowed range of the next continuation byte
    const char* literal_ = nullptr;
    int literal_pos_ = 0;
    std::vector<char> stack_;  // '{' or '['
    std::string number_;       // the number being read (to reject what overflows a double, as parsers do)
    std::string error_;
};

}  // namespace ft::serve
