// An activation-aware expert cache in the manner of MoE-Infinity (Xue et al.,
// "MoE-Infinity: Offloading-Efficient MoE Model Serving", arXiv 2401.14361):
// it records which experts each forward pass activates (an activation
// matrix, layers × experts), keeps the last `history` matrices (the
// collection), and predicts the current pass's activations from the past
// matrix most similar (cosine) to the current one over the layers seen so
// far, blended with each expert's decayed activation frequency:
//   p(l,e) = (1 − w) · freq(l,e) + w · match(l,e).
// The victim is a resident block of the expert whose next use is expected
// furthest away: layers run in order, so an expert of layer l is next
// needed d = (l − current layer) mod L layers from now if this pass uses
// it, and after a geometric number of passes otherwise:
//   E[distance] = d + L · (1 − p) / p        (p floored at 1e-6).
// Within an expert, blocks go least recently used first. Non-expert blocks
// (attention, norms, embeddings, KV pages) are evicted only when no expert
// block is, by LRU: they are used every pass. A pass ends when an expert
// of a lower layer than the last one is accessed. Per-request matrices (the
// paper's) need request ids that batched weight reads do not carry; a pass
// of the batch is the unit here.
#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/errors.h"
#include "sim/policy/block_table.h"
#include "sim/policy/i_eviction_policy.h"
#include "sim/policy/intrusive_list.h"
#include "sim/policy/model_blocks.h"

namespace flashsim {
namespace {

constexpr std::int32_t kUnknown = -2, kNotExpert = -1;

class ActivationAwarePolicy final : public IEvictionPolicy {
 public:
  ActivationAwarePolicy(const ParamValues& p, const PolicyContext& c)
      : catalog_(c.catalog), match_weight_(p.real("match_weight")),
        decay_(1.0 / static_cast<double>(p.integer("frequency_window"))),
        history_size_(static_cast<std::size_t>(p.integer("history"))) {
    if (c.meta == nullptr || c.catalog == nullptr) {
      throw InputError("activation_aware: needs a trace with a block catalog (layer and expert of each block)");
    }
    const ExpertGrid grid = expert_grid(c.meta->catalog, "activation_aware");
    layers_ = grid.layers;
    experts_ = grid.experts;
    const std::size_t g = grid.size();
    groups_.resize(g);
    freq_.assign(g, 0.0);
    current_.assign(g, 0);
    predicted_.assign(g, 0.0);
    nodes_.reserve(c.block_count);
  }

  std::string_view name() const override { return "activation_aware"; }

  void on_hit(const PolicyAccess& a) override {
    observe(a.block);
    Node& n = nodes_[a.block];
    list_of(n).move_to_front(nodes_, a.block);
  }
  void on_miss(const PolicyAccess& a) override {
    grow_to_hold(nodes_, a.block);
    observe(a.block);
  }
  void on_insert(const PolicyAccess& a) override {
    grow_to_hold(nodes_, a.block);
    Node& n = nodes_[a.block];
    if (n.held) return list_of(n).move_to_front(nodes_, a.block);
    group(a.block);
    n.held = 1;
    ++held_;
    list_of(n).push_front(nodes_, a.block);
  }
  std::optional<BlockIndex> evict(Nanoseconds, const EvictionFilter& filter) override {
    // Experts by expected distance, furthest first (ties: the lower group);
    // then the rest by LRU. Usually the furthest expert has an allowed
    // block; the full order is sorted only when it has none.
    std::size_t best = groups_.size();
    double best_score = -1.0;
    for (std::size_t g = 0; g < groups_.size(); ++g) {
      if (groups_[g].empty()) continue;
      const double s = expected_distance(g);
      if (s > best_score) {
        best_score = s;
        best = g;
      }
    }
    if (best == groups_.size()) return take_back(others_, filter);
    if (auto b = take_back(groups_[best], filter)) return b;
    order_.clear();
    for (std::size_t g = 0; g < groups_.size(); ++g) {
      if (!groups_[g].empty()) order_.emplace_back(-expected_distance(g), g);
    }
    std::sort(order_.begin(), order_.end());
    for (const auto& [score, g] : order_) {
      if (auto b = take_back(groups_[g], filter)) return b;
    }
    return take_back(others_, filter);
  }
  void remove(BlockIndex block) override {
    if (block < nodes_.size() && nodes_[block].held) forget(block);
  }
  std::size_t size() const override { return held_; }

 private:
  struct Node : ListLink {
    std::int32_t group = kUnknown;
    std::uint8_t held = 0;
  };

  IntrusiveList& list_of(const Node& n) { return n.group >= 0 ? groups_[static_cast<std::size_t>(n.group)] : others_; }

  std::int32_t group(BlockIndex b) {
    Node& n = nodes_[b];
    if (n.group == kUnknown) {
      const BlockCatalogEntry* e = catalog_->entry(b);
      const std::int32_t x = e ? expert_of(*e) : -1;
      n.group = (e && x >= 0 && e->layer >= 0 && e->layer < layers_) ? e->layer * experts_ + x : kNotExpert;
    }
    return n.group;
  }

  // Expected layers until expert group g is next needed (the file comment).
  double expected_distance(std::size_t g) const {
    const std::int32_t layer = static_cast<std::int32_t>(g) / experts_;
    const double d = static_cast<double>(((layer - current_layer_) % layers_ + layers_) % layers_);
    const double p = std::max(predicted_[g], 1e-6);
    return d + static_cast<double>(layers_) * (1.0 - p) / p;
  }

  std::optional<BlockIndex> take_back(IntrusiveList& list, const EvictionFilter& filter) {
    for (BlockIndex b = list.back(); b != kNoBlock; b = IntrusiveList::toward_front(nodes_, b)) {
      if (filter.allows(b)) {
        forget(b);
        return b;
      }
    }
    return std::nullopt;
  }
  void forget(BlockIndex b) {
    list_of(nodes_[b]).erase(nodes_, b);
    nodes_[b].held = 0;
    --held_;
  }

  // A demand access: the activation matrix of the current pass.
  void observe(BlockIndex b) {
    const std::int32_t g = group(b);
    if (g < 0) return;
    const std::int32_t layer = g / experts_;
    if (layer < current_layer_) end_pass();
    if (layer != current_layer_) {
      current_layer_ = layer;
      predict();
    }
    current_[static_cast<std::size_t>(g)] = 1;
  }

  void end_pass() {
    for (std::size_t g = 0; g < freq_.size(); ++g) freq_[g] += decay_ * (current_[g] - freq_[g]);
    if (history_size_ > 0) {
      if (history_.size() < history_size_) history_.push_back(current_);
      else history_[next_slot_] = current_;
      next_slot_ = (next_slot_ + 1) % history_size_;
    }
    std::fill(current_.begin(), current_.end(), 0);
    current_layer_ = -1;  // observe() predicts again for the new pass
  }

  // The past pass most similar to this one over layers [0, current_layer_).
  void predict() {
    const std::size_t seen = static_cast<std::size_t>(current_layer_) * static_cast<std::size_t>(experts_);
    const std::vector<std::uint8_t>* best = nullptr;
    double best_similarity = 0.0;
    for (const auto& past : history_) {
      double dot = 0, a = 0, b = 0;
      for (std::size_t g = 0; g < seen; ++g) {
        dot += current_[g] * past[g];
        a += current_[g];
        b += past[g];
      }
      const double similarity = (a > 0 && b > 0) ? dot / std::sqrt(a * b) : 0.0;
      if (similarity > best_similarity) {
        best_similarity = similarity;
        best = &past;
      }
    }
    for (std::size_t g = 0; g < predicted_.size(); ++g) {
      predicted_[g] = best ? (1.0 - match_weight_) * freq_[g] + match_weight_ * (*best)[g] : freq_[g];
    }
  }

  const IBlockCatalogView* catalog_;
  double match_weight_, decay_;
  std::size_t history_size_;
  std::int32_t layers_ = 0, experts_ = 0, current_layer_ = 0;
  std::vector<Node> nodes_;
  std::vector<IntrusiveList> groups_;  ///< per (layer, expert): its resident blocks, most recent first
  IntrusiveList others_;               ///< non-expert resident blocks
  std::size_t held_ = 0;
  std::vector<double> freq_, predicted_;
  std::vector<std::uint8_t> current_;
  std::vector<std::vector<std::uint8_t>> history_;
  std::size_t next_slot_ = 0;
  std::vector<std::pair<double, std::size_t>> order_;  ///< evict()'s scratch
};

}  // namespace

FLASHSIM_REGISTER_POLICY({"activation_aware",
                          "expert cache: evict the expert whose next use is expected furthest, from per-pass expert "
                          "activation matrices (in the manner of MoE-Infinity, Xue et al., arXiv 2401.14361)",
                          {{"history", ParamType::integer, "32", "past passes' activation matrices kept", 0, 1e6, {}},
                           {"match_weight", ParamType::real, "0.5", "weight w of the most similar past pass", 0.0, 1.0, {}},
                           {"frequency_window", ParamType::integer, "16",
                            "passes over which activation frequency decays (EMA weight 1/window)", 1, 1e9, {}}},
                          [](const ParamValues& p, const PolicyContext& c) -> std::unique_ptr<IEvictionPolicy> {
                            return std::make_unique<ActivationAwarePolicy>(p, c);
                          }});

}  // namespace flashsim
