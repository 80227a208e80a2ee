// Fresh readers of one workload's trace for concurrent runs (a trace source
// is stateful, so every run gets its own), and the trace's footprint.
//
// A trace of at most `memory_limit_records` records is read (imported) once
// and shared read-only in memory by every run; a longer one is read again,
// streaming, by each run (bounded memory): an HDF5 trace from its file, other
// formats re-imported. A `builtin:NAME` trace is first written out from
// the binary into a private temporary folder (with any NAME.catalog.csv
// beside it, so the CSV importer finds its catalog), removed afterwards.
// A generated workload (WorkloadSpec::generated) is built once; its records
// are generated once into memory when they number at most
// `memory_limit_records`, else every run's reader generates them afresh,
// streaming (generation is deterministic, and faster than reading a file).
#pragma once
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "sim/scenario/scenario.h"
#include "sim/workload/i_workload_generator.h"
#include "traces/stats/footprint.h"
#include "traces/atomic_file.h"
#include "traces/trace_source.h"

namespace flashsim {

class TraceProvider {
 public:
  /// Prepares `workload` (materialises a builtin file, imports a small
  /// non-HDF5 trace). Throws InputError from the importer.
  explicit TraceProvider(const WorkloadSpec& workload, std::uint64_t memory_limit_records = 1'000'000);
  ~TraceProvider();
  TraceProvider(const TraceProvider&) = delete;
  TraceProvider& operator=(const TraceProvider&) = delete;

  /// A new reader positioned at the first record. Thread-safe.
  std::unique_ptr<ITraceSource> open() const;

  /// The footprint, measured on first call (one pass) and cached. Thread-safe.
  TraceFootprint footprint() const;

  /// The file the trace is read from (a temp file for builtin traces).
  const std::filesystem::path& path() const { return path_; }
  /// The generator of a generated workload; nullptr for traces.
  const IWorkloadGenerator* generator() const { return generator_.get(); }
  /// True when the records are held in memory and shared.
  bool in_memory() const { return records_ != nullptr; }

 private:
  WorkloadSpec workload_;
  std::filesystem::path temp_dir_;  ///< for builtin traces; removed by the destructor
  std::vector<std::unique_ptr<SignalCleanupGuard>> signal_cleanup_;  ///< temp_dir_ and its files, removed on Ctrl-C
  std::filesystem::path path_;
  std::shared_ptr<const std::vector<AccessRecord>> records_;
  std::shared_ptr<const TraceMeta> meta_;
  std::shared_ptr<const IWorkloadGenerator> generator_;
  mutable std::mutex mutex_;
  mutable bool footprint_known_ = false;
  mutable TraceFootprint footprint_;
};

/// Key identifying the same trace read the same way (trace, format, options).
std::string trace_key(const WorkloadSpec& workload);

/// Providers kept across several run_scenario calls (RunnerOptions::trace_cache;
/// diagnose's levers run one scenario each over the same capture), so that
/// the trace is read, and its footprint measured, once. Thread-safe.
class TraceProviderCache {
 public:
  /// The provider of `workload` read with `memory_limit_records`, made on
  /// first use. Throws what TraceProvider's constructor throws.
  std::shared_ptr<TraceProvider> get(const WorkloadSpec& workload, std::uint64_t memory_limit_records);

 private:
  std::mutex mutex_;
  std::map<std::string, std::shared_ptr<TraceProvider>> providers_;
};

}  // namespace flashsim
