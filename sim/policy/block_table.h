// Per-block metadata of a policy, in a vector indexed by BlockIndex that
// grows on demand (PolicyContext::block_count is only a sizing hint).
#pragma once
#include <cstddef>
#include <vector>

#include "sim/core/block_vector.h"
#include "sim/core/units.h"

namespace flashsim {

/// Grows `table` (a std::vector or a BlockVector) so that `block` is a
/// valid index; new entries are `fill`. The capacity grows geometrically
/// (at least 1.5x), so an access costs O(1) amortised; the size only to
/// `block` + 1, so that no entry is written before it is used (a
/// BlockVector's pages beyond its size then cost no memory).
template <class Table, class T = typename Table::value_type>
inline void grow_to_hold(Table& table, BlockIndex block, const T& fill = T{}) {
  const std::size_t need = static_cast<std::size_t>(block) + 1;
  if (need <= table.size()) return;
  if (need > table.capacity()) {
    std::size_t grown = table.capacity() + table.capacity() / 2;
    if (grown < need) grown = need;
    if (grown < 1024) grown = 1024;
    table.reserve(grown);
  }
  table.resize(need, fill);
}

}  // namespace flashsim
