// Dispatch over a block's kind (graph.h BlockBody) by std::visit with one lambda per kind:
//
//   std::visit(overloaded{[](const AttentionBlock& a) { … }, …, [](const MoeBlock& m) { … }}, block.body);
//
// Write one lambda per kind, not a catch-all `auto` one: then a kind added to BlockBody and not handled is a
// compile error at every such dispatch, not a silently skipped block.
#pragma once

#include <variant>

#include "model/graph.h"

namespace ft::model {

// The lambdas' call operators as one overload set.
template <class... F>
struct overloaded : F... {
    using F::operator()...;
};

}  // namespace ft::model
