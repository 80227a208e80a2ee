// The first N decoder layers resident, the rest streamed: accelerate's
// device_map (modules placed on the GPU in order until its memory is spent)
// and llama.cpp's -ngl N (N repeating layers offloaded to the GPU). The
// placed set is every weight block with 0 <= layer < N; with `layers: -1`
// N is the largest that leaves room for the largest layer to stream
// through the rest of the tier. Everything else (other layers, embeddings,
// the LM head, KV pages) is LRU in the space left (sim/policy/placed_lru.h).
#include <algorithm>
#include <map>
#include <memory>

#include "sim/policy/model_blocks.h"
#include "sim/policy/placed_lru.h"

namespace flashsim {
namespace {

std::vector<bool> first_layers(const PolicyContext& c, std::int64_t layers) {
  if (c.meta == nullptr) throw InputError("resident_first: needs a trace with a block catalog (layer of each block)");
  const auto& catalog = c.meta->catalog;
  std::map<std::int32_t, ByteCount> layer_bytes;
  for (const auto& e : catalog) {
    if (e.layer >= 0 && is_weight_kind(e.kind)) layer_bytes[e.layer] += e.bytes;
  }
  if (layer_bytes.empty()) throw InputError("resident_first: the trace's catalog names no layer of any weight block");
  std::int32_t n = static_cast<std::int32_t>(layers);
  if (layers < 0) {
    ByteCount largest = 0;
    for (const auto& [l, b] : layer_bytes) largest = std::max(largest, b);
    ByteCount used = 0;
    n = 0;
    for (const auto& [l, b] : layer_bytes) {
      if (l != n || used + b + largest > c.capacity_bytes) break;
      used += b;
      ++n;
    }
  }
  std::vector<bool> placed(catalog.size(), false);
  for (std::size_t i = 0; i < catalog.size(); ++i) {
    placed[i] = catalog[i].layer >= 0 && catalog[i].layer < n && is_weight_kind(catalog[i].kind);
  }
  return placed;
}

}  // namespace

FLASHSIM_REGISTER_POLICY({"resident_first",
                          "static placement: the first N layers' weights stay resident, the rest stream through LRU "
                          "(accelerate device_map, llama.cpp -ngl)",
                          {{"layers", ParamType::integer, "-1",
                            "N; -1 = as many as fit with room left for the largest layer to stream", -1, 1e6, {}}},
                          [](const ParamValues& p, const PolicyContext& c) -> std::unique_ptr<IEvictionPolicy> {
                            return std::make_unique<PlacedLruPolicy>("resident_first", c,
                                                                     first_layers(c, p.integer("layers")));
                          }});

}  // namespace flashsim
