// The article's levers, simulated on a captured program with the execution
// model (sim/engine/program/program_executor.h): the program as captured (the
// model's baseline, beside the recorded time so its error is in view),
// pinned host memory, prefetch (program_prefetch.h, with pinned memory),
// static placement of the first streamed blocks (static_placement.h), and
// a fast tier of device memory that keeps streamed blocks resident under
// each registered eviction policy (the best online one is named; offline
// policies such as Belady are shown as a reference, never as the lever).
#pragma once
#include <string>
#include <vector>

#include "sim/engine/hardware_profile.h"
#include "traces/access_record.h"
#include "traces/trace_source.h"

namespace flashsim::diagnose {

struct LeverOptions {
  ByteCount tier_capacity_bytes = 0;   ///< fast-tier capacity for the policy levers (0: no policy lever)
  std::size_t prefetch_distance = 1;   ///< copies issued early (program_prefetch.h)
  std::size_t skip_steps = 0;          ///< warm-up steps left out of the medians
  std::vector<std::string> policies;   ///< empty: every registered eviction policy
};

struct LeverResult {
  std::string name;       ///< "as_captured", "pinned", "prefetch", "tier:lru", ...
  std::string what;       ///< one line for people
  double median_step_ms = 0;
  double change = 0;      ///< (median - model baseline) / model baseline
  bool offline = false;   ///< an offline policy (needs the future): a reference, not a lever
};

struct ProgramLevers {
  double recorded_median_step_ms = 0;  ///< the captured run's own time per step
  double model_median_step_ms = 0;     ///< the model's as_captured prediction
  double model_error = 0;              ///< (model - recorded) / recorded: how far to trust the changes
  std::vector<LeverResult> levers;     ///< as_captured first
  /// The online policy with the lowest median, if it beats as_captured ("":
  /// none does, or no policy levers).
  std::string best_policy;
};

/// Runs the levers. Throws InputError when the trace has no program or the
/// skip leaves no step; UnknownNameError for an unknown policy name.
ProgramLevers simulate_program_levers(const TraceMeta& meta, const std::vector<AccessRecord>& records,
                                      const HardwareProfile& hardware, const LeverOptions& options);

}  // namespace flashsim::diagnose
