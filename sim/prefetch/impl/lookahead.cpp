// Next-N-operators lookahead. With an operator order (TraceMeta::operators,
// the topological order of the model's operator graph): when a stream's
// access names an operator it has not just been in, prefetch the
// non-routed blocks of the next `depth` operators, wrapping from the last
// operator to operator 0 of the next token. Routed MoE blocks are never
// prefetched here: which experts a token reads is for a predictor (markov)
// to say. Accesses without an operator (KV pages) do nothing.
//
// Without an operator order (a recorded trace): the per-token cycle is
// learned from the first pass of block accesses (sim/prefetch/learned_cycle.h:
// the order of first appearance, closed when the next pass visibly begins),
// and each access of a block at cycle position p prefetches the blocks at
// positions p+1 .. p+cycle_depth (wrapping). This is a predictor from the
// past, not the trace's future.
//
// Either way the walk stops before the block that would take the bytes of
// the window (resident blocks included) past `byte_budget` (0 = no bound
// besides depth). Only absent blocks are asked for.
#include <algorithm>
#include <memory>

#include "sim/core/errors.h"
#include "sim/prefetch/catalog_index.h"
#include "sim/prefetch/i_prefetcher.h"
#include "sim/prefetch/learned_cycle.h"
#include "sim/prefetch/operator_order.h"
#include "sim/prefetch/per_stream.h"
#include "sim/prefetch/prefetcher_stats.h"

namespace flashsim {
namespace {

class LookaheadPrefetcher final : public IPrefetcher, public IPrefetcherReport {
 public:
  LookaheadPrefetcher(const ParamValues& p, const PrefetcherContext& c)
      : depth_(static_cast<std::uint64_t>(p.integer("depth"))),
        cycle_depth_(static_cast<std::uint64_t>(p.integer("cycle_depth"))),
        budget_bytes_(p.bytes("byte_budget")),
        catalog_(c.meta ? &c.meta->catalog : nullptr),
        ops_(c.meta ? &c.meta->operators : nullptr),
        last_(kNoOperator) {}

  std::string_view name() const override { return "lookahead"; }

  void on_access(const PrefetchAccess& a, const IFastTierView& view, IPrefetchActions& actions) override {
    if (ops_ != nullptr && !ops_->empty()) {
      if (a.operator_id >= ops_->size()) return;
      std::uint32_t& last = last_.at(a.stream_id);
      if (last == a.operator_id) return;
      last = a.operator_id;
      ++windows_;
      ByteCount window_bytes = 0;
      for_each_block_ahead(*ops_, a.operator_id, depth_, [&](BlockId b, std::uint32_t) {
        return consider(b, window_bytes, view, actions);
      });
      return;
    }
    const std::uint32_t pos = cycle_.observe(a.block_id);
    if (!cycle_.complete() || pos == LearnedCycle::kNoPosition) return;
    std::uint32_t& last = last_.at(a.stream_id);
    if (last == pos) return;
    last = pos;
    ++windows_;
    ByteCount window_bytes = 0;
    // Past one whole cycle the walk only revisits blocks already considered.
    const std::uint64_t ahead = std::min<std::uint64_t>(cycle_depth_, cycle_.size());
    for (std::uint64_t i = 1; i <= ahead; ++i)
      if (!consider(cycle_.at(pos + i), window_bytes, view, actions)) break;
  }

  void report(PrefetcherStats& out) const override {
    out.add("windows", static_cast<double>(windows_));
    out.add("prefetch_requests", static_cast<double>(requests_));
    out.add("prefetch_accepted", static_cast<double>(accepted_));
    out.add("learned_cycle_blocks", static_cast<double>(cycle_.size()));
    out.add("learned_cycle_complete", cycle_.complete() ? 1.0 : 0.0);
  }

 private:
  /// Adds `b` to the window; false when the byte budget stops the walk.
  bool consider(BlockId b, ByteCount& window_bytes, const IFastTierView& view, IPrefetchActions& actions) {
    const std::uint32_t pos = catalog_.find(b);
    if (pos == CatalogIndex::kNotInCatalog) return true;  // size unknown: cannot be fetched
    const ByteCount bytes = catalog_.entry(pos).bytes;
    if (budget_bytes_ > 0 && window_bytes + bytes > budget_bytes_) return false;
    window_bytes += bytes;
    if (view.state(b) != BlockState::absent) return true;
    ++requests_;
    if (actions.prefetch(b)) ++accepted_;
    return true;
  }

  std::uint64_t depth_;
  std::uint64_t cycle_depth_;
  ByteCount budget_bytes_;
  CatalogIndex catalog_;
  const std::vector<OperatorEntry>* ops_;
  PerStream<std::uint32_t> last_;  ///< last operator (or cycle position) per stream
  LearnedCycle cycle_;
  std::uint64_t windows_ = 0, requests_ = 0, accepted_ = 0;
};

}  // namespace

FLASHSIM_REGISTER_PREFETCHER(
    {"lookahead",
     "next-N-operators lookahead along the model's operator order (non-routed blocks); learned per-token "
     "block cycle when the trace has no operators",
     {{"depth", ParamType::integer, "2",
       "operators ahead whose blocks are prefetched when a stream enters an operator (ours; offloading "
       "runtimes such as FlexGen overlap the next layer's load with the current one's compute)",
       0, 1e9, {}},
      {"cycle_depth", ParamType::integer, "8",
       "blocks ahead along the learned per-token cycle, for traces without operators (ours)", 0, 1e9, {}},
      {"byte_budget", ParamType::bytes, "0",
       "largest bytes of one lookahead window, resident blocks included; 0 = bounded by depth only (ours)", 0,
       1e18, {}}},
     [](const ParamValues& p, const PrefetcherContext& c) -> std::unique_ptr<IPrefetcher> {
       return std::make_unique<LookaheadPrefetcher>(p, c);
     }});

}  // namespace flashsim
