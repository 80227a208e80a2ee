#include "sim/placement/placement_input.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>

#include "sim/core/errors.h"
#include "sim/model/roofline.h"

namespace flashsim::placement {

ServingPlacementInput serving_placement_input(const ServingWorkload& workload, const HardwareProfile& hardware,
                                              ByteCount fast_capacity_bytes, ByteCount piece_bytes) {
  if (hardware.tiers.size() < 2) {
    throw InputError("placement: hardware profile '" + hardware.name + "' has " + std::to_string(hardware.tiers.size()) +
                     " tier(s); a fast tier and a backing tier are needed");
  }
  const TraceMeta& meta = workload.meta();
  const WorkloadModel& model = workload.model();
  const KvGeometry& kv = workload.kv_geometry();
  const auto& requests = workload.requests();
  ServingPlacementInput out;
  PlacementInput& lp = out.lp;
  const std::uint64_t batch = std::max<std::uint64_t>(
      1, std::min<std::uint64_t>(workload.options().concurrency, std::max<std::size_t>(requests.size(), 1)));
  lp.batch = batch;
  for (const RequestPlan& r : requests) {
    out.prompt_tokens += r.prompt_tokens;
    out.output_tokens += r.output_tokens;
  }
  if (!requests.empty()) {
    out.prompt_tokens /= static_cast<double>(requests.size());
    out.output_tokens /= static_cast<double>(requests.size());
  }
  out.kv_bytes_per_token = kv.bytes_per_token;

  // Experts a step reads: the expected union of batch × top-k picks
  // (roofline.h's formula, the routing taken as uniform).
  const std::uint32_t experts = model.config.num_local_experts, top_k = model.config.num_experts_per_tok;
  if (experts > 0 && top_k > 0) out.expert_read_share = expected_distinct_experts(experts, top_k, batch) / experts;

  // Groups by layer (-1: "other", last).
  std::map<std::int32_t, LayerGroup> groups;
  std::map<std::int32_t, std::uint64_t> kv_pages, weight_blocks;
  double request_buffers = 0;
  for (const BlockCatalogEntry& e : meta.catalog) {
    const bool weight = e.id >= model.first_id && e.id < model.end_id();
    if (weight) {
      LayerGroup& g = groups[e.layer];
      ++weight_blocks[e.layer];
      g.weight_bytes += static_cast<double>(e.bytes);
      g.weight_read_bytes += static_cast<double>(e.bytes) * (e.kind == "expert" ? out.expert_read_share : 1.0);
    } else if (e.kind == "kv_page") {
      ++kv_pages[e.layer];
    } else {
      request_buffers += static_cast<double>(e.bytes);
    }
  }
  if (groups.empty()) throw InputError("placement: the workload's catalog has no weight blocks");
  for (const OperatorEntry& op : meta.operators) {
    auto it = groups.find(op.layer);
    if (it != groups.end()) it->second.compute_ns += static_cast<double>(op.compute_ns);
  }
  // The batch's request buffers: its share of every request's.
  lp.reserved_bytes = requests.empty() ? request_buffers
                                       : request_buffers * static_cast<double>(batch) / static_cast<double>(requests.size());

  // KV of the batch, split over the layers its pages belong to (by page
  // count; equally over the numbered layers when pages carry no layer).
  const double context_peak = std::max(0.0, out.prompt_tokens + out.output_tokens - 1.0);
  const double kv_peak = static_cast<double>(batch) * static_cast<double>(kv.page_bytes()) *
                         static_cast<double>(kv.request_pages(static_cast<std::uint64_t>(std::ceil(context_peak))));
  const double kv_read = static_cast<double>(batch) * (out.prompt_tokens + out.output_tokens / 2.0) *
                         static_cast<double>(kv.bytes_per_token);
  const double kv_written = static_cast<double>(batch) * static_cast<double>(kv.bytes_per_token);
  std::uint64_t pages_in_layers = 0;
  for (const auto& [layer, n] : kv_pages) {
    if (layer >= 0 && groups.count(layer)) pages_in_layers += n;
  }
  std::uint32_t numbered = 0;
  for (const auto& [layer, g] : groups) numbered += layer >= 0 ? 1 : 0;
  out.layers = numbered;
  for (auto& [layer, g] : groups) {
    double share = 0.0;
    if (pages_in_layers > 0) {
      auto it = kv_pages.find(layer);
      share = layer >= 0 && it != kv_pages.end() ? static_cast<double>(it->second) / static_cast<double>(pages_in_layers) : 0.0;
    } else if (layer >= 0 && numbered > 0) {
      share = 1.0 / numbered;
    }
    g.kv_bytes = kv_peak * share;
    g.kv_read_bytes = kv_read * share;
    g.kv_written_bytes = kv_written * share;
  }
  // Transfers: the group's mean weight block, a KV page; pieces when the
  // scenario splits blocks (cache.granularity).
  for (auto& [layer, g] : groups) {
    g.weight_block_bytes = g.weight_bytes / static_cast<double>(weight_blocks[layer]);
    g.kv_block_bytes = static_cast<double>(kv.page_bytes());
    if (piece_bytes > 0) {
      g.weight_block_bytes = std::min(g.weight_block_bytes, static_cast<double>(piece_bytes));
      g.kv_block_bytes = std::min(g.kv_block_bytes, static_cast<double>(piece_bytes));
    }
  }
  for (auto& [layer, g] : groups) {
    if (layer < 0) continue;
    g.name = "layers." + std::to_string(layer);
    lp.groups.push_back(g);
  }
  if (auto it = groups.find(-1); it != groups.end()) {
    it->second.name = "other";
    lp.groups.push_back(it->second);
  }

  for (std::size_t t = 0; t < hardware.tiers.size(); ++t) {
    const TierSpec& spec = hardware.tiers[t];
    TierInput tier;
    tier.name = spec.name;
    tier.capacity_bytes = t == 0 ? static_cast<double>(fast_capacity_bytes) : static_cast<double>(spec.capacity_bytes);
    if (t > 0) {
      tier.latency_ns = static_cast<double>(spec.link_to_faster.latency_ns);
      tier.up_bytes_per_s = spec.link_to_faster.bandwidth;
      tier.down_bytes_per_s = t == 1 && hardware.execution.d2h_bandwidth > 0 ? hardware.execution.d2h_bandwidth
                                                                             : spec.link_to_faster.bandwidth;
    }
    lp.tiers.push_back(tier);
  }
  return out;
}

}  // namespace flashsim::placement
