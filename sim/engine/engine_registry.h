// The engines a scenario runs on, as registered components: `engine: {impl:
// NAME, its own params}`. Each entry declares, next to its factory, its
// parameters (types, units, defaults, docs), what it can do, the scenario
// keys it reads and the statistics it reports (SST's ELI declarations, in
// the Registry of Ramulator 2's factory), so that one check
// (sim/scenario/engine_section.h) refuses a key an engine would ignore and
// `flashsim policies --kind engine` lists them all.
//
// Adding an engine is one folder (sim/engine/NAME/) with a class behind
// IEngine and one FLASHSIM_REGISTER(EngineRegistry, ...) line.
#pragma once
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "sim/core/registry.h"
#include "sim/engine/engine.h"
#include "traces/trace_source.h"

namespace flashsim {

/// What an engine can do (listed by `flashsim policies --kind engine`; the
/// checks below read them, never the engine's name).
struct EngineCapabilities {
  bool models_time = false;          ///< a clock: simulated_ns, stalls, TTFT/TPOT
  bool takes_prefetchers = false;    ///< runs `prefetch:` lists
  bool serving_metrics = false;      ///< TTFT/TPOT per request
  bool time_series = false;          ///< per-window rows (outputs.window)
  bool needs_program_trace = false;  ///< reads a captured program (trace schema 2 or later)
  bool needs_gpu = false;            ///< runs on a GPU (built with the hw tree)
};

/// What an engine declares beside its parameters.
struct EngineTraits {
  EngineCapabilities capabilities;
  /// The optional scenario keys the engine reads, from the vocabulary of
  /// scenario_feature_keys() (sim/scenario/engine_section.h); a key written
  /// in a scenario that its engine does not list is an error. Keys every
  /// engine reads (name, workload.trace, cache.capacity, policies, seed,
  /// outputs.dir, sweep) are not listed.
  std::vector<std::string> uses;
  /// The per-run metrics it fills (names of sim/results/metric_schema.h);
  /// every other metric of its runs stays 0 (tests/app/engine_registry_test.cpp).
  std::vector<std::string> statistics;
  /// What the engine can check of its parameters against the trace before
  /// any run of a sweep starts (the runner calls it once per point, with the
  /// trace's metadata and the engine's resolved parameters); throws
  /// InputError naming the parameter. Empty: nothing to check.
  std::function<void(const TraceMeta& meta, const ParamValues& params)> check_trace;
};

/// What every engine factory gets beside its parameters: where its run
/// stands in the scenario and where it may write files of its own.
struct EngineContext {
  std::size_t run_index = 0;  ///< RunResult::index: point-major, then policy
  /// The results folder (RunnerOptions::artifacts_dir), for files an engine
  /// writes per run (the GPU replay's access logs; the engine creates it
  /// when it writes one); empty = write none.
  std::filesystem::path artifacts_dir;
};

/// One engine: built from its resolved parameters, run once per policy and
/// capacity of a sweep point.
class IEngine {
 public:
  virtual ~IEngine() = default;
  /// Replays `trace` under `config` (the scenario at one policy and
  /// capacity). Throws InputError naming the trace or the record.
  virtual EngineResult run(ITraceSource& trace, const EngineConfig& config) = 0;
};

using EngineRegistry = Registry<IEngine, EngineContext, EngineTraits>;

/// Builds `engine` (a registered name and its resolved parameters, as
/// Scenario::engine holds them) with `context` and runs it. Throws
/// UnknownNameError for an unregistered name, InputError from the engine.
EngineResult run_registered_engine(ITraceSource& trace, const EngineConfig& config, const ComponentChoice& engine,
                                   const EngineContext& context = {});

/// The statistics of the cache counters every engine with a fast tier fills.
const std::vector<std::string>& cache_statistics();

}  // namespace flashsim
