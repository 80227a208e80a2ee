// `engine: program` in a scenario: the execution model of a captured program
// (sim/engine/program_executor.h) behind the scenario runner, so that sweeps
// over policy and capacity (and workload.host_memory) run on a user's own
// program. The policy `as_recorded` (resolved by the scenario loader, not a
// PolicyRegistry entry, and refused with any other engine) makes
// every copy the program made; any other policy is a fast tier of
// cache.capacity in front of the program's copies.
//
// Results: one request whose tokens are the program's steps after
// workload.skip_steps (TTFT = the end of the first counted step, TPOT = the
// mean step; tpot_p50 the median), simulated_ns = the program's end, the fast
// tier's counters; no time series or latency histogram.
#pragma once
#include "sim/engine/engine.h"
#include "traces/trace_source.h"

namespace flashsim {

/// Runs `trace`'s program under `config`. Throws InputError when the trace
/// has no program (schema 1) or too few steps (fewer than skip_steps + 2
/// marks), naming the trace.
EngineResult run_program_engine(ITraceSource& trace, const EngineConfig& config);

/// The policy name of "every copy as the program made it".
inline constexpr const char* kAsRecordedPolicy = "as_recorded";

}  // namespace flashsim
