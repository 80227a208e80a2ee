// Scenario keys for the event engine's prefetch, bandwidth and serving
// options (docs/scenarios.md):
//
//   prefetch:                  # every policy's prefetchers, in call order
//     - {impl: lookahead, depth: 8}
//   policies:
//     - {impl: lru, prefetch: [hit_ratio_controller]}   # per policy: replaces the list above
//   bandwidth:
//     segment_shares: {cross_attention: 35%}   # minimum link share per model segment
//     reservation: {enabled: true, input_coefficient: 0.8, output_coefficient: 1.2,
//                   base_bandwidth: 1.2GB/s, grant_share: 100%}
//   serving:
//     kv_resident: false       # hold running requests' KV pages in the fast tier
//     occupancy_window: 100ms  # occupancy-by-kind sampling period
//   cache: {pin: {segments: [shared]}}       # (resolved with the cache section)
#pragma once
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "sim/engine/engine.h"
#include "sim/scenario/config_tree.h"

namespace flashsim {

/// `prefetch:` -- a list of prefetchers ({impl: NAME, params} or NAME); null
/// or absent = none. `key` is its dotted path. Fills `resolved` with the
/// list, every param resolved. Throws InputError/UnknownNameError at the text.
/// `user_params`, when set, receives each prefetcher's parameters as the
/// YAML wrote them (for run labels).
std::vector<ComponentChoice> resolve_prefetch_list(const ConfigNode* node, std::string_view key, ConfigNode& resolved,
                                                   std::vector<std::map<std::string, std::string>>* user_params = nullptr);

/// `bandwidth:` (absent = defaults: no shares, no reservation).
struct BandwidthOptions {
  std::map<std::string, double> segment_shares;
  ReservationSpec reservation;
};
BandwidthOptions resolve_bandwidth_options(const ConfigNode* node, ConfigNode& resolved);

/// `serving:` (absent = defaults).
struct ServingOptions {
  bool kv_resident = false;
  Nanoseconds occupancy_sample_ns = 100'000'000;
};
ServingOptions resolve_serving_options(const ConfigNode* node, ConfigNode& resolved);

/// A share written as "35%" or "0.35"; throws InputError at `node` unless in (0, 1].
double parse_share(const ConfigNode& node, std::string_view key);

}  // namespace flashsim
