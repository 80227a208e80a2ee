// The health table's inputs from a simulator or replay run (a results
// folder of `flashsim run` / `flashsim replay`: summary.json, results.h5),
// and the levers re-run from the run's resolved scenario (results.h5
// /scenario): every registered eviction policy at the run's capacity, the
// lookahead prefetcher added, and pinned host memory where the engine
// models it (engine: program).
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
#include <string>
#include <vector>

#include "sim/diagnose/health_table.h"
#include "sim/engine/hardware_profile.h"

namespace flashsim::diagnose {

struct RunHealth {
  std::size_t run = 0;
  std::string policy, point_label, engine;
  HealthInputs inputs;
  std::string hit_rate_source;  ///< "l2 model (sector hit ratio)" or "fast tier (hit ratio by byte)"
  double stall_share = 0;
  double simulated_ms = 0, stall_ms = 0;
  std::uint64_t steps = 0;
  std::string note;  ///< why the time-based inputs are absent, if they are
};

/// Reads every run of `summary_json` (a path to summary.json or its
/// folder). `hardware` gives the H2D ceiling when a run has no link
/// component. Throws InputError naming the file and key on anything missing
/// or of the wrong type.
std::vector<RunHealth> read_results_health(const std::filesystem::path& summary_json, const HardwareProfile& hardware);

struct ResultsLever {
  std::string name;  ///< "policy:arc", "prefetch:lookahead", "pinned"
  double stall_ms = 0, simulated_ms = 0;
  double change = 0;  ///< simulated time against the run's, relative
  bool offline = false;
};

/// Re-runs run `run.run` of the folder with each lever (the results.h5 next
/// to summary.json must hold the resolved scenarios). Throws InputError when
/// results.h5 is missing or lacks /scenario, Error from the runs.
std::vector<ResultsLever> simulate_results_levers(const std::filesystem::path& results_dir, const RunHealth& run,
                                                  unsigned jobs);

}  // namespace flashsim::diagnose
