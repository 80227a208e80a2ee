// The health table's inputs from a simulator or replay run (a results
// folder of `flashsim run` / `flashsim replay`: summary.json, results.h5),
// and the levers re-run from the run's resolved scenario (results.h5
// /scenario): every registered eviction policy at the run's capacity and
// the lookahead prefetcher added. Runs of a captured program (engine:
// program) get no time-based inputs and no levers: their per-step timeline
// is in the capture (diagnose it instead).
//   hit rate      the L2 model's sector hit ratio when the run modelled L2
//                 accesses, else the fast tier's hit ratio by byte (the
//                 article's "Flash" is the fast tier)
//   PCIe use      the host link's busy time / simulated time (component
//                 link.<backing>-><fast>); a replay without link
//                 components: bytes fetched / simulated time / the
//                 profile's H2D ceiling
//   load / step   the host link's busy time / output tokens (one token is
//                 one step), or / 1 without tokens
//   stall share   stall_ns / simulated_ns
#pragma once
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "sim/diagnose/health_table.h"
#include "sim/engine/hardware_profile.h"

namespace flashsim::diagnose {

struct RunHealth {
  std::size_t run = 0;
  std::size_t point = 0;  ///< its sweep point (results.h5 /scenario row)
  std::string policy, point_label, engine;
  std::string policy_label;  ///< with its parameters, admission and prefetchers (the policy when absent)
  HealthInputs inputs;
  std::string hit_rate_source;  ///< "l2 model (sector hit ratio)" or "fast tier (hit ratio by byte)"
  double stall_share = 0;
  double simulated_ms = 0, stall_ms = 0;
  std::uint64_t steps = 0;
  std::string note;  ///< why the time-based inputs are absent, if they are
};

struct ResultsHealth {
  std::filesystem::path summary;  ///< the summary.json read
  std::string scenario_source;    ///< its scenario_source ("" when absent)
  std::vector<RunHealth> runs;
};

/// Reads every run of `summary_json` (a path to summary.json or its
/// folder). `hardware` gives the H2D ceiling when a run has no link
/// component. Throws InputError naming the file and key on anything missing
/// or of the wrong type.
ResultsHealth read_results_health(const std::filesystem::path& summary_json, const HardwareProfile& hardware);

struct ResultsLever {
  std::string name;  ///< "policy:arc", "prefetch:lookahead"
  double stall_ms = 0, simulated_ms = 0;
  double change = 0;  ///< simulated time against the run's, relative
  bool offline = false;
};

/// The levers of a results folder's runs. results.h5's resolved scenarios
/// are read once; the every-policy run of a sweep point is made once and
/// serves every run of that point.
class ResultsLevers {
 public:
  /// Throws InputError when results.h5 beside `results.summary` is missing
  /// or lacks /scenario.
  ResultsLevers(const ResultsHealth& results, unsigned jobs);

  /// The levers of `run`. Throws InputError when its point is not in
  /// results.h5 or its policy is not registered; Error from the runs.
  std::vector<ResultsLever> simulate(const RunHealth& run);

 private:
  std::vector<ResultsLever> run_point(std::size_t point, const std::vector<std::string>& sets) const;

  std::filesystem::path summary_, h5_, base_;
  std::vector<std::string> texts_;  ///< resolved scenario of each point
  unsigned jobs_;
  std::map<std::size_t, std::vector<ResultsLever>> policy_levers_;  ///< by point, change not yet set
};

}  // namespace flashsim::diagnose
