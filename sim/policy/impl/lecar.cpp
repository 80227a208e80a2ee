// LeCaR (Vietri et al., "Driving cache replacement with ML-based LeCaR",
// HotStorage 2018): two experts, LRU and LFU, each with a history of the
// blocks it evicted; an eviction follows LRU with probability w_lru, else
// LFU. A miss on a block in an expert's history means that expert was
// wrong: its weight is multiplied by exp(-learning_rate · discount^age)
// (age: evictions since it evicted that block) and the weights are
// renormalised. Paper defaults: learning rate 0.45, discount 0.005^(1/N)
// with N the number of blocks held, each history as long as the cache.
// LFU here counts accesses since insertion (ties: least recently used), as
// flashsim's `lfu`; a block returning from a history keeps no count.
// The choice is drawn from a seeded generator: runs are reproducible.
#include <cmath>
#include <deque>
#include <list>
#include <memory>
#include <random>
#include <set>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "sim/policy/block_table.h"
#include "sim/policy/i_eviction_policy.h"

namespace flashsim {
namespace {

struct LecarBlock {
  bool held = false;
  std::uint64_t frequency = 0;
  std::uint64_t stamp = 0;  ///< order of the last access
  std::list<BlockIndex>::iterator lru;
};

class LecarPolicy final : public IEvictionPolicy {
 public:
  LecarPolicy(const ParamValues& p, const PolicyContext& context)
      : w_lru_(p.real("initial_lru_weight")), rate_(p.real("learning_rate")),
        rng_(static_cast<std::uint64_t>(p.integer("seed"))) {
    blocks_.reserve(context.block_count);
  }

  std::string_view name() const override { return "lecar"; }

  void on_miss(const PolicyAccess& a) override {
    learn(history_lru_, a.block, true);
    learn(history_lfu_, a.block, false);
  }

  void on_hit(const PolicyAccess& a) override {
    LecarBlock& b = blocks_[a.block];
    by_frequency_.erase({b.frequency, b.stamp, a.block});
    lru_.splice(lru_.begin(), lru_, b.lru);
    ++b.frequency;
    b.stamp = ++clock_;
    by_frequency_.insert({b.frequency, b.stamp, a.block});
  }

  void on_insert(const PolicyAccess& a) override {
    grow_to_hold(blocks_, a.block);
    LecarBlock& b = blocks_[a.block];
    if (b.held) {
      on_hit(a);
      return;
    }
    b.held = true;
    b.frequency = 1;
    b.stamp = ++clock_;
    lru_.push_front(a.block);
    b.lru = lru_.begin();
    by_frequency_.insert({b.frequency, b.stamp, a.block});
  }

  std::optional<BlockIndex> evict(Nanoseconds, const EvictionFilter& filter) override {
    const bool use_lru = std::uniform_real_distribution<double>(0.0, 1.0)(rng_) < w_lru_;
    std::optional<BlockIndex> victim;
    if (use_lru) {
      for (auto it = lru_.rbegin(); it != lru_.rend() && !victim; ++it) {
        if (filter.allows(*it)) victim = *it;
      }
    } else {
      for (auto it = by_frequency_.begin(); it != by_frequency_.end() && !victim; ++it) {
        if (filter.allows(std::get<2>(*it))) victim = std::get<2>(*it);
      }
    }
    if (!victim) return std::nullopt;
    ++evictions_;
    const std::size_t bound = lru_.size();  // each history as long as the cache (in blocks)
    forget(*victim);
    remember(use_lru ? history_lru_ : history_lfu_, *victim, bound);
    return victim;
  }

  void remove(BlockIndex block) override {
    if (block < blocks_.size() && blocks_[block].held) forget(block);
  }

  std::size_t size() const override { return lru_.size(); }

 private:
  struct History {
    std::deque<std::pair<BlockIndex, std::uint64_t>> order;  ///< (block, eviction count when evicted), oldest first
    std::unordered_map<BlockIndex, std::uint64_t> when;
  };

  void forget(BlockIndex block) {
    LecarBlock& b = blocks_[block];
    by_frequency_.erase({b.frequency, b.stamp, block});
    lru_.erase(b.lru);
    b.held = false;
  }

  void remember(History& h, BlockIndex block, std::size_t bound) {
    h.when[block] = evictions_;
    h.order.emplace_back(block, evictions_);
    while (h.order.size() > std::max<std::size_t>(bound, 1)) {
      const auto [old, at] = h.order.front();
      h.order.pop_front();
      const auto it = h.when.find(old);
      if (it != h.when.end() && it->second == at) h.when.erase(it);
    }
  }

  void learn(History& h, BlockIndex block, bool lru_erred) {
    const auto it = h.when.find(block);
    if (it == h.when.end()) return;
    const double n = static_cast<double>(std::max<std::size_t>(lru_.size(), 1));
    const double discount = std::pow(0.005, 1.0 / n);
    const double regret = std::pow(discount, static_cast<double>(evictions_ - it->second));
    h.when.erase(it);
    double w_lru = w_lru_, w_lfu = 1.0 - w_lru_;
    (lru_erred ? w_lru : w_lfu) *= std::exp(-rate_ * regret);
    w_lru_ = w_lru / (w_lru + w_lfu);
  }

  std::vector<LecarBlock> blocks_;
  std::list<BlockIndex> lru_;  ///< most recent first
  std::set<std::tuple<std::uint64_t, std::uint64_t, BlockIndex>> by_frequency_;  ///< (count, last access, block)
  History history_lru_, history_lfu_;
  double w_lru_;
  double rate_;
  std::mt19937_64 rng_;
  std::uint64_t clock_ = 0, evictions_ = 0;
};

}  // namespace

FLASHSIM_REGISTER_POLICY({"lecar",
                          "LeCaR: LRU and LFU experts weighted by regret over their eviction histories (Vietri et "
                          "al., HotStorage 2018)",
                          {{"learning_rate", ParamType::real, "0.45", "lambda (paper: 0.45)", 0.0, 10.0, {}},
                           {"initial_lru_weight", ParamType::real, "0.5", "w_lru at the start (paper: 0.5)", 0.0, 1.0, {}},
                           {"seed", ParamType::integer, "1", "seed of the expert choice", 0, 9.2e18, {}}},
                          [](const ParamValues& p, const PolicyContext& c) -> std::unique_ptr<IEvictionPolicy> {
                            return std::make_unique<LecarPolicy>(p, c);
                          }});

}  // namespace flashsim
