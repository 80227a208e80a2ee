#include "sim/scenario/scenario.h"

#include <cmath>

namespace flashsim {

ByteCount CapacitySpec::resolve(ByteCount footprint_bytes) const {
  if (!is_fraction) return bytes;
  return static_cast<ByteCount>(std::floor(fraction * static_cast<double>(footprint_bytes)));
}

std::string PolicyChoice::label() const {
  std::string out = choice.impl;
  if (user_params.empty()) return out;
  out += "(";
  bool first = true;
  for (const auto& [k, v] : user_params) {
    out += (first ? "" : ",") + k + "=" + v;
    first = false;
  }
  return out + ")";
}

EngineConfig Scenario::engine_config(std::size_t policy_index, ByteCount capacity_bytes) const {
  EngineConfig config;
  config.hardware = hardware;
  config.cache.capacity_bytes = capacity_bytes;
  config.cache.eviction = policies.at(policy_index).choice;
  config.cache.allocator = cache.allocator;
  config.cache.pinned = cache.pinned;
  config.issue = workload.issue;
  config.gap_ns = workload.gap_ns;
  config.decision_clock = decision_clock;
  config.window_ns = outputs.window_ns;
  return config;
}

}  // namespace flashsim
