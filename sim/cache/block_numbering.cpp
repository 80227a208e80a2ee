#include "sim/cache/block_numbering.h"

#include <algorithm>

#include "sim/core/errors.h"

namespace flashsim {

BlockIndex BlockNumbering::index_slow(BlockId id, bool* added) {
  if (id >= direct_.size()) {
    if (const BlockIndex* known = map_.find(id)) {
      *added = false;
      return *known;
    }
  }
  if (count_ >= kNone - 1) throw InputError("trace has more than 2^32 - 2 distinct blocks");
  const auto b = static_cast<BlockIndex>(count_++);
  *added = true;
  if (id >= direct_.size() && id < 4 * count_ + 1024) {
    // Dense enough: grow the table (doubling) and copy the ids it now covers.
    const std::size_t size = std::max<std::size_t>({std::size_t(id) + 1, 2 * direct_.size(), 1024});
    direct_.resize(size, kNone);
    map_.for_each([&](BlockId known, BlockIndex index) {
      if (known < size) direct_[known] = index;
    });
  }
  if (id < direct_.size()) direct_[id] = b;
  else map_.insert(id, b);
  return b;
}

}  // namespace flashsim
