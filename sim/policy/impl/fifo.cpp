// FIFO: evict the block inserted longest ago; hits change nothing (Belady,
// "A study of replacement algorithms for a virtual-storage computer", IBM
// Systems Journal 5(2), 1966, where it is one of the baselines).
#include <memory>

#include "sim/policy/block_table.h"
#include "sim/policy/i_eviction_policy.h"
#include "sim/policy/intrusive_list.h"

namespace flashsim {
namespace {

struct FifoNode : ListLink {
  std::uint8_t held = 0;
};

class FifoPolicy final : public IEvictionPolicy {
 public:
  explicit FifoPolicy(const PolicyContext& context) {
    nodes_.reserve(context.block_count);
  }

  std::string_view name() const override { return "fifo"; }

  void on_hit(const PolicyAccess&) override {}

  void on_insert(const PolicyAccess& a) override {
    grow_to_hold(nodes_, a.block);
    if (nodes_[a.block].held) return;  // already held: insertion order stands
    nodes_[a.block].held = 1;
    list_.push_front(nodes_, a.block);
  }

  std::optional<BlockIndex> evict(Nanoseconds, const EvictionFilter& filter) override {
    for (BlockIndex b = list_.back(); b != kNoBlock; b = IntrusiveList::toward_front(nodes_, b)) {
      if (filter.allows(b)) {
        forget(b);
        return b;
      }
    }
    return std::nullopt;
  }

  void remove(BlockIndex block) override {
    if (block < nodes_.size() && nodes_[block].held) forget(block);
  }

  std::size_t size() const override { return list_.size(); }

 private:
  void forget(BlockIndex b) {
    list_.erase(nodes_, b);
    nodes_[b].held = 0;
  }

  std::vector<FifoNode> nodes_;
  IntrusiveList list_;
};

}  // namespace

FLASHSIM_REGISTER_POLICY({"fifo",
                          "first in, first out; hits do not reorder (Belady, IBM Systems Journal 1966)",
                          {},
                          [](const ParamValues&, const PolicyContext& c) -> std::unique_ptr<IEvictionPolicy> {
                            return std::make_unique<FifoPolicy>(c);
                          }});

}  // namespace flashsim
