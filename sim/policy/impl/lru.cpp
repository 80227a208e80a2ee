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

class LruPolicy final : public IEvictionPolicy {
 public:
  explicit LruPolicy(const PolicyContext& context) {
    links_.reserve(context.block_count);
    held_.reserve(context.block_count);
  }

  std::string_view name() const override { return "lru"; }

  void on_hit(const PolicyAccess& a) override { list_.move_to_front(links_, a.block); }

  void on_insert(const PolicyAccess& a) override {
    grow_to_hold(links_, a.block);
    grow_to_hold(held_, a.block, std::uint8_t{0});
    if (held_[a.block]) {
      list_.move_to_front(links_, a.block);
      return;
    }
    held_[a.block] = 1;
    list_.push_front(links_, a.block);
  }

  std::optional<BlockIndex> evict(Nanoseconds, const EvictionFilter& filter) override {
    // Oldest first; a refused block (in use) keeps its place.
    for (BlockIndex b = list_.back(); b != kNoBlock; b = IntrusiveList::toward_front(links_, b)) {
      if (filter.allows(b)) {
        forget(b);
        return b;
      }
    }
    return std::nullopt;
  }

  void remove(BlockIndex block) override {
    if (block < held_.size() && held_[block]) forget(block);
  }

  std::size_t size() const override { return list_.size(); }

 private:
  void forget(BlockIndex b) {
    list_.erase(links_, b);
    held_[b] = 0;
  }

  LinkTable links_;
  std::vector<std::uint8_t> held_;
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
