#include "sim/model/roofline.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "sim/core/errors.h"

namespace flashsim {

Nanoseconds roofline_ns(double flops, ByteCount bytes_moved, const ComputeSpec& compute) {
  const double compute_ns = compute.peak_flops > 0 ? flops * 1e9 / compute.peak_flops : 0.0;
  const double memory_ns =
      compute.hbm_bandwidth > 0 ? static_cast<double>(bytes_moved) * 1e9 / compute.hbm_bandwidth : 0.0;
  const double ns = std::max(compute_ns, memory_ns);
  if (!(ns <= static_cast<double>(kMaxComputeNs))) {  // also NaN
    throw InputError("compute: a roofline time of " + std::to_string(ns) + " ns for one operator pass (" +
                     std::to_string(flops) + " FLOP, " + std::to_string(bytes_moved) +
                     " B) is more than a trace may record (2^40 ns); peak_flops or hbm_bandwidth is far too small");
  }
  return static_cast<Nanoseconds>(std::ceil(ns));
}

double operator_flops(const OperatorNode& op, std::uint64_t context_tokens) {
  return op.flops_per_token + op.attention_flops_per_context_token * static_cast<double>(context_tokens);
}

double expected_distinct_experts(std::uint32_t experts, std::uint32_t k, std::uint64_t batch) {
  if (experts == 0 || k == 0 || batch == 0) return 0.0;
  const double miss = 1.0 - static_cast<double>(k) / static_cast<double>(experts);
  return static_cast<double>(experts) * (1.0 - std::pow(miss, static_cast<double>(batch)));
}

ByteCount operator_bytes(const OperatorNode& op, std::uint64_t batch, std::uint64_t context_tokens) {
  const std::uint64_t tokens = batch * op.tokens_per_pass;
  // An embedding lookup reads one row (= one activation) per token.
  double bytes = op.row_lookup ? static_cast<double>(tokens * op.activation_bytes) : static_cast<double>(op.block_bytes);
  if (op.experts_per_token > 0) {
    bytes += expected_distinct_experts(static_cast<std::uint32_t>(op.experts.size()), op.experts_per_token, batch) *
             static_cast<double>(op.bytes_per_expert);
  }
  bytes += 2.0 * static_cast<double>(tokens) * static_cast<double>(op.activation_bytes);  // in and out
  bytes += static_cast<double>(tokens) * static_cast<double>(context_tokens) *
           static_cast<double>(op.kv_bytes_per_context_token);
  return static_cast<ByteCount>(std::ceil(bytes));
}

Nanoseconds operator_time_ns(const OperatorNode& op, std::uint64_t batch, std::uint64_t context_tokens,
                             const ComputeSpec& compute) {
  const double flops = static_cast<double>(batch * op.tokens_per_pass) * operator_flops(op, context_tokens);
  return roofline_ns(flops, operator_bytes(op, batch, context_tokens), compute);
}

void fill_compute_ns(std::vector<OperatorEntry>& order, const OperatorGraph& graph, const ComputeSpec& compute,
                     std::uint64_t batch, std::uint64_t context_tokens) {
  std::unordered_map<std::string, OperatorVertex> by_name;
  for (auto v : boost::make_iterator_range(boost::vertices(graph))) by_name.emplace(graph[v].name, v);
  for (OperatorEntry& e : order) {
    const auto it = by_name.find(e.name);
    if (it == by_name.end()) throw Error("fill_compute_ns: no operator '" + e.name + "' in the graph");
    e.compute_ns = operator_time_ns(graph[it->second], batch, context_tokens, compute);
  }
}

}  // namespace flashsim
