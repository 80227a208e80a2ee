// `flashsim run --trace FILE --policies lru,arc --capacity 10%`: a scenario
// written from the command line for the common case (one trace, some
// policies, one or more capacities), so a trace runs without YAML.
#pragma once
#include <string>
#include <utility>
#include <vector>

namespace flashsim {

struct QuickScenario {
  std::string trace;                   ///< trace file (any importable format)
  std::string format;                  ///< workload.format; empty: from the file name
  std::vector<std::string> policies;   ///< registered names (comma lists split)
  /// "10%", "2GiB"; more than one is a sweep; none only when every policy
  /// is as_recorded (engine program: no fast tier).
  std::vector<std::string> capacities;
  std::string engine = "cache_only";   ///< cache_only | event | program
  std::string hardware = "h200";       ///< hardware profile (the engines with a clock)
  /// The engine's own parameters (name, value text), written as quoted
  /// YAML scalars: the engine's declaration checks them.
  std::vector<std::pair<std::string, std::string>> engine_params;
  std::string description;             ///< empty: "flashsim run --trace FILE"
  /// How the front end's user gave the trace, for messages: "--trace", or
  /// "" for a positional argument (predict TRACE, diagnose TRACE).
  std::string trace_option = "--trace";
};

/// The scenario's YAML text (name: the trace's stem). Throws InputError
/// naming the option for an empty trace, policy or capacity list, an empty
/// list item, or an engine other than cache_only / event / program.
std::string quick_scenario_yaml(const QuickScenario& q);

/// Splits "a,b, c" into {"a", "b", "c"}; every item must be non-empty
/// (InputError naming `option`).
std::vector<std::string> split_list(const std::vector<std::string>& values, const std::string& option);

}  // namespace flashsim
