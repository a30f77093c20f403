// Internal to the GGUF reader: builds Values that view a mapping (gguf_value.cpp implements these).
#pragma once

#include "format/gguf.h"

namespace ft::gguf {

Value make_scalar_value(ValueType t, std::uint64_t bits);
Value make_view_string(std::string_view s, std::shared_ptr<const void> owner);
Value make_view_numeric_array(ValueType elem, const std::byte* raw, std::uint64_t count,
                              std::shared_ptr<const void> owner);
Value make_view_string_array(std::shared_ptr<const std::vector<std::string_view>> items,
                             std::shared_ptr<const void> owner);
Value make_nested_array(std::shared_ptr<const std::vector<Value>> items);
// A fixed-size scalar at p (little-endian), integers sign/zero-extended to 64 bits, floats as their bits.
std::uint64_t load_scalar_bits(ValueType t, const std::byte* p);

}  // namespace ft::gguf
