// GDSF, Greedy-Dual-Size-Frequency (Cherkasova, "Improving WWW proxies
// performance with Greedy-Dual-Size-Frequency caching policy", HP Labs
// HPL-98-69, 1998): a block's priority is H = L + frequency × cost / size,
// evict the lowest H, and L (the inflation value) becomes the victim's H, so
// blocks not accessed for long age relative to newcomers. cost = 1 (the
// objective is the hit ratio by access: small, frequent blocks are kept).
// Frequency counts accesses since the block was last inserted (in-cache, as
// in LFU). Ties in H go to the block accessed least recently.
#include <memory>
#include <set>
#include <tuple>
#include <vector>

#include "sim/policy/block_table.h"
#include "sim/policy/i_eviction_policy.h"

namespace flashsim {
namespace {

struct GdsfBlock {
  double priority = 0;
  std::uint64_t frequency = 0;  ///< 0 when not held
  std::uint64_t stamp = 0;      ///< order of its last access (tie break)
};

class GdsfPolicy final : public IEvictionPolicy {
 public:
  explicit GdsfPolicy(const PolicyContext& context) { blocks_.reserve(context.block_count); }

  std::string_view name() const override { return "gdsf"; }

  void on_hit(const PolicyAccess& a) override {
    GdsfBlock& b = blocks_[a.block];
    order_.erase({b.priority, b.stamp, a.block});
    ++b.frequency;
    place(a.block, a.bytes);
  }

  void on_insert(const PolicyAccess& a) override {
    grow_to_hold(blocks_, a.block);
    if (blocks_[a.block].frequency != 0) {
      on_hit(a);
      return;
    }
    blocks_[a.block].frequency = 1;
    place(a.block, a.bytes);
  }

  std::optional<BlockIndex> evict(Nanoseconds, const EvictionFilter& filter) override {
    for (auto it = order_.begin(); it != order_.end(); ++it) {
      const BlockIndex b = std::get<2>(*it);
      if (!filter.allows(b)) continue;
      inflation_ = std::get<0>(*it);
      order_.erase(it);
      blocks_[b].frequency = 0;
      return b;
    }
    return std::nullopt;
  }

  void remove(BlockIndex block) override {
    if (block >= blocks_.size() || blocks_[block].frequency == 0) return;
    order_.erase({blocks_[block].priority, blocks_[block].stamp, block});
    blocks_[block].frequency = 0;
  }

  std::size_t size() const override { return order_.size(); }

 private:
  void place(BlockIndex block, ByteCount bytes) {
    GdsfBlock& b = blocks_[block];
    b.priority = inflation_ + static_cast<double>(b.frequency) / static_cast<double>(bytes > 0 ? bytes : 1);
    b.stamp = ++clock_;
    order_.insert({b.priority, b.stamp, block});
  }

  std::vector<GdsfBlock> blocks_;
  std::set<std::tuple<double, std::uint64_t, BlockIndex>> order_;  ///< (H, last access order, block)
  double inflation_ = 0;  ///< L
  std::uint64_t clock_ = 0;
};

}  // namespace

FLASHSIM_REGISTER_POLICY({"gdsf",
                          "Greedy-Dual-Size-Frequency: evict the lowest L + frequency/size, L inflates to the "
                          "victim's priority; size-aware (Cherkasova, HP Labs HPL-98-69, 1998)",
                          {},
                          [](const ParamValues&, const PolicyContext& c) -> std::unique_ptr<IEvictionPolicy> {
                            return std::make_unique<GdsfPolicy>(c);
                          }});

}  // namespace flashsim
