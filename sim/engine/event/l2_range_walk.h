// The range walk (`l2.model: range`, the default): the same LRU sets as the
// per-line reference (l2_line_walk.h), in the same states, with the same
// counts, at a cost that does not grow with a range's length in a set.
//
// Each simulated set keeps its two partitions (carve-out, normal) as arrays
// in recency order (most recent first), so LRU needs no clock: a hit moves
// its entry to the front, a line miss shifts the partition by one. A long
// range gives each simulated set the lines L0, L0 + sets, ..., L0 + (n-1)·sets.
// When none of them is in the set (one check of at most `ways` tags: every
// line the set holds is ≡ set mod sets, so it is one of them iff
// L0 <= line <= L_{n-1}), all n are line misses and the partition ends
// with the last min(n, ways) of them in front of the most recent
// survivors: one shift, not n lookups. When the set holds some of them,
// each held line's fate follows from its place in the LRU stack (a hit iff
// fewer than `ways` lines come above it before its turn): one pass over the
// set's ways. The partial first and last lines of the range, and a range
// line held in the other partition (a carve-out), take the per-line path,
// which is exact anywhere.
#pragma once
#include <cstdint>
#include <vector>

#include "sim/engine/event/l2_geometry.h"

namespace flashsim {

class L2RangeWalk final : public L2Walk {
 public:
  explicit L2RangeWalk(L2Geometry geometry);
  Touch access(std::uint64_t address, std::uint64_t end, bool persisting, L2Counts& counts) override;

 private:
  struct Entry {
    std::uint64_t line = 0;
    std::uint64_t valid_sectors = 0;  // bit i = sector i valid
  };
  struct Partition {
    std::uint32_t base;      // first way of the partition in a set's entries
    std::uint32_t capacity;  // its ways
  };
  Partition partition(std::uint32_t index) const;    // 0: carve-out, 1: normal
  std::uint32_t partition_of(bool persisting) const;  // where a line missing its set goes
  // One line (any mask). Returns true if a touched sector missed.
  bool touch_line(std::uint64_t line, std::uint32_t slot, std::uint64_t mask, bool persisting, L2Counts& counts);
  // Whole lines first, first + sets, ..., first + (count-1)·sets of one set.
  bool fill_lines(std::uint64_t first, std::uint64_t count, std::uint32_t slot, bool persisting, L2Counts& counts);

  std::vector<Entry> entries_;     // slot * ways + way; a partition's first used_ entries, most recent first
  std::vector<std::uint32_t> used_;  // slot * 2 + (0: carve-out, 1: normal)
  std::vector<std::uint64_t> seen_lines_;  // fill_lines' scratch: one set's range lines, `ways` at most
};

}  // namespace flashsim
