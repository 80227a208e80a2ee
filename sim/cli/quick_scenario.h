// `flashsim run --trace FILE --policies lru,arc --capacity 10%`: a scenario
// written from the command line for the common case (one trace, some
// policies, one or more capacities), so a trace runs without YAML.
#pragma once
#include <string>
#include <vector>

namespace flashsim::cli {

struct QuickScenario {
  std::string trace;                   ///< trace file (any importable format)
  std::string format;                  ///< workload.format; empty: from the file name
  std::vector<std::string> policies;   ///< registered names (comma lists split)
  std::vector<std::string> capacities; ///< "10%", "2GiB"; more than one is a sweep
  std::string engine = "cache_only";   ///< cache_only | event
  std::string hardware = "h200";       ///< hardware profile (event engine)
};

/// The scenario's YAML text (name: the trace's stem). Throws InputError
/// naming the option for an empty trace, policy or capacity list, an empty
/// list item, or an engine other than cache_only / event.
std::string quick_scenario_yaml(const QuickScenario& q);

/// Splits "a,b, c" into {"a", "b", "c"}; every item must be non-empty
/// (InputError naming `option`).
std::vector<std::string> split_list(const std::vector<std::string>& values, const std::string& option);

}  // namespace flashsim::cli
