// ft::Error — the one error type of the engine.
//
// Every failure a user can meet (bad file, missing key, VRAM too small, port in use, …) is thrown as ft::Error with
// a message that names the problem and says what to do about it. Code that calls the engine catches ft::Error at
// its boundary (the CLI prints what() and exits non-zero; the app shows it), never anything more specific.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "ft/message.h"

namespace ft {

enum class ErrorCode {
    invalid_argument,  // a flag, option or request field is wrong
    invalid_file,      // a model/config/data file is malformed, truncated or of an unsupported kind
    not_found,         // a file, model, key or tensor does not exist
    unsupported,       // valid input that this build cannot handle yet (architecture, quant type, …)
    out_of_memory,     // host RAM or VRAM budget too small for what was asked
    device,            // a CUDA / driver failure
    io,                // an operating-system I/O failure (open, read, mmap, bind …)
    cancelled,         // the user stopped it (a load, a download)
    internal,          // a bug: an invariant did not hold
};

std::string_view error_code_name(ErrorCode code);

class Error : public std::runtime_error {
public:
    // `what` says what went wrong; `hint` (may be empty) says what the user can do about it.
    Error(ErrorCode code, std::string what, std::string hint = {});

    ErrorCode code() const noexcept { return code_; }
    const std::string& message() const noexcept { return message_; }
    const std::string& hint() const noexcept { return hint_; }
    // The message as a key and arguments for translating front ends (ft/message.h); empty for most errors.
    const Message& key() const noexcept { return key_; }
    Error& keyed(std::string key, std::vector<std::string> args) {
        key_ = Message{std::move(key), std::move(args)};
        return *this;
    }

private:
    ErrorCode code_;
    std::string message_;
    std::string hint_;
    Message key_;
};

}  // namespace ft
