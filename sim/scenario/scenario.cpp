#include "sim/scenario/scenario.h"

#include <cmath>

namespace flashsim {

ByteCount CapacitySpec::resolve(ByteCount footprint_bytes) const {
  if (!is_fraction) return bytes;
  return static_cast<ByteCount>(std::floor(fraction * static_cast<double>(footprint_bytes)));
}

std::string PolicyChoice::label() const {
  std::string out = choice.impl;
  std::string suffix;
  if (has_prefetch) {
    for (const auto& p : prefetchers) suffix += "+" + p.impl;
    if (prefetchers.empty()) suffix = "+noprefetch";
  }
  if (user_params.empty()) return out + suffix;
  out += "(";
  bool first = true;
  for (const auto& [k, v] : user_params) {
    out += (first ? "" : ",") + k + "=" + v;
    first = false;
  }
  return out + ")" + suffix;
}

EngineConfig Scenario::engine_config(std::size_t policy_index, ByteCount capacity_bytes) const {
  EngineConfig config;
  config.hardware = hardware;
  config.cache.capacity_bytes = capacity_bytes;
  config.cache.eviction = policies.at(policy_index).choice;
  config.cache.allocator = cache.allocator;
  config.cache.pinned = cache.pinned;
  config.cache.size_change = cache.size_change;
  config.cache.ignore_sizes = cache.ignore_sizes;
  config.issue = workload.issue;
  config.gap_ns = workload.gap_ns;
  config.host_memory = workload.host_memory;
  config.skip_steps = workload.skip_steps;
  config.decision_clock = decision_clock;
  config.window_ns = outputs.window_ns;
  const PolicyChoice& policy = policies.at(policy_index);
  config.prefetchers = policy.has_prefetch ? policy.prefetchers : prefetchers;
  config.seed = seed;
  config.segment_shares = segment_shares;
  config.reservation = reservation;
  config.kv_resident = kv_resident;
  config.occupancy_sample_ns = occupancy_sample_ns;
  return config;
}

}  // namespace flashsim
