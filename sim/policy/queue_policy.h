// The one-queue policies, LRU and FIFO: blocks in an intrusive list, newest
// at the front, victims from the back. They differ only in whether a hit
// moves the block to the front (LRU) or changes nothing (FIFO).
#pragma once
#include <optional>
#include <string_view>
#include <vector>

#include "sim/core/block_vector.h"
#include "sim/policy/block_table.h"
#include "sim/policy/i_eviction_policy.h"
#include "sim/policy/intrusive_list.h"

namespace flashsim {

template <bool kMoveToFrontOnHit>
class QueuePolicy final : public IEvictionPolicy {
 public:
  QueuePolicy(std::string_view name, const PolicyContext& context) : name_(name) {
    nodes_.reserve(context.block_count);
  }

  std::string_view name() const override { return name_; }
  void prefetch(BlockIndex block) const override {
    if (block < nodes_.size()) __builtin_prefetch(&nodes_[block], 1);
  }

  void prefetch_neighbours(BlockIndex block) const override {
    if constexpr (kMoveToFrontOnHit) {  // a hit unlinks the block: its neighbours' links change
      if (!held(block)) return;
      const ListLink& n = nodes_[block];
      if (n.prev != kNoBlock) __builtin_prefetch(&nodes_[n.prev], 1);
      if (n.next != kNoBlock) __builtin_prefetch(&nodes_[n.next], 1);
    }
  }

  void on_hit(const PolicyAccess& a) override {
    if constexpr (kMoveToFrontOnHit) list_.move_to_front(nodes_, a.block);
  }

  void on_insert(const PolicyAccess& a) override {
    grow_to_hold(nodes_, a.block, kUnheld);
    if (held(a.block)) {  // already held: a re-insert counts as a hit
      on_hit(a);
      return;
    }
    list_.push_front(nodes_, a.block);
  }

  std::optional<BlockIndex> evict(Nanoseconds, const EvictionFilter& filter) override {
    // Oldest first; a refused block (in use) keeps its place.
    for (BlockIndex b = list_.back(); b != kNoBlock; b = IntrusiveList::toward_front(nodes_, b)) {
      if (filter.allows(b)) {
        forget(b);
        // The next victims are the blocks at the back: fetch the one after
        // the new back while the caller works (hides one cache miss).
        const BlockIndex next_back = list_.back();
        if (next_back != kNoBlock) {
          const BlockIndex after = IntrusiveList::toward_front(nodes_, next_back);
          if (after != kNoBlock) __builtin_prefetch(&nodes_[after], 1);
          filter.prefetch(next_back);
        }
        return b;
      }
    }
    return std::nullopt;
  }

  void remove(BlockIndex block) override {
    if (held(block)) forget(block);
  }

  std::size_t size() const override { return list_.size(); }

 private:
  // A block not in the list has this in `prev` (never a block index: at
  // most 2^32 - 2 blocks are numbered), so a node is its links alone, 8 bytes.
  static constexpr BlockIndex kNotHeld = kNoBlock - 1;
  static constexpr ListLink kUnheld{kNotHeld, kNoBlock};

  bool held(BlockIndex b) const { return b < nodes_.size() && nodes_[b].prev != kNotHeld; }
  void forget(BlockIndex b) {
    list_.erase(nodes_, b);
    nodes_[b].prev = kNotHeld;
  }

  std::string_view name_;
  LinkTable nodes_;
  IntrusiveList list_;
};

}  // namespace flashsim
