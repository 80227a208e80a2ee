#include "sim/cache/block_numbering.h"

#include <algorithm>

#include "sim/core/errors.h"

namespace flashsim {

BlockIndex BlockNumbering::index_slow(BlockId id, bool* added) {
  if (auto it = map_.find(id); it != map_.end()) {
    *added = false;
    return it->second;
  }
  if (count_ >= kNone - 1) throw InputError("trace has more than 2^32 - 2 distinct blocks");
  const auto b = static_cast<BlockIndex>(count_++);
  *added = true;
  if (id >= direct_.size() && id < 4 * count_ + 1024) {
    // Dense enough: grow the table (doubling) and move covered ids into it.
    const std::size_t size = std::max<std::size_t>({std::size_t(id) + 1, 2 * direct_.size(), 1024});
    direct_.resize(size, kNone);
    for (auto it = map_.begin(); it != map_.end();) {
      if (it->first < size) {
        direct_[it->first] = it->second;
        map_.erase(it++);
      } else {
        ++it;
      }
    }
  }
  if (id < direct_.size()) direct_[id] = b;
  else map_.emplace(id, b);
  return b;
}

}  // namespace flashsim
