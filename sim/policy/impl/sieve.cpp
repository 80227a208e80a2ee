// SIEVE (Zhang, Yang, Yue, Vigfusson, Rashmi, "SIEVE is simpler than LRU: an
// efficient turn-key eviction algorithm for web caches", NSDI 2024, Alg. 1).
// One FIFO queue, one visited bit per block, one hand. New blocks enter at
// the head (front) with visited = 0; a hit sets visited = 1 and moves
// nothing. Eviction: the hand starts at the tail (back) when it has no
// position; while the block under the hand is visited, clear the bit and
// move the hand one step toward the head (wrapping from the head to the
// tail); evict the first unvisited block and leave the hand on its
// neighbour toward the head. Retained blocks keep their place, so new and
// retained blocks never mix. A block the driver's filter refuses is
// stepped over with its bit untouched.
#include <memory>

#include "sim/policy/block_table.h"
#include "sim/policy/i_eviction_policy.h"
#include "sim/policy/intrusive_list.h"

namespace flashsim {
namespace {

class SievePolicy final : public IEvictionPolicy {
 public:
  explicit SievePolicy(const PolicyContext& context) {
    links_.reserve(context.block_count);
    visited_.reserve(context.block_count);
  }

  std::string_view name() const override { return "sieve"; }

  void on_hit(const PolicyAccess& a) override { visited_[a.block] = 1; }

  void on_insert(const PolicyAccess& a) override {
    grow_to_hold(links_, a.block);
    grow_to_hold(visited_, a.block, kNotHeld);
    if (visited_[a.block] != kNotHeld) {
      visited_[a.block] = 1;
      return;
    }
    visited_[a.block] = 0;
    queue_.push_front(links_, a.block);
  }

  std::optional<BlockIndex> evict(Nanoseconds, const EvictionFilter& filter) override {
    if (queue_.empty()) return std::nullopt;
    BlockIndex hand = (hand_ == kNoBlock) ? queue_.back() : hand_;
    // Within one full turn every allowed block's bit is cleared, so a victim
    // (if any block is allowed) is found within two turns.
    const std::size_t limit = 2 * queue_.size() + 1;
    for (std::size_t step = 0; step < limit; ++step) {
      const BlockIndex toward_head = IntrusiveList::toward_front(links_, hand);
      if (filter.allows(hand)) {
        if (visited_[hand] == 0) {
          hand_ = toward_head;  // kNoBlock: restart at the tail next time
          forget(hand);
          return hand;
        }
        visited_[hand] = 0;
      }
      hand = (toward_head == kNoBlock) ? queue_.back() : toward_head;
    }
    hand_ = hand;
    return std::nullopt;
  }

  void remove(BlockIndex block) override {
    if (block >= visited_.size() || visited_[block] == kNotHeld) return;
    if (hand_ == block) hand_ = IntrusiveList::toward_front(links_, block);
    forget(block);
  }

  std::size_t size() const override { return queue_.size(); }

 private:
  static constexpr std::uint8_t kNotHeld = 0xFF;

  void forget(BlockIndex b) {
    queue_.erase(links_, b);
    visited_[b] = kNotHeld;
  }

  LinkTable links_;
  std::vector<std::uint8_t> visited_;  ///< 0/1; kNotHeld when not held
  IntrusiveList queue_;
  BlockIndex hand_ = kNoBlock;
};

}  // namespace

FLASHSIM_REGISTER_POLICY({"sieve",
                          "SIEVE: FIFO queue, visited bit, moving hand (Zhang et al., NSDI 2024)",
                          {},
                          [](const ParamValues&, const PolicyContext& c) -> std::unique_ptr<IEvictionPolicy> {
                            return std::make_unique<SievePolicy>(c);
                          }});

}  // namespace flashsim
