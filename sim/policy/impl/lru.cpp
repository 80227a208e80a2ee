// LRU: evict the block whose last access is oldest (Mattson et al., "Evaluation
// techniques for storage hierarchies", IBM Systems Journal 9(2), 1970, the
// stack algorithm). One intrusive list: a hit moves the block to the front,
// eviction takes the back. Sizes do not change the order: with variable-size
// blocks the driver simply evicts from the back until the new block fits.
#include <memory>

#include "sim/policy/block_table.h"
#include "sim/policy/i_eviction_policy.h"
#include "sim/policy/intrusive_list.h"

namespace flashsim {
namespace {

struct LruNode : ListLink {
  std::uint8_t held = 0;
};

class LruPolicy final : public IEvictionPolicy {
 public:
  explicit LruPolicy(const PolicyContext& context) {
    nodes_.reserve(context.block_count);
  }

  std::string_view name() const override { return "lru"; }

  void on_hit(const PolicyAccess& a) override { list_.move_to_front(nodes_, a.block); }

  void on_insert(const PolicyAccess& a) override {
    grow_to_hold(nodes_, a.block);
    if (nodes_[a.block].held) {
      list_.move_to_front(nodes_, a.block);
      return;
    }
    nodes_[a.block].held = 1;
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
        }
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

  std::vector<LruNode> nodes_;
  IntrusiveList list_;
};

}  // namespace

FLASHSIM_REGISTER_POLICY({"lru",
                          "least recently used (Mattson et al., IBM Systems Journal 1970)",
                          {},
                          [](const ParamValues&, const PolicyContext& c) -> std::unique_ptr<IEvictionPolicy> {
                            return std::make_unique<LruPolicy>(c);
                          }});

}  // namespace flashsim
