// BlockId -> dense BlockIndex: the numbering every driver of the access
// protocol uses (sim/cache/tier_session.h), so policies keep per-block state
// in vectors.
#pragma once
#include <vector>

#include "sim/core/hash_map.h"
#include "sim/core/units.h"

namespace flashsim {

/// BlockId -> dense BlockIndex, in order of first sight. Ids small enough
/// to be dense (below 4 x blocks + 1024) are kept in a plain table, others
/// in a hash map.
class BlockNumbering {
 public:
  static constexpr BlockIndex kNone = 0xFFFFFFFFu;

  /// Index of `id`; a new id gets the next index and sets *added.
  /// Throws InputError past 2^32 − 2 distinct blocks.
  BlockIndex index(BlockId id, bool* added) {
    if (id < direct_.size() && direct_[id] != kNone) {
      *added = false;
      return direct_[id];
    }
    return index_slow(id, added);
  }
  std::size_t size() const { return count_; }
  /// Hints the CPU to load what index(id) will read (a caller numbering a
  /// batch of ids hints a few ahead).
  void prefetch(BlockId id) const {
    if (id < direct_.size()) {
      __builtin_prefetch(&direct_[id]);
    } else {
#if FLASHSIM_HAVE_ABSL
      map_.prefetch(id);
#endif
    }
  }
  /// Index of `id`, or kNone if not numbered (adds nothing).
  BlockIndex find(BlockId id) const {
    if (id < direct_.size()) return direct_[id];
    auto it = map_.find(id);
    return it == map_.end() ? kNone : it->second;
  }

 private:
  BlockIndex index_slow(BlockId id, bool* added);

  std::vector<BlockIndex> direct_;  // id -> index, kNone = not numbered
  HashMap<BlockId, BlockIndex> map_;
  std::size_t count_ = 0;
};

}  // namespace flashsim
