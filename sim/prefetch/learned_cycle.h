// The per-token block cycle of a trace without an operator order (a
// recorded trace), learned from the past: the order in which blocks were
// first seen, assumed to repeat. Decode runs one forward pass per token, so
// the weight blocks come back in the same order every token; the first pass
// is the predictor for all later ones.
//
// Rule: blocks are appended in order of first access; the cycle closes when
// its first two blocks are accessed again back to back (cycle[0] then
// cycle[1]), i.e. the next token's pass has visibly begun. Returning to
// cycle[0] alone is not enough: a tied embedding is read at both ends of a
// pass. Until it closes the cycle gives no prediction (the wrap point is
// unknown). Repeats inside the first pass keep their first position; a
// one-block cycle closes on its first repeat. After it closes it is fixed:
// blocks never seen in the first pass (KV pages, rarely routed experts) are
// not in it and predict nothing.
#pragma once
#include <cstdint>
#include <limits>
#include <vector>

#include "sim/core/hash_map.h"
#include "sim/core/units.h"

namespace flashsim {

class LearnedCycle {
 public:
  static constexpr std::uint32_t kNoPosition = std::numeric_limits<std::uint32_t>::max();

  /// Feeds one access; returns the block's position in the cycle (0-based),
  /// or kNoPosition when it has none. O(1) expected.
  std::uint32_t observe(BlockId block);

  /// Position of `block` without learning from it; kNoPosition if none.
  std::uint32_t position(BlockId block) const {
    auto it = position_.find(block);
    return it == position_.end() ? kNoPosition : it->second;
  }
  bool complete() const { return complete_; }
  std::uint32_t size() const { return static_cast<std::uint32_t>(order_.size()); }
  /// The block at position `pos` modulo the cycle's length (size() > 0).
  BlockId at(std::uint64_t pos) const { return order_[pos % order_.size()]; }

 private:
  std::vector<BlockId> order_;
  HashMap<BlockId, std::uint32_t> position_;
  bool complete_ = false;
  std::uint32_t previous_ = kNoPosition;  ///< position of the previous access while learning
};

}  // namespace flashsim
