// CLOCK, second chance (Corbató, "A paging experiment with the Multics
// system", MIT Project MAC, 1968). Each block has a reference counter of
// `bits` bits (1 = classic second chance). A hit increments it, saturating
// at 2^bits - 1; a new block starts at 0. Eviction sweeps from the oldest
// block: a block with a non-zero counter is decremented and passed over, the
// first block at zero is the victim.
//
// Implemented as FIFO with reinsertion: "passed over" moves the block to
// the front. This visits blocks in exactly the order of a hand sweeping a
// circular buffer in which a new block takes the evicted block's slot (just
// behind the hand), so victims equal those of the textbook clock.
// A block the driver's filter refuses keeps its place and its counter.
#include <memory>

#include "sim/policy/block_table.h"
#include "sim/policy/i_eviction_policy.h"
#include "sim/policy/intrusive_list.h"

namespace flashsim {
namespace {

constexpr std::uint8_t kNotHeld = 0xFF;

struct ClockNode : ListLink {
  std::uint8_t count = kNotHeld;  ///< reference counter; kNotHeld when not held
};

class ClockPolicy final : public IEvictionPolicy {
 public:
  ClockPolicy(const ParamValues& params, const PolicyContext& context)
      : max_count_(static_cast<std::uint8_t>((1u << params.integer("bits")) - 1)) {
    nodes_.reserve(context.block_count);
  }

  std::string_view name() const override { return "clock"; }
  void prefetch(BlockIndex block) const override {
    if (block < nodes_.size()) __builtin_prefetch(&nodes_[block], 1);
  }

  void on_hit(const PolicyAccess& a) override {
    std::uint8_t& c = nodes_[a.block].count;
    if (c < max_count_) ++c;
  }

  void on_insert(const PolicyAccess& a) override {
    grow_to_hold(nodes_, a.block);
    if (nodes_[a.block].count != kNotHeld) {
      on_hit(a);
      return;
    }
    nodes_[a.block].count = 0;
    list_.push_front(nodes_, a.block);
  }

  std::optional<BlockIndex> evict(Nanoseconds, const EvictionFilter& filter) override {
    for (;;) {
      bool any_allowed = false;
      for (BlockIndex b = list_.back(); b != kNoBlock;) {
        const BlockIndex next = IntrusiveList::toward_front(nodes_, b);
        if (filter.allows(b)) {
          any_allowed = true;
          if (nodes_[b].count == 0) {
            forget(b);
            return b;
          }
          --nodes_[b].count;
          list_.move_to_front(nodes_, b);
        }
        b = next;
      }
      if (!any_allowed) return std::nullopt;
    }
  }

  void remove(BlockIndex block) override {
    if (block < nodes_.size() && nodes_[block].count != kNotHeld) forget(block);
  }

  std::size_t size() const override { return list_.size(); }

 private:
  void forget(BlockIndex b) {
    list_.erase(nodes_, b);
    nodes_[b].count = kNotHeld;
  }

  std::uint8_t max_count_;
  std::vector<ClockNode> nodes_;
  IntrusiveList list_;
};

}  // namespace

FLASHSIM_REGISTER_POLICY({"clock",
                          "CLOCK / second chance with an n-bit reference counter (Corbato, MIT Project MAC 1968)",
                          {{"bits", ParamType::integer, "1",
                            "reference counter bits: 1 = second chance; k bits saturate at 2^k-1 "
                            "(generalised clock, as libCacheSim's Clock n-bit-counter)",
                            1, 7, {}}},
                          [](const ParamValues& p, const PolicyContext& c) -> std::unique_ptr<IEvictionPolicy> {
                            return std::make_unique<ClockPolicy>(p, c);
                          }});

}  // namespace flashsim
