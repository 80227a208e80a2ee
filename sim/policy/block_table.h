// Per-block metadata of a policy, in a vector indexed by BlockIndex that
// grows on demand (PolicyContext::block_count is only a sizing hint).
#pragma once
#include <cstddef>
#include <vector>

#include "sim/core/units.h"

namespace flashsim {

/// Grows `table` so that `block` is a valid index; new entries are `fill`.
/// Growth is geometric (at least 1.5x), so an access costs O(1) amortised.
template <class T, class Allocator>
inline void grow_to_hold(std::vector<T, Allocator>& table, BlockIndex block, const T& fill = T{}) {
  const std::size_t need = static_cast<std::size_t>(block) + 1;
  if (need <= table.size()) return;
  std::size_t grown = table.size() + table.size() / 2;
  if (grown < need) grown = need;
  if (grown < 1024) grown = 1024;
  table.resize(grown, fill);
}

}  // namespace flashsim
