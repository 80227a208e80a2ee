// LRU-K (O'Neil, O'Neil, Weikum, "The LRU-K page replacement algorithm for
// database disk buffering", SIGMOD 1993): evict the block whose K-th most
// recent access is oldest (the largest backward K-distance). Blocks with
// fewer than K accesses have an infinite distance and go first, among them
// the least recently used (the paper's subsidiary policy). The access
// history of evicted blocks is retained (the paper's retained information;
// `retain: false` forgets it), so a block that comes back keeps its count.
// Time is the trace's access index; no correlated-reference period.
#include <deque>
#include <memory>
#include <set>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "sim/policy/block_table.h"
#include "sim/policy/i_eviction_policy.h"

namespace flashsim {
namespace {

struct LruKBlock {
  std::deque<std::uint64_t> times;  ///< the last K access times, oldest first
  bool held = false;
};

class LruKPolicy final : public IEvictionPolicy {
 public:
  LruKPolicy(const ParamValues& p, const PolicyContext& context)
      : k_(static_cast<std::size_t>(p.integer("k"))), retain_(p.text("retain") == "true") {
    blocks_.reserve(context.block_count);
  }

  std::string_view name() const override { return "lru_k"; }

  void on_hit(const PolicyAccess& a) override {
    LruKBlock& b = blocks_[a.block];
    order_.erase(key(a.block));
    touch(b, a.access_index);
    order_.insert(key(a.block));
  }

  void on_insert(const PolicyAccess& a) override {
    grow_to_hold(blocks_, a.block);
    LruKBlock& b = blocks_[a.block];
    if (b.held) {
      on_hit(a);
      return;
    }
    if (!retain_) b.times.clear();
    b.held = true;
    touch(b, a.access_index);
    order_.insert(key(a.block));
  }

  std::optional<BlockIndex> evict(Nanoseconds, const EvictionFilter& filter) override {
    for (auto it = order_.begin(); it != order_.end(); ++it) {
      const BlockIndex b = std::get<2>(*it);
      if (!filter.allows(b)) continue;
      order_.erase(it);
      blocks_[b].held = false;
      return b;
    }
    return std::nullopt;
  }

  void remove(BlockIndex block) override {
    if (block >= blocks_.size() || !blocks_[block].held) return;
    order_.erase(key(block));
    blocks_[block].held = false;
  }

  std::size_t size() const override { return order_.size(); }

 private:
  void touch(LruKBlock& b, std::uint64_t now) {
    b.times.push_back(now);
    if (b.times.size() > k_) b.times.pop_front();
  }

  /// (0, last access) for fewer than K accesses: evicted first, LRU among
  /// them; else (1, K-th most recent access): the oldest goes first.
  std::tuple<int, std::uint64_t, BlockIndex> key(BlockIndex block) const {
    const LruKBlock& b = blocks_[block];
    if (b.times.size() < k_) return {0, b.times.back(), block};
    return {1, b.times.front(), block};
  }

  std::size_t k_;
  bool retain_;
  std::vector<LruKBlock> blocks_;
  std::set<std::tuple<int, std::uint64_t, BlockIndex>> order_;
};

}  // namespace

FLASHSIM_REGISTER_POLICY({"lru_k",
                          "LRU-K: evict the oldest K-th most recent access; fewer than K accesses first, by LRU "
                          "(O'Neil, O'Neil, Weikum, SIGMOD 1993)",
                          {{"k", ParamType::integer, "2", "K: the backward distance counted (paper: K = 2)", 1, 16, {}},
                           {"retain", ParamType::choice, "true",
                            "keep the access history of evicted blocks (the paper's retained information)", 0, 0,
                            {"true", "false"}}},
                          [](const ParamValues& p, const PolicyContext& c) -> std::unique_ptr<IEvictionPolicy> {
                            return std::make_unique<LruKPolicy>(p, c);
                          }});

}  // namespace flashsim
