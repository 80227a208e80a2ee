// What one `flashsim run` produced: one RunResult per policy × sweep point,
// plus what identifies the scenario. Written by results_h5.h and
// summary_json.h, printed by results_table.h. Simulated values are kept
// apart from host facts (wall time, machine, date) so that the same inputs
// give identical simulated datasets.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "sim/engine/engine.h"

namespace flashsim {

/// Version of the results layout (results.h5 and summary.json).
inline constexpr int kResultsSchemaVersion = 2;  // 2: one flat name per metric (metric_schema.h)

struct RunResult {
  std::size_t index = 0;          ///< run number: point_index × policies + policy_index
  std::size_t point_index = 0;    ///< sweep point
  std::string point_label;        ///< "cache.capacity=50%"; empty without a sweep
  std::size_t policy_index = 0;   ///< position in the scenario's policies list
  std::string policy;             ///< registered name ("mlru")
  std::string policy_label;       ///< name plus user-given params: "mlru(variant=literal)"
  std::map<std::string, std::string> policy_params;  ///< every param as resolved
  std::string engine;             ///< "event" | "cache_only" | "program"
  std::string decision_clock;     ///< "trace" | "engine"
  std::uint64_t seed = 0;
  std::string capacity_text;      ///< as written: "50%", "2GiB"
  /// "bytes", or "blocks" with cache.ignore_sizes: then capacity_bytes,
  /// footprint_bytes and every bytes_* metric count blocks (one unit each).
  std::string size_unit = "bytes";
  ByteCount capacity_bytes = 0;   ///< fast-tier capacity used
  ByteCount footprint_bytes = 0;  ///< trace footprint (0 when it was not measured)
  EngineResult result;            ///< metrics (the cache-only path fills only metrics)
  // --- host facts (not simulated) ---
  double wall_seconds = 0.0;
  /// accesses / wall_seconds (0 when wall_seconds is 0).
  double accesses_per_second() const;
};

/// Facts about the machine and invocation, stored apart from simulated data.
struct HostInfo {
  std::string hostname;
  std::string date_utc;        ///< ISO 8601, e.g. "2026-11-30T03:12:45Z"
  unsigned jobs = 1;           ///< worker threads used
  double total_wall_seconds = 0.0;
  /// The current machine's hostname and time (jobs/total left as given).
  static HostInfo current();
};

struct ScenarioResults {
  std::string scenario_name;
  std::string scenario_source;              ///< file path or "<builtin:default.yaml>"
  std::string input_text;                   ///< the scenario as given (overrides applied), YAML
  std::vector<std::string> resolved_texts;  ///< the resolved scenario of each sweep point, YAML
  std::vector<std::string> point_labels;    ///< one per sweep point
  std::string tool_version;
  std::vector<RunResult> runs;              ///< in run order (point-major, then policy)
  HostInfo host;

  /// The value shared by every run ("mixed" when they differ, "" when no runs).
  std::string common_decision_clock() const;
  std::string common_engine() const;
};

/// The tool version compiled into flashsim_app (FLASHSIM_VERSION_STRING).
const char* tool_version_string();

/// "k=v k=v" of the params, sorted by key.
std::string params_text(const std::map<std::string, std::string>& params);

}  // namespace flashsim
