// The seed's hit-ratio controller (seeds/000 §1: "when the hit ratio drops
// below 0.75 the back end pre-warms the weight blocks the next 10 tokens may
// use; above 0.88 it evicts aggressively the cold blocks not accessed in the
// last 300 ms").
//
// Hit ratio: over the last `window` accesses, or over the accesses of the
// last `window_time` when that is > 0 (sim/prefetch/windowed_hit_ratio.h).
// A delayed hit counts as a miss, as in the run's hit ratio
// (sim/metrics/metrics.h). The controller acts only once the window is full.
// Mode, judged after every access: prewarm when ratio < low, evict_idle
// when ratio > high, normal otherwise. On entering prewarm or evict_idle it
// acts at once, then again every `recheck` of decision-clock time while it
// stays there; each switch is logged as an event (report()).
//
// Pre-warm: what the next `prewarm_tokens` tokens need, from the operator
// order — the non-routed blocks of the operators that follow the current
// one over T tokens, nearest first — or, for a trace without operators,
// from the learned per-token block cycle (sim/prefetch/learned_cycle.h).
// Each block counts once; the walk stops before the blocks' bytes
// (resident ones included) would pass prewarm_fraction x capacity. With a
// fixed operator order every token reads the same non-routed blocks, so any
// T >= 1 covers them all (the walk stops after one pass); T = 0 disables.
// Routed experts are not pre-warmed (no predictor here).
// Evict idle: every resident block whose last access is more than `idle`
// before now is evicted (view.for_each_resident, then actions.evict).
#include <algorithm>
#include <memory>
#include <string>

#include "sim/core/errors.h"
#include "sim/prefetch/catalog_index.h"
#include "sim/prefetch/i_prefetcher.h"
#include "sim/prefetch/learned_cycle.h"
#include "sim/prefetch/operator_order.h"
#include "sim/prefetch/prefetcher_stats.h"
#include "sim/prefetch/windowed_hit_ratio.h"

namespace flashsim {
namespace {

enum class Mode { normal = 0, prewarm = 1, evict_idle = 2 };

const char* mode_name(Mode m) {
  switch (m) {
    case Mode::prewarm: return "prewarm";
    case Mode::evict_idle: return "evict_idle";
    case Mode::normal: break;
  }
  return "normal";
}

class HitRatioController final : public IPrefetcher, public IPrefetcherReport {
 public:
  HitRatioController(const ParamValues& p, const PrefetcherContext& c)
      : ratio_(static_cast<std::uint64_t>(p.integer("window")), p.duration_ns("window_time")),
        low_(p.real("low")),
        high_(p.real("high")),
        tokens_(static_cast<std::uint64_t>(p.integer("prewarm_tokens"))),
        idle_ns_(p.duration_ns("idle")),
        recheck_ns_(p.duration_ns("recheck")),
        budget_bytes_(static_cast<ByteCount>(p.real("prewarm_fraction") * static_cast<double>(c.capacity_bytes))),
        catalog_(c.meta ? &c.meta->catalog : nullptr),
        ops_(c.meta ? &c.meta->operators : nullptr) {
    if (low_ > high_)
      throw InputError("prefetcher hit_ratio_controller: low (" + std::to_string(low_) + ") is above high (" +
                       std::to_string(high_) + ")");
    seen_.assign(catalog_.size(), 0);
  }

  std::string_view name() const override { return "hit_ratio_controller"; }

  void on_access(const PrefetchAccess& a, const IFastTierView& view, IPrefetchActions& actions) override {
    const bool use_ops = ops_ != nullptr && !ops_->empty();
    if (use_ops) {
      if (a.operator_id < ops_->size()) last_op_ = a.operator_id;
    } else {
      const std::uint32_t pos = cycle_.observe(a.block_id);
      if (pos != LearnedCycle::kNoPosition) cycle_pos_ = pos;
    }
    ratio_.add(a.now_ns, a.outcome == AccessOutcome::hit);
    if (!ratio_.full()) return;
    ++judged_;
    const double r = ratio_.ratio();
    const Mode m = r < low_ ? Mode::prewarm : r > high_ ? Mode::evict_idle : Mode::normal;
    if (m != mode_) {
      mode_ = m;
      ++switches_[static_cast<int>(m)];
      if (first_[static_cast<int>(m)] == kNever) first_[static_cast<int>(m)] = a.access_index;
      events_.push_back({a.access_index, a.now_ns, mode_name(m), r});
    } else if (m == Mode::normal || a.now_ns - last_action_ns_ < recheck_ns_) {
      return;
    }
    last_action_ns_ = a.now_ns;
    if (m == Mode::prewarm) prewarm(use_ops, view, actions);
    if (m == Mode::evict_idle) evict_idle(a.now_ns, view, actions);
  }

  void report(PrefetcherStats& out) const override {
    out.add("mode", static_cast<double>(static_cast<int>(mode_)));
    out.add("windowed_hit_ratio", ratio_.ratio());
    out.add("accesses_judged", static_cast<double>(judged_));
    out.add("switches_to_normal", static_cast<double>(switches_[0]));
    out.add("switches_to_prewarm", static_cast<double>(switches_[1]));
    out.add("switches_to_evict_idle", static_cast<double>(switches_[2]));
    out.add("first_prewarm_access", first_[1] == kNever ? -1.0 : static_cast<double>(first_[1]));
    out.add("first_evict_idle_access", first_[2] == kNever ? -1.0 : static_cast<double>(first_[2]));
    out.add("prewarm_rounds", static_cast<double>(prewarm_rounds_));
    out.add("prewarm_requests", static_cast<double>(prewarm_requests_));
    out.add("prewarm_accepted", static_cast<double>(prewarm_accepted_));
    out.add("evict_rounds", static_cast<double>(evict_rounds_));
    out.add("idle_blocks_evicted", static_cast<double>(idle_evicted_));
    out.events.insert(out.events.end(), events_.begin(), events_.end());
  }

 private:
  static constexpr std::uint64_t kNever = ~std::uint64_t{0};

  void prewarm(bool use_ops, const IFastTierView& view, IPrefetchActions& actions) {
    ++prewarm_rounds_;
    if (++epoch_ == 0) {  // stamps wrapped: clear them
      std::fill(seen_.begin(), seen_.end(), 0);
      epoch_ = 1;
    }
    ByteCount bytes = 0;
    const auto take = [&](BlockId b) {
      const std::uint32_t pos = catalog_.find(b);
      if (pos == CatalogIndex::kNotInCatalog || seen_[pos] == epoch_) return true;
      seen_[pos] = epoch_;
      const ByteCount need = catalog_.entry(pos).bytes;
      if (bytes + need > budget_bytes_) return false;
      bytes += need;
      if (view.state(b) == BlockState::absent) {
        ++prewarm_requests_;
        if (actions.prefetch(b)) ++prewarm_accepted_;
      }
      return true;
    };
    if (use_ops) {
      const std::uint32_t from = last_op_ == kNoOperator ? static_cast<std::uint32_t>(ops_->size() - 1) : last_op_;
      // Later tokens repeat the same operators: one pass covers the next T >= 1 tokens.
      const std::uint64_t steps = tokens_ == 0 ? 0 : ops_->size();
      for_each_block_ahead(*ops_, from, steps, [&](BlockId b, std::uint32_t) { return take(b); });
    } else if (cycle_.complete() && cycle_pos_ != LearnedCycle::kNoPosition) {
      const std::uint64_t steps = tokens_ == 0 ? 0 : cycle_.size();
      for (std::uint64_t i = 1; i <= steps; ++i)
        if (!take(cycle_.at(cycle_pos_ + i))) break;
    }
  }

  void evict_idle(Nanoseconds now_ns, const IFastTierView& view, IPrefetchActions& actions) {
    ++evict_rounds_;
    victims_.clear();
    view.for_each_resident([&](BlockId b) {
      const Nanoseconds t = view.last_access_ns(b);
      if (t == kNeverNs || (now_ns > t && now_ns - t > idle_ns_)) victims_.push_back(b);
    });
    for (BlockId b : victims_)
      if (actions.evict(b)) ++idle_evicted_;
  }

  WindowedHitRatio ratio_;
  double low_, high_;
  std::uint64_t tokens_;
  Nanoseconds idle_ns_, recheck_ns_;
  ByteCount budget_bytes_;
  CatalogIndex catalog_;
  const std::vector<OperatorEntry>* ops_;
  LearnedCycle cycle_;
  std::uint32_t last_op_ = kNoOperator;
  std::uint32_t cycle_pos_ = LearnedCycle::kNoPosition;
  Mode mode_ = Mode::normal;
  Nanoseconds last_action_ns_ = 0;
  std::vector<std::uint32_t> seen_;  ///< pre-warm round stamp by catalog position
  std::uint32_t epoch_ = 0;
  std::vector<BlockId> victims_;
  std::vector<PrefetcherEvent> events_;
  std::uint64_t judged_ = 0;
  std::uint64_t switches_[3] = {0, 0, 0};
  std::uint64_t first_[3] = {kNever, kNever, kNever};
  std::uint64_t prewarm_rounds_ = 0, prewarm_requests_ = 0, prewarm_accepted_ = 0;
  std::uint64_t evict_rounds_ = 0, idle_evicted_ = 0;
};

}  // namespace

FLASHSIM_REGISTER_PREFETCHER(
    {"hit_ratio_controller",
     "the seed's controller: windowed hit ratio below low pre-warms the next T tokens' blocks, above high "
     "evicts blocks idle longer than idle (seeds/000 §1)",
     {{"window", ParamType::integer, "1000",
       "accesses in the hit-ratio window (the seed does not say; ours)", 1, 1e8, {}},
      {"window_time", ParamType::duration, "0",
       "time window instead of an access count when > 0 (the seed computes it \"in real time\")", 0, 1e15, {}},
      {"low", ParamType::real, "0.75", "pre-warm when the windowed hit ratio is below this (seeds/000 §1)", 0.0,
       1.0, {}},
      {"high", ParamType::real, "0.88", "evict idle blocks when the windowed hit ratio is above this (seeds/000 §1)",
       0.0, 1.0, {}},
      {"prewarm_tokens", ParamType::integer, "10", "T: tokens ahead whose blocks are pre-warmed (seeds/000 §1)", 0,
       1e6, {}},
      {"idle", ParamType::duration, "300ms",
       "blocks not accessed for longer than this are evicted above high (seeds/000 §1)", 0, 1e15, {}},
      {"recheck", ParamType::duration, "100ms",
       "while in a mode, act again after this much decision-clock time (ours)", 0, 1e15, {}},
      {"prewarm_fraction", ParamType::real, "1.0",
       "pre-warmed blocks' bytes are bounded by this fraction of the fast tier's capacity (ours)", 0.0, 1.0, {}}},
     [](const ParamValues& p, const PrefetcherContext& c) -> std::unique_ptr<IPrefetcher> {
       return std::make_unique<HitRatioController>(p, c);
     }});

}  // namespace flashsim
