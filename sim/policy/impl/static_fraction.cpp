// FlexGen's placement (Sheng et al., "FlexGen", ICML 2023, §4.2): the same
// fraction of every layer's weights on the GPU, the rest streamed. Here the
// GPU share of each layer (decoder layers, and the embedding / LM head as
// a layer of their own, layer -1) is its first blocks in catalog order
// until `weight_fraction` of the layer's bytes; the rest is LRU in the
// space left (sim/policy/placed_lru.h). `flashsim place` solves FlexGen's
// linear program for the fraction from the catalog and hardware profile.
#include <map>
#include <memory>

#include "sim/policy/model_blocks.h"
#include "sim/policy/placed_lru.h"

namespace flashsim {
namespace {

std::vector<bool> layer_fractions(const PolicyContext& c, double fraction) {
  if (c.meta == nullptr) throw InputError("static_fraction: needs a trace with a block catalog (layer of each block)");
  const auto& catalog = c.meta->catalog;
  std::map<std::int32_t, ByteCount> layer_bytes, taken;
  for (const auto& e : catalog) {
    if (is_weight_kind(e.kind)) layer_bytes[e.layer] += e.bytes;
  }
  if (layer_bytes.empty()) {
    throw InputError("static_fraction: the trace's catalog names no weight block (a per-layer share needs the "
                     "model's weights, each with its layer)");
  }
  std::vector<bool> placed(catalog.size(), false);
  for (std::size_t i = 0; i < catalog.size(); ++i) {
    const auto& e = catalog[i];
    if (!is_weight_kind(e.kind)) continue;
    const double budget = fraction * static_cast<double>(layer_bytes[e.layer]);
    if (static_cast<double>(taken[e.layer] + e.bytes) <= budget + 0.5) {
      taken[e.layer] += e.bytes;
      placed[i] = true;
    }
  }
  return placed;
}

}  // namespace

FLASHSIM_REGISTER_POLICY({"static_fraction",
                          "static placement: the same fraction of every layer's weights resident, the rest streamed "
                          "through LRU (FlexGen, Sheng et al., ICML 2023; fraction from `flashsim place`)",
                          {{"weight_fraction", ParamType::real, "0", "share of each layer's weight bytes placed (0: none, the tier is LRU)", 0.0,
                            1.0, {}}},
                          [](const ParamValues& p, const PolicyContext& c) -> std::unique_ptr<IEvictionPolicy> {
                            return std::make_unique<PlacedLruPolicy>("static_fraction", c,
                                                                     layer_fractions(c, p.real("weight_fraction")));
                          }});

}  // namespace flashsim
