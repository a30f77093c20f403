// The IQ lattice grids as host constexpr tables (data: iq_grids.inc).
#pragma once

#include <cstdint>

namespace ft::kernels::ref {

#define FT_IQ_TABLE(type, name, count) inline constexpr type name[count]
#include "ref/iq_grids.inc"
#undef FT_IQ_TABLE

}  // namespace ft::kernels::ref
