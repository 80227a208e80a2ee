// The per-line L2 walk, kept as the reference (`l2.model: line`): every
// touched line of a simulated set is looked up and, on a line miss,
// replaces an empty way, else the least recently used way (a use clock per
// way), of its partition. A long range visits each simulated set's lines.
// Cost: O(lines in simulated sets x ways) an access.
#pragma once
#include <cstdint>
#include <vector>

#include "sim/engine/event/l2_geometry.h"

namespace flashsim {

class L2LineWalk final : public L2Walk {
 public:
  explicit L2LineWalk(L2Geometry geometry);
  Touch access(std::uint64_t address, std::uint64_t end, bool persisting, L2Counts& counts) override;

 private:
  struct Way {
    std::uint64_t line = 0;
    std::uint64_t valid_sectors = 0;  // bit i = sector i valid; 0 = empty way
    std::uint64_t last_use = 0;
  };
  // Returns true if a touched sector missed.
  bool touch_line(std::uint64_t line, std::uint32_t slot, std::uint64_t mask, bool persisting, L2Counts& counts);

  std::vector<Way> ways_table_;  // slot * ways + way
  std::uint64_t clock_ = 0;
};

}  // namespace flashsim
