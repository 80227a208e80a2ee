// What model-aware policies read from a block's catalog entry: its decoder
// layer and, for MoE weights, its expert. Written once here for the expert
// caches, the static placements and speculative expert prefetch.
#pragma once
#include <cstdint>
#include <string_view>

#include "traces/access_record.h"

namespace flashsim {

/// The expert index N of an MoE weight named "...experts.N..." (the
/// Hugging Face naming of Mixtral, Qwen-MoE, DeepSeek-MoE and of
/// flashsim's generated catalogs); -1 when the name holds no such part.
std::int32_t expert_of_name(std::string_view name);

/// expert_of_name(entry.name) for entries of kind "expert" or whose name
/// names an expert; -1 otherwise.
std::int32_t expert_of(const BlockCatalogEntry& entry);

/// True for weight blocks (not KV pages, activations or I/O buffers).
bool is_weight_kind(std::string_view kind);

}  // namespace flashsim
