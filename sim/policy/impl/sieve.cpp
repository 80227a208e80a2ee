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

#include "sim/core/block_vector.h"
#include "sim/policy/block_table.h"
#include "sim/policy/i_eviction_policy.h"
#include "sim/policy/intrusive_list.h"

namespace flashsim {
namespace {

constexpr std::uint8_t kNotHeld = 0xFF;

struct SieveNode : ListLink {
  std::uint8_t visited = kNotHeld;  ///< 0/1; kNotHeld when not held
};

class SievePolicy final : public IEvictionPolicy {
 public:
  explicit SievePolicy(const PolicyContext& context) {
    nodes_.reserve(context.block_count);
  }

  std::string_view name() const override { return "sieve"; }
  void prefetch(BlockIndex block) const override {
    if (block < nodes_.size()) __builtin_prefetch(&nodes_[block], 1);
  }

  void on_hit(const PolicyAccess& a) override { nodes_[a.block].visited = 1; }

  void on_insert(const PolicyAccess& a) override {
    grow_to_hold(nodes_, a.block);
    if (nodes_[a.block].visited != kNotHeld) {
      nodes_[a.block].visited = 1;
      return;
    }
    nodes_[a.block].visited = 0;
    queue_.push_front(nodes_, a.block);
  }

  std::optional<BlockIndex> evict(Nanoseconds, const EvictionFilter& filter) override {
    if (queue_.empty()) return std::nullopt;
    BlockIndex hand = (hand_ == kNoBlock) ? queue_.back() : hand_;
    // Within one full turn every allowed block's bit is cleared, so a victim
    // (if any block is allowed) is found within two turns.
    const std::size_t limit = 2 * queue_.size() + 1;
    for (std::size_t step = 0; step < limit; ++step) {
      const BlockIndex toward_head = IntrusiveList::toward_front(nodes_, hand);
      if (filter.allows(hand)) {
        if (nodes_[hand].visited == 0) {
          hand_ = toward_head;  // kNoBlock: restart at the tail next time
          forget(hand);
          return hand;
        }
        nodes_[hand].visited = 0;
      }
      hand = (toward_head == kNoBlock) ? queue_.back() : toward_head;
    }
    hand_ = hand;
    return std::nullopt;
  }

  void remove(BlockIndex block) override {
    if (block >= nodes_.size() || nodes_[block].visited == kNotHeld) return;
    if (hand_ == block) hand_ = IntrusiveList::toward_front(nodes_, block);
    forget(block);
  }

  std::size_t size() const override { return queue_.size(); }

 private:
  void forget(BlockIndex b) {
    queue_.erase(nodes_, b);
    nodes_[b].visited = kNotHeld;
  }

  BlockVector<SieveNode> nodes_;
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
