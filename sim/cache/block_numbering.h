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
/// traces carry), over the ids themselves kept by the caller in index order
/// (BlockNumbering's id list): open addressing with linear probing at load
/// <= 1/2, 8-byte slots (the index and 32 bits of the id's hash), so the
/// slot an id lands in is the one prefetch() loads and a table of 1 M ids
/// is 16 MiB. A slot whose hash bits match is confirmed against the id list.
class IdTable {
 public:
  /// The index of `id` in `ids` (the list every insert() was given), or kAbsent.
  template <class Ids>
  BlockIndex find(BlockId id, const Ids& ids) const {
    if (slots_.empty()) return kAbsent;
    const std::size_t h = hash(id);
    const auto tag = static_cast<std::uint32_t>(h >> 32);
    for (std::size_t i = h & mask_;; i = (i + 1) & mask_) {
      const Slot s = slots_[i];
      if (s.index == kAbsent) return kAbsent;
      if (s.tag == tag && ids[s.index] == id) return s.index;
    }
  }
  /// Adds `id` (not present) -> `index`; ids[index] == id, and `ids` holds
  /// every id inserted before (a growth rehashes them from it: the old
  /// table is freed first, so the peak is the new table alone).
  /// `is_member` tells which of ids[0, index) this table holds.
  template <class Ids, class IsMember>
  void insert(BlockId id, BlockIndex index, const Ids& ids, IsMember is_member) {
    if (2 * (count_ + 1) > slots_.size()) {
      const std::size_t size = slots_.empty() ? 1024 : 2 * slots_.size();
      slots_ = BlockVector<Slot>();
      slots_.assign(size, Slot{});
      mask_ = size - 1;
      for (BlockIndex b = 0; b < index; ++b) {
        if (is_member(ids[b])) place(ids[b], b);
      }
    }
    place(id, index);
    ++count_;
  }
  void prefetch(BlockId id) const {
    if (!slots_.empty()) __builtin_prefetch(&slots_[hash(id) & mask_]);
  }
  static constexpr BlockIndex kAbsent = 0xFFFFFFFFu;

 private:
  struct Slot {  // 8 bytes
    std::uint32_t tag = 0;  // the hash's high 32 bits
    BlockIndex index = kAbsent;
  };
  static std::size_t hash(BlockId id) {  // MurmurHash3's 64-bit finaliser
    id ^= id >> 33;
    id *= 0xff51afd7ed558ccdULL;
    id ^= id >> 33;
    id *= 0xc4ceb9fe1a85ec53ULL;
    id ^= id >> 33;
    return static_cast<std::size_t>(id);
  }
  void place(BlockId id, BlockIndex index) {
    const std::size_t h = hash(id);
    std::size_t i = h & mask_;
    while (slots_[i].index != kAbsent) i = (i + 1) & mask_;
    slots_[i] = Slot{static_cast<std::uint32_t>(h >> 32), index};
  }
  BlockVector<Slot> slots_;
  std::size_t mask_ = 0;
  std::size_t count_ = 0;
};

/// BlockId -> dense BlockIndex, in order of first sight, and back
/// (id_of). Ids small enough to be dense (below 4 x blocks + 1024) are kept
/// in a plain table, others in an IdTable. Memory per block: its id (8 B)
/// and 4 B of the plain table or 8-16 B of the IdTable.
class BlockNumbering {
 public:
  static constexpr BlockIndex kNone = 0xFFFFFFFFu;
  static_assert(kNone == IdTable::kAbsent);

  /// Index of `id`; a new id gets the next index and sets *added.
  /// Throws InputError past 2^32 − 2 distinct blocks.
  BlockIndex index(BlockId id, bool* added) {
    if (id < direct_.size()) {
      const BlockIndex b = direct_[id];
      if (b != kNone) {
        *added = false;
        return b;
      }
    } else {
      const BlockIndex b = map_.find(id, ids_);
      if (b != kNone) {
        *added = false;
        return b;
      }
    }
    return add(id, added);
  }
  std::size_t size() const { return ids_.size(); }
  /// The id numbered `b` (b < size()).
  BlockId id_of(BlockIndex b) const { return ids_[b]; }
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
    return map_.find(id, ids_);
  }

 private:
  BlockIndex add(BlockId id, bool* added);

  BlockVector<BlockId> ids_;      // index -> id
  BlockVector<BlockIndex> direct_;  // id -> index, kNone = not numbered
  IdTable map_;  // ids beyond direct_ (entries direct_ came to cover are copied there and go stale here)
};

}  // namespace flashsim
