// `engine: program` in a scenario: the execution model of a captured program
// (sim/engine/program/program_executor.h) behind the scenario runner, so that sweeps
// over policy and capacity (and the engine's what-ifs: host memory, host
// time, copy curves, fresh pages, static placement, early H2D copies) run on
// a user's own program. `flashsim predict` and diagnose's levers are front
// ends over a scenario with this engine. The policy `as_recorded` (resolved
// by the scenario loader, not a PolicyRegistry entry, and refused with any
// other engine) makes every copy the program made; any other policy is a
// fast tier of cache.capacity in front of the program's copies.
//
// Results: one request whose tokens are the program's steps after
// the engine's skip_steps (TTFT = the end of the first counted step, TPOT = the
// mean step; tpot_p50 the median), simulated_ns = the program's end, the fast
// tier's counters; no time series or latency histogram. The component
// `program` (kProgramComponent) carries the prediction: the chosen regime's
// median step (numbers), the copy attribution, where each figure came from
// (texts) and the per-step times (series), each listed in run_program_engine.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "sim/engine/engine.h"
#include "sim/engine/execution_spec.h"
#include "sim/engine/program/program_executor.h"
#include "traces/trace_source.h"

namespace flashsim {

/// The program engine's own parameters (`engine: {impl: program, host_memory:
/// pinned, skip_steps: 2}`; registered in sim/engine/program/, documented by
/// `flashsim policies --kind engine`).
struct ProgramEngineOptions {
  HostMemoryMode host_memory = HostMemoryMode::as_recorded;  ///< the program's host buffers (a what-if)
  std::uint64_t skip_steps = 0;                              ///< warm-up steps left out of TTFT/TPOT and the regimes
  HostTime host_time = HostTime::calibrated;
  Nanoseconds capture_gap_ns = kMeasuredCaptureGap;  ///< ExecutorOptions::capture_gap_ns
  CopyCurveSource copy_curves = CopyCurveSource::capture;
  FreshPages fresh_pages = FreshPages::per_copy;
  bool recorded_copy_time = false;  ///< copies take their recorded GPU time (an attribution run)
  /// Streamed blocks kept resident, first read first, up to this many bytes
  /// (static placement, static_placement.h); added to the fast tier's
  /// capacity (the only capacity under as_recorded, then with LRU for the rest).
  ByteCount static_placement_bytes = 0;
  /// H2D copies moved to a copy stream of their own, issued this many copies
  /// early (program_prefetch.h); -1: as the program issued them.
  std::int64_t prefetch_distance = -1;
  /// The steps program.median_step_ns is of (step_regimes.h choose_regime):
  /// steady, first, all or a regime index.
  std::string regime = "steady";
};

/// Runs `trace`'s program under `config`. Throws InputError when the trace
/// has no program (schema 1), too few steps (fewer than skip_steps + 2
/// marks) or a regime that is not there, naming the trace and the key.
EngineResult run_program_engine(ITraceSource& trace, const EngineConfig& config, const ProgramEngineOptions& options);

/// The policy name of "every copy as the program made it".
inline constexpr const char* kAsRecordedPolicy = "as_recorded";

/// The component name of the prediction's own statistics.
inline constexpr const char* kProgramComponent = "program";

/// program.NAME of a run's components (its number, text or series). Throws
/// Error when the run has none (not a program engine run).
double program_number(const ComponentStats& components, const std::string& name);
const std::string& program_text(const ComponentStats& components, const std::string& name);
const std::vector<double>& program_series(const ComponentStats& components, const std::string& name);

/// The capture_gap parameter's text: "measured" (kMeasuredCaptureGap) or a
/// duration. Throws InputError naming the text (callers add the key).
Nanoseconds parse_capture_gap(const std::string& text);

/// The regime parameter's text, checked: steady, first, all or a regime
/// number up to 10^8 (whether that regime exists in a capture is
/// check_program_steps', against its step marks). Throws InputError naming
/// the text (callers add the key).
const std::string& check_regime(const std::string& text);

/// The steps `options` measure, checked on the capture's own step marks (no
/// simulation): skip_steps must leave a step, and a regime number must be
/// one of the captured regimes (the split report() makes of the same
/// recorded times). Throws InputError naming engine.skip_steps or engine.regime.
void check_program_steps(const Program& program, const ProgramEngineOptions& options);

}  // namespace flashsim
