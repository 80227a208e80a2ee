// `engine: program` in a scenario: the execution model of a captured program
// (sim/engine/program/program_executor.h) behind the scenario runner, so that sweeps
// over policy and capacity (and the engine's host_memory) run on a user's own
// program. The policy `as_recorded` (resolved by the scenario loader, not a
// PolicyRegistry entry, and refused with any other engine) makes
// every copy the program made; any other policy is a fast tier of
// cache.capacity in front of the program's copies.
//
// Results: one request whose tokens are the program's steps after
// the engine's skip_steps (TTFT = the end of the first counted step, TPOT = the
// mean step; tpot_p50 the median), simulated_ns = the program's end, the fast
// tier's counters; no time series or latency histogram.
#pragma once
#include <cstdint>

#include "sim/engine/engine.h"
#include "sim/engine/execution_spec.h"
#include "traces/trace_source.h"

namespace flashsim {

/// The program engine's own parameters (`engine: {impl: program, host_memory:
/// pinned, skip_steps: 2}`; registered in sim/engine/program/).
struct ProgramEngineOptions {
  HostMemoryMode host_memory = HostMemoryMode::as_recorded;  ///< the program's host buffers (a what-if)
  std::uint64_t skip_steps = 0;                              ///< warm-up steps left out of TTFT/TPOT
};

/// Runs `trace`'s program under `config`. Throws InputError when the trace
/// has no program (schema 1) or too few steps (fewer than skip_steps + 2
/// marks), naming the trace.
EngineResult run_program_engine(ITraceSource& trace, const EngineConfig& config, const ProgramEngineOptions& options);

/// The policy name of "every copy as the program made it".
inline constexpr const char* kAsRecordedPolicy = "as_recorded";

}  // namespace flashsim
