// Runs a scenario: every policy at every sweep point, in parallel across
// cores, each run on its own reader of the trace. Results come back in run
// order (point-major, then policy) and are the same whatever the number of
// threads: runs share nothing but read-only inputs.
#pragma once
#include <filesystem>
#include <functional>
#include <memory>
#include <ostream>
#include <vector>

#include "sim/engine/engine_registry.h"
#include "sim/results/run_result.h"
#include "sim/run/run_limits.h"
#include "sim/run/trace_provider.h"
#include "sim/scenario/scenario_document.h"

namespace flashsim {

/// Replays one run: the engine the scenario chose (Scenario::engine), on
/// `trace`. Tests may substitute their own; the default builds the
/// registered engine (run_registered_engine, sim/engine/engine_registry.h).
using EngineFunction = std::function<EngineResult(ITraceSource& trace, const EngineConfig& config,
                                                   const ComponentChoice& engine, const EngineContext& context)>;

/// The default EngineFunction.
EngineResult run_with_engine(ITraceSource& trace, const EngineConfig& config, const ComponentChoice& engine,
                             const EngineContext& context);

struct RunnerOptions {
  unsigned jobs = 0;                  ///< worker threads; 0 = std::thread::hardware_concurrency()
  std::ostream* progress = nullptr;   ///< "[3/10] cache.capacity=50% policy=arc" lines (sim/run/progress.h)
  bool progress_terminal = true;      ///< rewrite one line in place; false: plain lines every 10 s (a log file)
  EngineFunction engine;              ///< empty = run_with_engine
  /// Where engines may write files of their own per run (EngineContext);
  /// empty = none.
  std::filesystem::path artifacts_dir;
  std::uint64_t memory_limit_records = 1'000'000;  ///< see TraceProvider
  /// Providers shared with other run_scenario calls (the trace read once for
  /// all of them); empty: this call's providers are its own.
  std::shared_ptr<TraceProviderCache> trace_cache;
  /// Runs whose estimated memory (sim/run/run_limits.h) exceeds this are
  /// refused before they start; 0 = no check.
  ByteCount max_memory_bytes = default_memory_limit_bytes();
  /// Sweep points to run, ascending; empty: all. The others are neither
  /// run nor opened; results.runs then holds the chosen points' runs only,
  /// numbered as in the whole sweep (RunResult::index, point_index).
  std::vector<std::size_t> points;
  /// Called once per finished point (all its policies done), one call at a
  /// time, from a worker thread, with that point's runs in policy order.
  /// Throwing from it fails the run like a failing engine.
  std::function<void(std::size_t point, const std::vector<RunResult>& runs)> on_point_done;
};

/// Every sweep point resolved, in point order (validates the whole sweep
/// before any run starts). Throws InputError naming file:line:column.
/// Sweeps of 1000 points or more report progress on `progress` (ms a point).
std::vector<Scenario> resolve_points(const ScenarioDocument& document, std::ostream* progress = nullptr,
                                     bool terminal = true);

/// Resolves, runs and collects. Throws the first failing run's error (in
/// run order) after stopping the others; InputError for bad input.
ScenarioResults run_scenario(const ScenarioDocument& document, const RunnerOptions& options = {});

/// The same with the points already resolved (`resolved` =
/// resolve_points(document), as the CLI does for every document before
/// running any): not resolved twice.
ScenarioResults run_scenario(const ScenarioDocument& document, std::vector<Scenario> resolved,
                             const RunnerOptions& options);

}  // namespace flashsim
