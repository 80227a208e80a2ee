#include "sim/prefetch/learned_cycle.h"

namespace flashsim {

std::uint32_t LearnedCycle::observe(BlockId block) {
  auto it = position_.find(block);
  if (it != position_.end()) {
    const std::uint32_t pos = it->second;
    if (!complete_) {
      if ((pos == 1 && previous_ == 0) || (pos == 0 && order_.size() == 1)) complete_ = true;
      previous_ = pos;
    }
    return pos;
  }
  if (complete_ || order_.size() + 1 >= kNoPosition) return kNoPosition;
  const auto pos = static_cast<std::uint32_t>(order_.size());
  order_.push_back(block);
  position_.emplace(block, pos);
  previous_ = pos;
  return pos;
}

}  // namespace flashsim
