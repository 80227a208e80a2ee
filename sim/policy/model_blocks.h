// What model-aware policies read from a block's catalog entry: its decoder
// layer and, for MoE weights, its expert. Written once here for the expert
// caches, the static placements and speculative expert prefetch.
#pragma once
#include <cstdint>
#include <string_view>
#include <vector>

#include "traces/access_record.h"

namespace flashsim {

/// The expert index N of an MoE weight named "...experts.N..." (the
/// Hugging Face naming of Mixtral, Qwen-MoE, DeepSeek-MoE and of
/// flashsim's generated catalogs); -1 when the name holds no such part.
std::int32_t expert_of_name(std::string_view name);

/// expert_of_name(entry.name) for entries of kind "expert" or whose name
/// names an expert; -1 otherwise.
std::int32_t expert_of(const BlockCatalogEntry& entry);

/// The MoE shape a catalog names: its entries with a layer whose name names
/// an expert give layers = the largest such layer + 1 and experts = the
/// largest expert + 1 (per layer). index() numbers (layer, expert) densely.
struct ExpertGrid {
  std::int32_t layers = 0, experts = 0;
  std::size_t index(std::int32_t layer, std::int32_t expert) const {
    return static_cast<std::size_t>(layer) * static_cast<std::size_t>(experts) + static_cast<std::size_t>(expert);
  }
  std::size_t size() const { return static_cast<std::size_t>(layers) * static_cast<std::size_t>(experts); }
};

/// expert_grid of `catalog`. Throws InputError starting with `who` when no
/// entry names an expert with a layer.
ExpertGrid expert_grid(const std::vector<BlockCatalogEntry>& catalog, std::string_view who);

/// True for weight blocks (not KV pages, activations or I/O buffers).
bool is_weight_kind(std::string_view kind);

}  // namespace flashsim
