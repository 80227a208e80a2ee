// Multimodal semantic prefetch and similarity-aware eviction (seeds/000
// §3.3: prefetch the weights of an image's top-5 visual concepts; when the
// GPU tier must evict, look up the 5 concepts semantically closest to a
// block and evict it first if 3 of them are already in CPU memory, the next
// tier).
//
// Concepts are BlockCatalogEntry::concept_id groups with embeddings
// (sim/prefetch/concept_index.h: cosine similarity, exact neighbours).
// Prefetch: on the first access of a visit (per stream) to a block of
// concept c, the absent blocks of c's `top_k` most similar concepts with
// similarity >= min_similarity are prefetched, most similar first.
// Eviction: the prefetcher cannot change the eviction policy's choice, so
// it evicts ahead of it: every `sweep_interval` accesses, when reserved
// bytes are at least evict_pressure x capacity, every resident block whose
// concept has at least `neighbours_in_next_tier` of its `neighbours`
// nearest concepts in the next tier is a candidate (a concept is in the
// next tier when all its blocks are: view.in_next_tier). Candidates are
// evicted least recently accessed first (ties: lower block id) until the
// reserved bytes drop below the pressure level (evict_pressure 0: all of
// them). Blocks without a concept or embedding are left to the eviction
// policy.
#include <algorithm>
#include <memory>

#include "sim/core/errors.h"
#include "sim/prefetch/catalog_index.h"
#include "sim/prefetch/concept_index.h"
#include "sim/prefetch/i_prefetcher.h"
#include "sim/prefetch/per_stream.h"
#include "sim/prefetch/prefetcher_stats.h"

namespace flashsim {
namespace {

class SemanticPrefetcher final : public IPrefetcher, public IPrefetcherReport {
 public:
  SemanticPrefetcher(const ParamValues& p, const PrefetcherContext& c)
      : top_k_(static_cast<std::size_t>(p.integer("top_k"))),
        min_similarity_(p.real("min_similarity")),
        neighbours_(static_cast<std::size_t>(p.integer("neighbours"))),
        needed_(static_cast<std::size_t>(p.integer("neighbours_in_next_tier"))),
        pressure_(p.real("evict_pressure")),
        sweep_interval_(static_cast<std::uint64_t>(p.integer("sweep_interval"))),
        capacity_bytes_(c.capacity_bytes),
        catalog_(c.meta ? &c.meta->catalog : nullptr),
        concepts_(catalog_, std::max(top_k_, neighbours_)),
        last_concept_(ConceptIndex::kNoConcept) {
    if (needed_ > neighbours_)
      throw InputError("prefetcher semantic: neighbours_in_next_tier (" + std::to_string(needed_) +
                       ") exceeds neighbours (" + std::to_string(neighbours_) + ")");
  }

  std::string_view name() const override { return "semantic"; }

  void on_access(const PrefetchAccess& a, const IFastTierView& view, IPrefetchActions& actions) override {
    const std::uint32_t pos = catalog_.find(a.block_id);
    const std::uint32_t c = pos == CatalogIndex::kNotInCatalog ? ConceptIndex::kNoConcept : concepts_.concept_of(pos);
    std::uint32_t& last = last_concept_.at(a.stream_id);
    if (c != ConceptIndex::kNoConcept && c != last) prefetch_similar(c, view, actions);
    last = c;
    if (++since_sweep_ >= sweep_interval_) {
      since_sweep_ = 0;
      if (static_cast<double>(view.reserved_bytes()) >= pressure_ * static_cast<double>(capacity_bytes_))
        sweep(view, actions);
    }
  }

  void report(PrefetcherStats& out) const override {
    out.add("concepts", static_cast<double>(concepts_.concept_count()));
    out.add("prefetch_requests", static_cast<double>(requests_));
    out.add("prefetch_accepted", static_cast<double>(accepted_));
    out.add("sweeps", static_cast<double>(sweeps_));
    out.add("similarity_evictions", static_cast<double>(evicted_));
  }

 private:
  void prefetch_similar(std::uint32_t c, const IFastTierView& view, IPrefetchActions& actions) {
    const std::vector<std::uint32_t>& near = concepts_.nearest(c);
    const std::size_t k = std::min(top_k_, near.size());
    for (std::size_t i = 0; i < k; ++i) {
      if (concepts_.similarity(c, near[i]) < min_similarity_) break;  // sorted: the rest are less similar
      for (BlockId b : concepts_.blocks(near[i])) {
        if (view.state(b) != BlockState::absent) continue;
        ++requests_;
        if (actions.prefetch(b)) ++accepted_;
      }
    }
  }

  bool concept_in_next_tier(std::uint32_t c, const IFastTierView& view) const {
    for (BlockId b : concepts_.blocks(c))
      if (!view.in_next_tier(b)) return false;
    return true;
  }

  /// Walks the concepts' blocks (not every resident block: concept blocks
  /// are usually few), so a sweep costs O(concept blocks).
  void sweep(const IFastTierView& view, IPrefetchActions& actions) {
    ++sweeps_;
    candidates_.clear();
    for (std::uint32_t c = 0; c < concepts_.concept_count(); ++c) {
      if (!concepts_.has_embedding(c)) continue;
      bool any_resident = false;
      for (BlockId b : concepts_.blocks(c)) any_resident |= view.state(b) == BlockState::resident;
      if (!any_resident) continue;
      const std::vector<std::uint32_t>& near = concepts_.nearest(c);
      const std::size_t k = std::min(neighbours_, near.size());
      std::size_t below = 0;
      for (std::size_t i = 0; i < k; ++i)
        if (concept_in_next_tier(near[i], view)) ++below;
      if (k == 0 || below < needed_) continue;
      for (BlockId b : concepts_.blocks(c))
        if (view.state(b) == BlockState::resident) candidates_.push_back({view.last_access_ns(b), b});
    }
    std::sort(candidates_.begin(), candidates_.end());
    const double level = pressure_ * static_cast<double>(capacity_bytes_);
    for (const auto& [t, b] : candidates_) {
      if (pressure_ > 0.0 && static_cast<double>(view.reserved_bytes()) < level) break;
      if (actions.evict(b)) ++evicted_;
    }
  }

  std::size_t top_k_;
  double min_similarity_;
  std::size_t neighbours_, needed_;
  double pressure_;
  std::uint64_t sweep_interval_;
  ByteCount capacity_bytes_;
  CatalogIndex catalog_;
  ConceptIndex concepts_;
  PerStream<std::uint32_t> last_concept_;
  std::vector<std::pair<Nanoseconds, BlockId>> candidates_;
  std::uint64_t since_sweep_ = 0, sweeps_ = 0, evicted_ = 0, requests_ = 0, accepted_ = 0;
};

}  // namespace

FLASHSIM_REGISTER_PREFETCHER(
    {"semantic",
     "multimodal semantic prefetch of the top-k most similar concepts' blocks and similarity-aware eviction "
     "(seeds/000 §3.3)",
     {{"top_k", ParamType::integer, "5", "most similar concepts prefetched per concept visit (seeds/000 §3.3: top-5)",
       0, 1e6, {}},
      {"min_similarity", ParamType::real, "-1",
       "least cosine similarity of a prefetched concept; -1 = any (ours)", -1.0, 1.0, {}},
      {"neighbours", ParamType::integer, "5",
       "nearest concepts looked up for eviction (seeds/000 §3.3: the 5 closest)", 0, 1e6, {}},
      {"neighbours_in_next_tier", ParamType::integer, "3",
       "evict a block when at least this many of its nearest concepts are in the next tier (seeds/000 §3.3: 3)", 0,
       1e6, {}},
      {"evict_pressure", ParamType::real, "0.9",
       "similarity eviction runs while reserved bytes >= this fraction of capacity; 0 = always, all candidates "
       "(ours: the seed applies it when the tier must evict)",
       0.0, 1.0, {}},
      {"sweep_interval", ParamType::integer, "256", "accesses between eviction sweeps (ours)", 1, 1e12, {}}},
     [](const ParamValues& p, const PrefetcherContext& c) -> std::unique_ptr<IPrefetcher> {
       return std::make_unique<SemanticPrefetcher>(p, c);
     }});

}  // namespace flashsim
