#include "traces/stats/stack_distance.h"

#include <algorithm>
#include <limits>

namespace flashsim {

namespace {
constexpr std::uint32_t kEmpty = std::numeric_limits<std::uint32_t>::max();
}

StackDistanceTracker::StackDistanceTracker(std::size_t initial_time_slots)
    : tree_(std::max<std::size_t>(initial_time_slots, 16) + 1),
      slot_block_(std::max<std::size_t>(initial_time_slots, 16), kEmpty),
      capacity_(std::max<std::size_t>(initial_time_slots, 16)) {}

void StackDistanceTracker::add(std::size_t slot, std::int64_t count, std::int64_t bytes) {
  for (std::size_t i = slot + 1; i <= capacity_; i += i & (~i + 1)) {
    tree_[i].count += count;
    tree_[i].bytes += static_cast<std::uint64_t>(bytes);  // modular: removal adds the two's complement
  }
}

StackDistanceTracker::Node StackDistanceTracker::prefix(std::size_t slot) const {
  Node sum;
  for (std::size_t i = slot + 1; i > 0; i -= i & (~i + 1)) {
    sum.count += tree_[i].count;
    sum.bytes += tree_[i].bytes;
  }
  return sum;
}

void StackDistanceTracker::compress() {
  if (live_ * 2 > capacity_) capacity_ *= 2;
  std::vector<std::uint32_t> slots(capacity_, kEmpty);
  std::vector<Node> tree(capacity_ + 1);
  std::size_t j = 0;
  for (std::size_t s = 0; s < next_slot_; ++s) {
    const std::uint32_t b = slot_block_[s];
    if (b == kEmpty) continue;
    slots[j] = b;
    last_slot_[b] = j;
    tree[j + 1].count = 1;
    tree[j + 1].bytes = size_[b];
    ++j;
  }
  // Linear-time Fenwick build.
  for (std::size_t i = 1; i <= capacity_; ++i) {
    const std::size_t parent = i + (i & (~i + 1));
    if (parent <= capacity_) {
      tree[parent].count += tree[i].count;
      tree[parent].bytes += tree[i].bytes;
    }
  }
  slot_block_ = std::move(slots);
  tree_ = std::move(tree);
  next_slot_ = j;
}

StackDistanceTracker::Result StackDistanceTracker::access(std::uint64_t block, ByteCount bytes, bool keep_size) {
  Result result;
  auto [it, inserted] = index_of_.try_emplace(block, static_cast<std::uint32_t>(last_slot_.size()));
  const std::uint32_t b = it->second;
  result.block_index = b;
  if (inserted) {
    result.cold = true;
    last_slot_.push_back(0);
    size_.push_back(0);
  } else {
    result.previous_bytes = size_[b];
    if (keep_size) bytes = size_[b];
    const std::size_t p = last_slot_[b];
    const Node before = prefix(p);  // includes b's own mark
    result.reuse_distance = live_ - static_cast<std::uint64_t>(before.count);
    result.byte_stack_distance = (live_bytes_ - before.bytes) + bytes;
    add(p, -1, -static_cast<std::int64_t>(size_[b]));
    slot_block_[p] = kEmpty;
    --live_;
    live_bytes_ -= size_[b];
  }
  if (next_slot_ == capacity_) compress();
  const std::size_t t = next_slot_++;
  add(t, 1, static_cast<std::int64_t>(bytes));
  slot_block_[t] = b;
  last_slot_[b] = t;
  size_[b] = bytes;
  ++live_;
  live_bytes_ += bytes;
  return result;
}

}  // namespace flashsim
