#include "sim/cache/block_numbering.h"

#include <algorithm>

#include "sim/core/errors.h"

namespace flashsim {

BlockIndex BlockNumbering::add(BlockId id, bool* added) {
  if (ids_.size() >= kNone - 1) throw InputError("trace has more than 2^32 - 2 distinct blocks");
  const auto b = static_cast<BlockIndex>(ids_.size());
  *added = true;
  if (id >= direct_.size() && id < 4 * (std::size_t(b) + 1) + 1024) {
    // Dense enough: grow the table (doubling) and copy the ids it now covers.
    const std::size_t size = std::max<std::size_t>({std::size_t(id) + 1, 2 * direct_.size(), 1024});
    const std::size_t old_size = direct_.size();
    direct_.resize(size, kNone);
    for (BlockIndex known = 0; known < b; ++known) {
      const BlockId k = ids_[known];
      if (k >= old_size && k < size) direct_[k] = known;
    }
  }
  ids_.push_back(id);
  if (id < direct_.size()) {
    direct_[id] = b;
  } else {
    const std::size_t covered = direct_.size();
    map_.insert(id, b, ids_, [covered](BlockId known) { return known >= covered; });
  }
  return b;
}

}  // namespace flashsim
