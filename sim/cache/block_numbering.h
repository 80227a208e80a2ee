// BlockId -> dense BlockIndex: the numbering every driver of the access
// protocol uses (sim/cache/tier_session.h), so policies keep per-block state
// in vectors.
#pragma once
#include <cstdint>
#include <vector>

#include "sim/core/block_vector.h"
#include "sim/core/units.h"

namespace flashsim {

/// BlockId -> BlockIndex for sparse ids (64-bit hashes, as libCacheSim's
/// traces carry): open addressing with linear probing at load <= 1/2, so the
/// slot an id lands in is the one prefetch() loads (a general hash map's
/// groups span several cache lines, and a hint for the group misses the
/// slot most of the time).
class IdTable {
 public:
  /// The value of `id`, or null.
  const BlockIndex* find(BlockId id) const {
    if (slots_.empty()) return nullptr;
    for (std::size_t i = hash(id) & mask_;; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (!s.used) return nullptr;
      if (s.key == id) return &s.value;
    }
  }
  /// Adds `id` (not present) -> `value`.
  void insert(BlockId id, BlockIndex value) {
    if (2 * (count_ + 1) > slots_.size()) grow();
    place(id, value);
    ++count_;
  }
  void prefetch(BlockId id) const {
    if (!slots_.empty()) __builtin_prefetch(&slots_[hash(id) & mask_]);
  }
  template <class Visit>
  void for_each(Visit visit) const {
    for (const Slot& s : slots_) {
      if (s.used) visit(s.key, s.value);
    }
  }

 private:
  struct Slot {  // 16 bytes
    BlockId key = 0;
    BlockIndex value = 0;
    std::uint32_t used = 0;
  };
  static std::size_t hash(BlockId id) {  // MurmurHash3's 64-bit finaliser
    id ^= id >> 33;
    id *= 0xff51afd7ed558ccdULL;
    id ^= id >> 33;
    id *= 0xc4ceb9fe1a85ec53ULL;
    id ^= id >> 33;
    return static_cast<std::size_t>(id);
  }
  void place(BlockId id, BlockIndex value) {
    std::size_t i = hash(id) & mask_;
    while (slots_[i].used) i = (i + 1) & mask_;
    slots_[i] = Slot{id, value, 1};
  }
  void grow() {
    BlockVector<Slot> old = std::move(slots_);
    slots_.assign(old.empty() ? 1024 : old.size() * 2, Slot{});
    mask_ = slots_.size() - 1;
    for (const Slot& s : old) {
      if (s.used) place(s.key, s.value);
    }
  }
  BlockVector<Slot> slots_;
  std::size_t mask_ = 0;
  std::size_t count_ = 0;
};

/// BlockId -> dense BlockIndex, in order of first sight. Ids small enough
/// to be dense (below 4 x blocks + 1024) are kept in a plain table, others
/// in an IdTable.
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
      map_.prefetch(id);
    }
  }
  /// Index of `id`, or kNone if not numbered (adds nothing).
  BlockIndex find(BlockId id) const {
    if (id < direct_.size()) return direct_[id];
    const BlockIndex* b = map_.find(id);
    return b ? *b : kNone;
  }

 private:
  BlockIndex index_slow(BlockId id, bool* added);

  BlockVector<BlockIndex> direct_;  // id -> index, kNone = not numbered
  IdTable map_;  // ids beyond direct_ (entries direct_ came to cover are copied there and go stale here)
  std::size_t count_ = 0;
};

}  // namespace flashsim
