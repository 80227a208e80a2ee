#include "sim/scenario/scenario.h"

#include <cctype>
#include <cmath>

#include "sim/core/errors.h"
#include "sim/core/unit_parse.h"

namespace flashsim {

ByteCount CapacitySpec::resolve(ByteCount footprint_bytes) const {
  if (!is_fraction) return bytes;
  return static_cast<ByteCount>(std::floor(fraction * static_cast<double>(footprint_bytes)));
}

CapacitySpec CapacitySpec::parse(std::string_view text) {
  CapacitySpec c;
  c.text = std::string(text);
  std::string_view t = text;
  while (!t.empty() && std::isspace(static_cast<unsigned char>(t.back()))) t.remove_suffix(1);
  if (t.ends_with("%")) {
    double percent = 0;
    try {
      percent = parse_real(t.substr(0, t.size() - 1));
    } catch (const UnitError&) {
      throw UnitError("cannot parse percentage '" + c.text + "'");
    }
    if (!(percent > 0.0 && percent <= 100.0)) throw InputError("percentage '" + c.text + "' out of range (0%, 100%]");
    c.is_fraction = true;
    c.fraction = percent / 100.0;
    return c;
  }
  try {
    c.bytes = parse_bytes(text);
  } catch (const UnitError& e) {
    throw UnitError(std::string(e.what()) + "; expected a size (e.g. 2GiB) or a percentage (50%)");
  }
  if (c.bytes == 0) throw InputError("capacity must be > 0");
  return c;
}

namespace {
// "name" or "name(k=v,...)" over the params the user wrote.
std::string with_params(const std::string& name, const std::map<std::string, std::string>& params) {
  if (params.empty()) return name;
  std::string out = name + "(";
  bool first = true;
  for (const auto& [k, v] : params) {
    out += (first ? "" : ",") + k + "=" + v;
    first = false;
  }
  return out + ")";
}
}  // namespace

std::string PolicyChoice::label() const {
  std::string out = with_params(choice.impl, user_params);
  if (admission.impl != "always") out += "+admit:" + with_params(admission.impl, admission_user_params);
  if (has_prefetch) {
    for (std::size_t i = 0; i < prefetchers.size(); ++i) {
      out += "+" + with_params(prefetchers[i].impl,
                               i < prefetcher_user_params.size() ? prefetcher_user_params[i] : decltype(user_params){});
    }
    if (prefetchers.empty()) out += "+noprefetch";
  }
  return out;
}

const EngineTraits& Scenario::engine_traits() const { return EngineRegistry::instance().find(engine.impl).traits; }

EngineConfig Scenario::engine_config(std::size_t policy_index, ByteCount capacity_bytes) const {
  EngineConfig config;
  config.hardware = hardware;
  config.cache.capacity_bytes = capacity_bytes;
  config.cache.eviction = policies.at(policy_index).choice;
  config.cache.admission = policies.at(policy_index).admission;
  config.cache.allocator = cache.allocator;
  config.cache.pinned = cache.pinned;
  config.cache.size_change = cache.size_change;
  config.cache.ignore_sizes = cache.ignore_sizes;
  config.issue = workload.issue;
  config.gap_ns = workload.gap_ns;
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
