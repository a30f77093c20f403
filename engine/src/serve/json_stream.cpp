#include "serve/json_stream.h"

#include <charconv>
#include <cstring>
#include <system_error>

namespace ft::serve {

namespace {

bool is_ws(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

// Whether a JSON number (valid syntax) overflows a double, as parsers reject it (underflow to 0 is accepted).
// from_chars, not strtod: no locale.
bool number_overflows(const std::string& n) {
    double v = 0;
    const auto r = std::from_chars(n.data(), n.data() + n.size(), v);
    if (r.ec != std::errc::result_out_of_range) return false;
    // Out of range either way: overflow when the decimal magnitude is positive.
    long long magnitude = 0;
    bool seen_dot = false, seen_nonzero = false;
    std::size_t i = n[0] == '-' ? 1 : 0;
    long long int_digits = 0, lead_zeros_after_dot = 0;
    for (; i < n.size() && n[i] != 'e' && n[i] != 'E'; ++i) {
        if (n[i] == '.') {
            seen_dot = true;
        } else if (!seen_nonzero && n[i] == '0') {
            if (seen_dot) ++lead_zeros_after_dot;
        } else {
            seen_nonzero = true;
            if (!seen_dot) ++int_digits;
        }
    }
    long long exp = 0;
    if (i < n.size()) {
        bool neg = false;
        std::size_t j = i + 1;
        if (j < n.size() && (n[j] == '+' || n[j] == '-')) neg = n[j++] == '-';
        for (; j < n.size(); ++j) exp = std::min<long long>(exp * 10 + (n[j] - '0'), 1'000'000'000);
        if (neg) exp = -exp;
    }
    magnitude = (int_digits > 0 ? int_digits : -lead_zeros_after_dot) + exp;
    return magnitude > 0;
}

}  // namespace

JsonStreamChecker::Status JsonStreamChecker::fail(const char* why) {
    state_ = State::failed;
    error_ = why;
    return Status::error;
}

JsonStreamChecker::Status JsonStreamChecker::value_done() {
    if (stack_.empty()) {
        state_ = State::finished;
        return Status::done;
    }
    state_ = State::after_value;
    return Status::more;
}

JsonStreamChecker::Status JsonStreamChecker::begin_value(char c) {
    switch (c) {
        case '{':
            if (stack_.size() >= 512) return fail("JSON nested too deeply");
            stack_.push_back('{');
            state_ = State::object_first;
            return Status::more;
        case '[':
            if (stack_.size() >= 512) return fail("JSON nested too deeply");
            stack_.push_back('[');
            state_ = State::array_first;
            return Status::more;
        case '"':
            string_is_key_ = false;
            state_ = State::string;
            return Status::more;
        case '-': number_.clear(); return number_char(c, State::num_minus);
        case '0': number_.clear(); return number_char(c, State::num_zero);
        case 't': literal_ = "true"; break;
        case 'f': literal_ = "false"; break;
        case 'n': literal_ = "null"; break;
        default:
            if (c >= '1' && c <= '9') {
                number_.clear();
                return number_char(c, State::num_int);
            }
            return fail("unexpected character where a JSON value should start");
    }
    literal_pos_ = 1;
    state_ = State::literal;
    return Status::more;
}

// A number ended at `c` (which is not part of it): the number is a complete value, then `c` is read after it.
JsonStreamChecker::Status JsonStreamChecker::number_char(char c, State next) {
    number_ += c;
    state_ = next;
    return Status::more;
}

JsonStreamChecker::Status JsonStreamChecker::after_number(char c) {
    // 1e400 is valid JSON text but no parser can hold it (nlohmann rejects it): not valid arguments.
    if (number_overflows(number_)) return fail("a JSON number out of the range of a double");
    if (stack_.empty()) {
        state_ = State::finished;
        return is_ws(c) ? Status::done : fail("unexpected character after a JSON number");
    }
    state_ = State::after_value;
    return put(c);
}

JsonStreamChecker::Status JsonStreamChecker::put(char c) {
    const auto u = static_cast<unsigned char>(c);
    switch (state_) {
        case State::failed: return Status::error;
        case State::finished: return is_ws(c) ? Status::more : fail("text after the end of the JSON value");
        case State::start:
            if (is_ws(c)) return Status::more;
            if (object_only_ && c != '{') return fail("the arguments are not a JSON object");
            return begin_value(c);
        case State::value:
            if (is_ws(c)) return Status::more;
            return begin_value(c);
        case State::array_first:
            if (is_ws(c)) return Status::more;
            if (c == ']') {
                stack_.pop_back();
                return value_done();
            }
            return begin_value(c);
        case State::object_first:
        case State::object_key:
            if (is_ws(c)) return Status::more;
            if (c == '}' && state_ == State::object_first) {
                stack_.pop_back();
                return value_done();
            }
            if (c != '"') return fail("expected a quoted key in a JSON object");
            string_is_key_ = true;
            state_ = State::string;
            return Status::more;
        case State::colon:
            if (is_ws(c)) return Status::more;
            if (c != ':') return fail("expected ':' after a JSON object key");
            state_ = State::value;
            return Status::more;
        case State::after_value:
            if (is_ws(c)) return Status::more;
            if (c == ',') {
                state_ = stack_.back() == '{' ? State::object_key : State::value;
                return Status::more;
            }
            if ((c == '}' && stack_.back() == '{') || (c == ']' && stack_.back() == '[')) {
                stack_.pop_back();
                return value_done();
            }
            return fail("expected ',' or the end of a JSON object or array");
        case State::string:
            if (want_low_ && c != '\\') return fail("a \\u surrogate escape without its second half");
            if (c == '"') {
                if (string_is_key_) {
                    state_ = State::colon;
                    return Status::more;
                }
                return value_done();
            }
            if (c == '\\') {
                state_ = State::escape;
                return Status::more;
            }
            if (u < 0x20) return fail("control character inside a JSON string");
            if (u < 0x80) return Status::more;
            // UTF-8 lead byte (RFC 3629 table: no overlongs, no surrogates, nothing above U+10FFFF).
            utf8_lo_ = 0x80;
            utf8_hi_ = 0xbf;
            if (u >= 0xc2 && u <= 0xdf) {
                utf8_left_ = 1;
            } else if (u >= 0xe0 && u <= 0xef) {
                utf8_left_ = 2;
                if (u == 0xe0) utf8_lo_ = 0xa0;
                if (u == 0xed) utf8_hi_ = 0x9f;
            } else if (u >= 0xf0 && u <= 0xf4) {
                utf8_left_ = 3;
                if (u == 0xf0) utf8_lo_ = 0x90;
                if (u == 0xf4) utf8_hi_ = 0x8f;
            } else {
                return fail("invalid UTF-8 inside a JSON string");
            }
            state_ = State::utf8;
            return Status::more;
        case State::utf8:
            if (u < utf8_lo_ || u > utf8_hi_) return fail("invalid UTF-8 inside a JSON string");
            utf8_lo_ = 0x80;
            utf8_hi_ = 0xbf;
            if (--utf8_left_ == 0) state_ = State::string;
            return Status::more;
        case State::escape:
            if (want_low_ && c != 'u') return fail("a \\u surrogate escape without its second half");
            if (c == 'u') {
                hex_left_ = 4;
                code_ = 0;
                state_ = State::unicode;
                return Status::more;
            }
            if (std::strchr("\"\\/bfnrt", c) == nullptr || c == '\0') return fail("invalid escape in a JSON string");
            state_ = State::string;
            return Status::more;
        case State::unicode:
            if (!is_hex(c)) return fail("invalid \\u escape in a JSON string");
            code_ = code_ * 16 + static_cast<unsigned>(is_digit(c) ? c - '0' : (c | 0x20) - 'a' + 10);
            if (--hex_left_ > 0) return Status::more;
            state_ = State::string;
            if (want_low_) {
                if (code_ < 0xdc00 || code_ > 0xdfff) return fail("a \\u surrogate escape without its second half");
                want_low_ = false;
            } else if (code_ >= 0xd800 && code_ <= 0xdbff) {
                want_low_ = true;
            } else if (code_ >= 0xdc00 && code_ <= 0xdfff) {
                return fail("a \\u surrogate escape without its first half");
            }
            return Status::more;
        case State::literal:
            if (c != literal_[literal_pos_]) return fail("invalid JSON literal (expected true, false or null)");
            if (literal_[++literal_pos_] == '\0') return value_done();
            return Status::more;
        case State::num_minus:
            if (c == '0') return number_char(c, State::num_zero);
            if (is_digit(c)) return number_char(c, State::num_int);
            return fail("expected a digit after '-' in a JSON number");
        case State::num_zero:
        case State::num_int:
            if (is_digit(c)) {
                if (state_ == State::num_zero) return fail("leading zero in a JSON number");
                return number_char(c, State::num_int);
            }
            if (c == '.') return number_char(c, State::num_dot);
            if (c == 'e' || c == 'E') return number_char(c, State::num_exp);
            return after_number(c);
        case State::num_dot:
            if (!is_digit(c)) return fail("expected a digit after '.' in a JSON number");
            return number_char(c, State::num_frac);
        case State::num_frac:
            if (is_digit(c)) return number_char(c, State::num_frac);
            if (c == 'e' || c == 'E') return number_char(c, State::num_exp);
            return after_number(c);
        case State::num_exp:
            if (c == '+' || c == '-') return number_char(c, State::num_exp_sign);
            [[fallthrough]];
        case State::num_exp_sign:
            if (!is_digit(c)) return fail("expected a digit in the exponent of a JSON number");
            return number_char(c, State::num_exp_digits);
        case State::num_exp_digits:
            if (is_digit(c)) return number_char(c, State::num_exp_digits);
            return after_number(c);
    }
    return fail("internal JSON checker state");
}

JsonStreamChecker::Status JsonStreamChecker::end() {
    if (state_ == State::finished) return Status::done;
    if (stack_.empty() && (state_ == State::num_zero || state_ == State::num_int || state_ == State::num_frac ||
                           state_ == State::num_exp_digits)) {
        if (number_overflows(number_)) return fail("a JSON number out of the range of a double");
        state_ = State::finished;
        return Status::done;
    }
    if (state_ == State::failed) return Status::error;
    return fail("the JSON text ended before the value was complete");
}

}  // namespace ft::serve
