// LFRU, the expert cache proposed for vLLM's MoE expert offload (PR
// vllm-project/vllm#37190, "[MoE][Offload] Run MoE models exceeding VRAM via
// expert CPU offloading with GPU cache (--moe-expert-cache-size)", for RFC
// #38256: "a fixed-size GPU cache holds the hottest N experts per layer
// using LFRU (frequency-weighted LRU) eviction"). The PR names its reference
// implementation, e1n00r/tinyserve; this follows its LFRUPolicy
// (src/cache_policy.py at 0c6a3fb):
//   * a clock ticks on every hit and every insertion (not on a miss alone);
//   * each held block has freq (1 at insertion, + 1 per hit) and last (the
//     clock at its last hit or insertion);
//   * the victim minimises freq / age with age = clock - last + 1, so a
//     block used often long ago and one used once just now both yield to a
//     block used once a while ago; ties go to the block inserted first (the
//     reference scans its dict in insertion order and keeps the first
//     minimum; its docstring says "ties broken by recency", its code does
//     not); freq restarts at 1 when a block returns.
// Scores are compared exactly (freq_a * age_b < freq_b * age_a in 128 bits),
// not in floating point as the reference does. It has no parameters.
// Differences from the vLLM proposal: vLLM keeps one such cache per layer
// (N experts each); here one policy holds whatever blocks the driver gives
// it (key a block per (layer, expert) for the proposal's global analogue,
// or run one tier per layer). Sizes do not enter the score (the reference's
// experts are equal-sized); the driver evicts until the block fits.
// evict() scans every held block: O(blocks held), as the reference; the
// score order changes as the clock advances, so no static heap keeps it.
// Not the LFRU of Bilal et al. (IEEE Access 2017: a privileged LRU
// partition over an unprivileged LFU one), which shares only the name.
#include <memory>
#include <vector>

#include "sim/policy/block_table.h"
#include "sim/policy/i_eviction_policy.h"
#include "sim/policy/intrusive_list.h"

namespace flashsim {
namespace {

__extension__ typedef unsigned __int128 Wide;

struct LfruNode : ListLink {
  std::uint64_t freq = 0;
  std::uint64_t last = 0;
  bool held = false;
};

class LfruPolicy final : public IEvictionPolicy {
 public:
  LfruPolicy(const ParamValues&, const PolicyContext& context) { nodes_.reserve(context.block_count); }

  std::string_view name() const override { return "lfru"; }
  void prefetch(BlockIndex block) const override {
    if (block < nodes_.size()) __builtin_prefetch(&nodes_[block], 1);
  }

  void on_hit(const PolicyAccess& a) override {
    LfruNode& n = nodes_[a.block];
    ++n.freq;
    n.last = ++clock_;
  }

  void on_insert(const PolicyAccess& a) override {
    grow_to_hold(nodes_, a.block);
    LfruNode& n = nodes_[a.block];
    if (n.held) {
      on_hit(a);
      return;
    }
    n.held = true;
    n.freq = 1;
    n.last = ++clock_;
    order_.push_front(nodes_, a.block);  // back = inserted first
  }

  std::optional<BlockIndex> evict(Nanoseconds, const EvictionFilter& filter) override {
    BlockIndex best = kNoBlock;
    for (BlockIndex b = order_.back(); b != kNoBlock; b = IntrusiveList::toward_front(nodes_, b)) {
      if (!filter.allows(b)) continue;
      if (best == kNoBlock || lower(b, best)) best = b;
    }
    if (best == kNoBlock) return std::nullopt;
    forget(best);
    return best;
  }

  void remove(BlockIndex block) override {
    if (block < nodes_.size() && nodes_[block].held) forget(block);
  }

  std::size_t size() const override { return order_.size(); }

 private:
  /// score(a) < score(b), score = freq / (clock - last + 1), exactly.
  bool lower(BlockIndex a, BlockIndex b) const {
    const LfruNode& x = nodes_[a];
    const LfruNode& y = nodes_[b];
    const Wide age_x = clock_ - x.last + 1, age_y = clock_ - y.last + 1;
    return Wide{x.freq} * age_y < Wide{y.freq} * age_x;
  }

  void forget(BlockIndex b) {
    order_.erase(nodes_, b);
    nodes_[b].held = false;
  }

  std::vector<LfruNode> nodes_;
  IntrusiveList order_;  ///< held blocks, newest insertion at the front
  std::uint64_t clock_ = 0;
};

}  // namespace

FLASHSIM_REGISTER_POLICY({"lfru",
                          "LFRU: evict the lowest hits-per-age, freq / (clock - last + 1) (vLLM MoE expert cache, "
                          "vllm-project/vllm#37190; reference e1n00r/tinyserve)",
                          {},
                          [](const ParamValues& p, const PolicyContext& c) -> std::unique_ptr<IEvictionPolicy> {
                            return std::make_unique<LfruPolicy>(p, c);
                          }});

}  // namespace flashsim
