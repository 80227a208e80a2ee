// LRU stack (reuse) distances in one pass, O(log n) per access: a Fenwick
// tree over access times holds a mark at each block's last access time
// (Bennett & Kruskal 1975; Olken 1981 used a balanced tree the same way).
// The number of marks after a block's previous access is the number of
// distinct other blocks touched since. A second tree holds the blocks'
// sizes, giving the byte stack distance. When the time axis fills, the live
// marks are renumbered 0..n-1 in order (and the axis doubled if more than
// half full), so memory is O(distinct blocks), not O(accesses).
#pragma once
#include <cstdint>
#include <vector>

#include "sim/core/hash_map.h"
#include "sim/core/units.h"

namespace flashsim {

class StackDistanceTracker {
 public:
  struct Result {
    bool cold = false;  ///< first access of the block: no distance
    /// Distinct *other* blocks accessed since this block's previous access
    /// (0 = immediate re-access). The LRU stack distance is this + 1: the
    /// access hits in an LRU of C equal-size blocks iff reuse_distance + 1 ≤ C.
    std::uint64_t reuse_distance = 0;
    /// Sum of the sizes of those distinct blocks (each at the size of its
    /// latest access) plus this access's bytes: the access hits in an LRU of
    /// C bytes iff byte_stack_distance ≤ C (exact when each block keeps one
    /// size and a miss evicts least-recent blocks until the total fits, the
    /// new block included if it alone exceeds C).
    ByteCount byte_stack_distance = 0;
    /// Dense number of the block (0, 1, ... in order of first access), so
    /// callers can keep per-block data in vectors.
    std::uint32_t block_index = 0;
    /// The size the stack held for the block before this access (0 when cold).
    ByteCount previous_bytes = 0;
  };

  explicit StackDistanceTracker(std::size_t initial_time_slots = 1 << 16);

  /// Records an access of `block` with `bytes` and returns its distances.
  /// With `keep_size`, a block already in the stack keeps the size it has
  /// there (SizeChange::hit: a cached block keeps the space it was admitted
  /// with) and counts at that size in byte_stack_distance.
  Result access(std::uint64_t block, ByteCount bytes, bool keep_size = false);

  std::uint64_t distinct_blocks() const { return last_slot_.size(); }

 private:
  struct Node {
    std::int64_t count = 0;
    std::uint64_t bytes = 0;
  };
  void add(std::size_t slot, std::int64_t count, std::int64_t bytes);
  Node prefix(std::size_t slot) const;  ///< sums over slots [0, slot]
  void compress();

  HashMap<std::uint64_t, std::uint32_t> index_of_;
  std::vector<std::uint64_t> last_slot_;   // per dense block
  std::vector<ByteCount> size_;            // per dense block, latest access's bytes
  std::vector<Node> tree_;                 // Fenwick, 1-based, size capacity + 1
  std::vector<std::uint32_t> slot_block_;  // per slot: dense block whose mark it is, or kEmpty
  std::size_t capacity_ = 0;
  std::size_t next_slot_ = 0;
  std::uint64_t live_ = 0;
  ByteCount live_bytes_ = 0;
};

}  // namespace flashsim
