// Compute time of an operator from a roofline (Williams, Waterman &
// Patterson, "Roofline", CACM 52(4), 2009): the larger of its FLOPs over
// peak throughput and its bytes over memory bandwidth. Peak and bandwidth
// come from the hardware profile's `compute:` section (ComputeSpec,
// sim/engine/hardware_profile.h): H200 datasheet 989 TFLOP/s bf16 dense and
// 4.8 TB/s; measured 790 TFLOP/s and 4.47 TB/s (../shared/hw/H200.md).
#pragma once
#include <cstdint>
#include <vector>

#include "sim/core/units.h"
#include "sim/engine/hardware_profile.h"
#include "sim/model/operator_graph.h"
#include "traces/access_record.h"

namespace flashsim {

/// max(flops / peak_flops, bytes_moved / hbm_bandwidth) in ns, rounded up.
/// A term whose rate is 0 (unknown) counts 0; both 0 -> 0.
Nanoseconds roofline_ns(double flops, ByteCount bytes_moved, const ComputeSpec& compute);

/// FLOPs of one token through `op` at `context_tokens` positions of
/// context: flops_per_token + attention_flops_per_context_token ·
/// context_tokens (0 context: weights only).
double operator_flops(const OperatorNode& op, std::uint64_t context_tokens);

/// Expected distinct experts a batch of `batch` tokens routes to when each
/// picks k of E uniformly: E · (1 - (1 - k/E)^batch).
double expected_distinct_experts(std::uint32_t experts, std::uint32_t k, std::uint64_t batch);

/// HBM bytes one pass of `op` moves for `batch` tokens (each at
/// `context_tokens` of context): weights once (MoE: expected distinct
/// experts' bytes), activations in and out per token, KV read per token.
/// Vision operators multiply tokens by tokens_per_pass.
ByteCount operator_bytes(const OperatorNode& op, std::uint64_t batch, std::uint64_t context_tokens);

/// roofline_ns of one pass of `op` for `batch` tokens at `context_tokens`.
Nanoseconds operator_time_ns(const OperatorNode& op, std::uint64_t batch, std::uint64_t context_tokens,
                             const ComputeSpec& compute);

/// Sets `order[i].compute_ns` = operator_time_ns of the vertex named
/// order[i].name in `graph` (a decode step of `batch` tokens at
/// `context_tokens`). Throws Error when an entry names no vertex.
void fill_compute_ns(std::vector<OperatorEntry>& order, const OperatorGraph& graph, const ComputeSpec& compute,
                     std::uint64_t batch, std::uint64_t context_tokens);

}  // namespace flashsim
