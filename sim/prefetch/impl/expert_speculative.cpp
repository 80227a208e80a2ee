// Speculative next-layer expert prefetch, in the manner of Mixtral-offloading
// (Eliseev & Mazur, arXiv 2312.17238, §3.2) and Pre-gated MoE (Hwang et al.,
// ISCA 2024): while layer l runs, the next layer's gate applied to the
// current hidden state guesses which experts layer l + k will route to, and
// those are loaded early. The simulator has no hidden state, so the guess is
// *modelled*: a predictor right with probability `accuracy` per expert. It
// reads the trace once before the run (IPrefetcher::preview) to know, for
// each forward pass, which experts each layer really used; when a pass
// first touches an expert of layer l, each expert that layer l + k (k =
// `layers_ahead`, same pass) uses is predicted right with probability
// `accuracy` -- all its blocks are prefetched -- or replaced by an expert
// of that layer it does not use, drawn uniformly (seeded). A pass ends, in
// the preview and in the run alike, at an expert of a lower layer than the
// one before. Accuracy 1 is an oracle; Mixtral-offloading reports its
// speculative guess right for about 0.9 of next-layer experts (ibid., Fig. 2).
#include <algorithm>
#include <map>
#include <memory>
#include <random>
#include <vector>

#include "sim/core/errors.h"
#include "sim/core/hash_map.h"
#include "sim/policy/model_blocks.h"
#include "sim/prefetch/catalog_index.h"
#include "sim/prefetch/i_prefetcher.h"

namespace flashsim {
namespace {

class ExpertSpeculativePrefetcher final : public IPrefetcher {
 public:
  ExpertSpeculativePrefetcher(const ParamValues& p, const PrefetcherContext& c)
      : accuracy_(p.real("accuracy")), ahead_(static_cast<std::int32_t>(p.integer("layers_ahead"))),
        rng_(c.seed ^ static_cast<std::uint64_t>(p.integer("seed"))) {
    if (c.meta == nullptr || c.meta->catalog.empty()) {
      throw InputError("expert_speculative: needs a trace with a block catalog (layer and expert of each block)");
    }
    index_ = CatalogIndex(&c.meta->catalog);
    const ExpertGrid grid = expert_grid(c.meta->catalog, "expert_speculative");
    layers_ = grid.layers;
    experts_ = grid.experts;
    if (ahead_ >= layers_) {
      throw InputError("expert_speculative: layers_ahead " + std::to_string(ahead_) + " reaches past the model's " +
                       std::to_string(layers_) + " expert layers (at most " + std::to_string(layers_ - 1) + ")");
    }
    expert_blocks_.resize(grid.size());
    for (const auto& e : c.meta->catalog) {
      const std::int32_t x = expert_of(e);
      if (x >= 0 && e.layer >= 0) expert_blocks_[grid.index(e.layer, x)].push_back(e.id);
    }
  }

  std::string_view name() const override { return "expert_speculative"; }
  bool wants_preview() const override { return true; }

  // Pass by pass: where each layer's first expert access is, and which
  // experts each layer uses. The triggers are resolved when a pass ends.
  void preview(const AccessRecord& r, std::uint64_t index) override {
    std::int32_t layer, expert;
    if (!expert_access(r.block_id, &layer, &expert)) return;
    if (layer < preview_layer_) close_pass();
    if (layer != preview_layer_ || !pass_open_) {
      pass_first_[layer] = index;
      pass_open_ = true;
    }
    preview_layer_ = layer;
    auto& used = pass_used_[layer];
    if (std::find(used.begin(), used.end(), expert) == used.end()) used.push_back(expert);
  }

  void on_access(const PrefetchAccess& a, const IFastTierView&, IPrefetchActions& actions) override {
    if (!closed_) {
      close_pass();  // the preview's last pass
      closed_ = true;
    }
    auto it = triggers_.find(a.access_index);
    if (it == triggers_.end()) return;
    const Trigger& t = it->second;
    std::vector<std::int32_t> chosen;
    for (std::int32_t e : t.experts) {
      std::int32_t guess = e;
      if (uniform_(rng_) >= accuracy_) {
        std::vector<std::int32_t> wrong;
        for (std::int32_t x = 0; x < experts_; ++x) {
          if (std::find(t.experts.begin(), t.experts.end(), x) == t.experts.end() &&
              std::find(chosen.begin(), chosen.end(), x) == chosen.end()) {
            wrong.push_back(x);
          }
        }
        if (wrong.empty()) continue;
        guess = wrong[std::uniform_int_distribution<std::size_t>(0, wrong.size() - 1)(rng_)];
      }
      chosen.push_back(guess);
      for (BlockId b : expert_blocks_[static_cast<std::size_t>(t.layer * experts_ + guess)]) actions.prefetch(b);
    }
  }

 private:
  struct Trigger {
    std::int32_t layer = 0;               ///< the layer predicted
    std::vector<std::int32_t> experts;    ///< what it really uses
  };

  bool expert_access(BlockId id, std::int32_t* layer, std::int32_t* expert) const {
    const std::uint32_t pos = index_.find(id);
    if (pos == CatalogIndex::kNotInCatalog) return false;
    const BlockCatalogEntry& e = index_.entry(pos);
    *expert = expert_of(e);
    *layer = e.layer;
    return *expert >= 0 && *layer >= 0 && *layer < layers_;
  }

  void close_pass() {
    for (const auto& [layer, first] : pass_first_) {
      auto target = pass_used_.find(layer + ahead_);
      if (target == pass_used_.end()) continue;
      triggers_[first] = Trigger{layer + ahead_, target->second};
    }
    pass_first_.clear();
    pass_used_.clear();
    pass_open_ = false;
    preview_layer_ = -1;
  }

  double accuracy_;
  std::int32_t ahead_;
  std::mt19937_64 rng_;
  std::uniform_real_distribution<double> uniform_{0.0, 1.0};
  CatalogIndex index_;
  std::int32_t layers_ = 0, experts_ = 0;
  std::vector<std::vector<BlockId>> expert_blocks_;  ///< per (layer, expert): its blocks, catalog order
  // The preview's state.
  std::map<std::int32_t, std::uint64_t> pass_first_;             ///< layer -> index of its first expert access
  std::map<std::int32_t, std::vector<std::int32_t>> pass_used_;  ///< layer -> experts used, in order
  std::int32_t preview_layer_ = -1;
  bool pass_open_ = false, closed_ = false;
  HashMap<std::uint64_t, Trigger> triggers_;  ///< access index -> the prediction made there
};

}  // namespace

FLASHSIM_REGISTER_PREFETCHER(
    {"expert_speculative",
     "speculative next-layer expert prefetch: a modelled gate predictor right with probability `accuracy` per "
     "expert (Mixtral-offloading, Eliseev & Mazur 2023; Pre-gated MoE, Hwang et al., ISCA 2024)",
     {{"accuracy", ParamType::real, "0.9", "probability that a predicted expert is one the layer uses", 0.0, 1.0, {}},
      {"layers_ahead", ParamType::integer, "1", "k: predict layer l + k while layer l runs", 1, 1e6, {}},
      {"seed", ParamType::integer, "0", "mixed into the scenario seed for the predictor's draws", 0, 9.2e18, {}}},
     [](const ParamValues& p, const PrefetcherContext& c) -> std::unique_ptr<IPrefetcher> {
       return std::make_unique<ExpertSpeculativePrefetcher>(p, c);
     }});

}  // namespace flashsim
