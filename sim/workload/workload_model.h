// A model as a workload generator uses it: its config, its weight blocks at
// the workload's granularity, its operators in per-token order (the
// topological order of the operator graph, sim/model/operator_graph.h) and
// which pass each runs in. Built once per generator, shared read-only by
// every reader of the trace.
#pragma once
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "sim/engine/hardware_profile.h"
#include "sim/model/block_split.h"
#include "sim/model/model_config.h"
#include "sim/model/operator_graph.h"
#include "sim/workload/i_workload_generator.h"

namespace flashsim {

/// When an operator runs.
enum class OperatorPass {
  vision,   ///< LLaVA vision tower and projector: once per image, over its patches
  encoder,  ///< T5 encoder stack: once per request, over the prompt
  token,    ///< every step, over the step's new tokens (decoder, cross-attention, shared, lm_head)
};

struct WorkloadModel {
  ModelConfig config;
  BlockGranularity granularity;
  ModelBlocks blocks;                       ///< weight blocks, ids first_id ...
  BlockId first_id = 0;
  std::vector<OperatorNode> operators;      ///< per-token order; index = operator_id - operator_base
  std::vector<OperatorPass> pass;           ///< per operator
  std::vector<std::int32_t> moe_index;      ///< per operator: ordinal among MoE operators, -1 if none
  std::vector<OperatorEntry> entries;       ///< TraceMeta::operators (block ids as in `blocks`)
  std::uint32_t moe_layers = 0;
  std::vector<ByteCount> block_bytes;       ///< by id - first_id

  ByteCount bytes_of(BlockId id) const { return block_bytes[id - first_id]; }
  /// One past the largest weight block id.
  BlockId end_id() const { return first_id + block_bytes.size(); }
};

/// Builds the model's blocks, graph and operator order. `entries`' compute_ns
/// is the roofline time of a decode step of `batch` tokens at
/// `context_tokens` (fill_compute_ns). Throws what the model code throws.
/// `memory_limit_bytes` > 0 bounds the weight catalog (split_into_blocks).
WorkloadModel build_workload_model(const ModelConfig& config, const BlockGranularity& granularity, BlockId first_id,
                                   const ComputeSpec& compute, std::uint64_t batch, std::uint64_t context_tokens,
                                   ByteCount memory_limit_bytes = 0);

/// The model a workload names: a path to a config.json (relative to
/// context.base_dir; anything ending in .json or containing '/'), else a
/// name looked up as <dir>/<name>.json in context.model_dirs, then in
/// context.builtin_model_json. Throws InputError naming `ref` and the
/// places searched.
ModelConfig resolve_model(const std::string& ref, const WorkloadContext& context);

/// A file parameter (routing_file, ...) resolved against context.base_dir.
std::filesystem::path resolve_path(const std::string& text, const WorkloadContext& context);

}  // namespace flashsim
