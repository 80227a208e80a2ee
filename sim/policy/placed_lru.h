// Static placement as a policy: a fixed set of catalog blocks, once loaded,
// stays (a placed block is never a victim); every other block streams
// through the rest of the tier under LRU. What production offload runs:
// accelerate's device_map and llama.cpp's -ngl (resident_first.cpp), and
// FlexGen's per-layer weight fractions (static_fraction.cpp). The set is
// chosen once from the trace's catalog (PolicyContext::meta) and matched
// by catalog position (PolicyContext::catalog).
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/errors.h"
#include "sim/policy/block_table.h"
#include "sim/policy/i_eviction_policy.h"
#include "sim/policy/intrusive_list.h"

namespace flashsim {

class PlacedLruPolicy final : public IEvictionPolicy {
 public:
  /// `placed[i]` marks catalog entry i of context.meta. Throws InputError
  /// when the context has no catalog view, or the placed blocks' bytes
  /// exceed the capacity the policy is told (they could not all stay).
  PlacedLruPolicy(std::string_view name, const PolicyContext& context, std::vector<bool> placed)
      : name_(name), catalog_(context.catalog), placed_(std::move(placed)) {
    if (catalog_ == nullptr || context.meta == nullptr) {
      throw InputError(std::string(name) + ": needs a trace with a block catalog (layer and kind of each block)");
    }
    first_ = context.meta->catalog.empty() ? nullptr : &context.meta->catalog.front();
    ByteCount bytes = 0;
    for (std::size_t i = 0; i < placed_.size(); ++i) bytes += placed_[i] ? context.meta->catalog[i].bytes : 0;
    placed_bytes_ = bytes;
    if (bytes > context.capacity_bytes) {
      throw InputError(std::string(name) + ": the placed blocks hold " + std::to_string(bytes) +
                       " bytes, more than the fast tier's " + std::to_string(context.capacity_bytes));
    }
  }

  std::string_view name() const override { return name_; }
  /// Catalog bytes of the placed blocks.
  ByteCount placed_bytes() const { return placed_bytes_; }

  void on_hit(const PolicyAccess& a) override {
    if (!nodes_[a.block].placed) streamed_.move_to_front(nodes_, a.block);
  }
  void on_insert(const PolicyAccess& a) override {
    grow_to_hold(nodes_, a.block);
    Node& n = nodes_[a.block];
    if (n.held) return on_hit(a);
    n.held = 1;
    n.placed = is_placed(a.block);
    if (n.placed) ++placed_held_;
    else streamed_.push_front(nodes_, a.block);
  }
  std::optional<BlockIndex> evict(Nanoseconds, const EvictionFilter& filter) override {
    for (BlockIndex b = streamed_.back(); b != kNoBlock; b = IntrusiveList::toward_front(nodes_, b)) {
      if (filter.allows(b)) {
        forget(b);
        return b;
      }
    }
    return std::nullopt;  // only placed blocks left: the miss is served uncached
  }
  void remove(BlockIndex block) override {
    if (block < nodes_.size() && nodes_[block].held) forget(block);
  }
  std::size_t size() const override { return streamed_.size() + placed_held_; }

 private:
  struct Node : ListLink {
    std::uint8_t held = 0, placed = 0;
  };
  bool is_placed(BlockIndex b) const {
    const BlockCatalogEntry* e = catalog_->entry(b);
    return e != nullptr && first_ != nullptr && placed_[static_cast<std::size_t>(e - first_)];
  }
  void forget(BlockIndex b) {
    Node& n = nodes_[b];
    if (n.placed) --placed_held_;
    else streamed_.erase(nodes_, b);
    n.held = 0;
  }

  std::string_view name_;
  const IBlockCatalogView* catalog_;
  const BlockCatalogEntry* first_ = nullptr;
  std::vector<bool> placed_;
  ByteCount placed_bytes_ = 0;
  std::vector<Node> nodes_;
  IntrusiveList streamed_;
  std::size_t placed_held_ = 0;
};

}  // namespace flashsim
