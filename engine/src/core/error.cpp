#include "ft/error.h"

namespace ft {

std::string_view error_code_name(ErrorCode code) {
    switch (code) {
        case ErrorCode::invalid_argument: return "invalid argument";
        case ErrorCode::invalid_file: return "invalid file";
        case ErrorCode::not_found: return "not found";
        case ErrorCode::unsupported: return "unsupported";
        case ErrorCode::out_of_memory: return "out of memory";
        case ErrorCode::device: return "device error";
        case ErrorCode::io: return "I/O error";
        case ErrorCode::cancelled: return "cancelled";
        case ErrorCode::internal: return "internal error";
    }
    return "error";
}

static std::string compose(const std::string& what, const std::string& hint) {
    return hint.empty() ? what : what + " (" + hint + ")";
}

Error::Error(ErrorCode code, std::string what, std::string hint)
    : std::runtime_error(compose(what, hint)), code_(code), message_(std::move(what)), hint_(std::move(hint)) {}

}  // namespace ft
