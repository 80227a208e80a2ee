// The article's levers, simulated on a captured program as scenario runs on
// `engine: program` (sim/engine/program/program_engine.h), one scenario per
// lever with the lever's engine parameters or policies: the program as
// captured (the model's baseline, beside the recorded time so its error is
// in view), pinned host memory, prefetch (program_prefetch.h, with pinned
// memory), static placement of the first streamed blocks (static_placement.h),
// and a fast tier of device memory that keeps streamed blocks resident under
// each registered eviction policy (the best online one is named; offline
// policies such as Belady are shown as a reference, never as the lever).
// Every median is the program component's median_step_ns over all steps
// after skip_steps (regime all).
#pragma once
#include <string>
#include <vector>

#include "sim/results/run_result.h"
#include "traces/trace_source.h"

namespace flashsim::diagnose {

struct LeverOptions {
  std::string hardware = "h200-calibrated";  ///< hardware profile: a name or a file (the scenario's hardware.profile)
  std::string format;                 ///< the trace's format; empty: from its name
  /// The policy levers' fast tier as a scenario writes cache.capacity: bytes
  /// ("4GiB") or a share of the footprint ("50%"); empty: no policy lever.
  std::string tier_capacity;
  std::size_t prefetch_distance = 1;   ///< copies issued early (program_prefetch.h)
  std::size_t skip_steps = 0;          ///< warm-up steps left out of the medians
  std::vector<std::string> policies;   ///< empty: every registered eviction policy
  unsigned jobs = 1;                   ///< worker threads for the policy levers (RunnerOptions::jobs)
};

struct LeverResult {
  std::string name;       ///< "as_captured", "pinned", "prefetch", "tier:lru", ...
  std::string what;       ///< one line for people
  double median_step_ms = 0;
  double change = 0;      ///< (median - model baseline) / model baseline
  bool offline = false;   ///< an offline policy (needs the future): a reference, not a lever
  std::size_t run = 0;    ///< its run in ProgramLevers::runs
};

struct ProgramLevers {
  double recorded_median_step_ms = 0;  ///< the captured run's own time per step
  double model_median_step_ms = 0;     ///< the model's as_captured prediction
  double model_error = 0;              ///< (model - recorded) / recorded: how far to trust the changes
  ByteCount tier_capacity_bytes = 0;   ///< the policy levers' capacity as resolved (0: none)
  ByteCount static_placement_bytes = 0;  ///< what the placement lever keeps resident (0: no block fits)
  std::vector<LeverResult> levers;     ///< as_captured first
  /// The online policy with the lowest median, if it beats as_captured ("":
  /// none does, or no policy levers).
  std::string best_policy;
  /// Every lever's run, as `flashsim run` reports them: as_captured, pinned, prefetch, the
  /// policy levers, then the static placement (LeverResult::run points into it); each
  /// lever's scenario is a point labelled "lever=NAME" (as_captured, pinned, prefetch,
  /// tier, static_placement; the last also when nothing fit and it is no lever), and
  /// each run of the tier point is labelled with its lever, "lever=tier:POLICY".
  ScenarioResults runs;
};

/// Runs the levers on the capture `trace` (`meta` its metadata). Throws
/// InputError when the trace has no program or the skip leaves no step;
/// UnknownNameError for an unknown policy name.
ProgramLevers simulate_program_levers(const std::string& trace, const TraceMeta& meta, const LeverOptions& options);

}  // namespace flashsim::diagnose
