// The summary.json of a `flashsim run` results folder (sim/results/
// results_writer.h), read for `flashsim report`: one table row per run.
#pragma once
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace flashsim::report {

class JsonFields;

struct RunSummaryRow {
  std::string policy_label, point_label, capacity;  ///< capacity as written in the scenario ("50%")
  std::size_t run = 0;    ///< its run number: results.h5 /timeseries/run_NNN (summary.json "run"; else its row)
  std::size_t point = 0;  ///< its sweep point: the row of results.h5 /scenario holding its resolved scenario
  std::string size_unit = "bytes";  ///< "blocks" with cache.ignore_sizes: the bytes fields count blocks
  double capacity_bytes = 0, footprint_bytes = 0, accesses = 0, hits = 0, misses = 0;
  double hit_ratio_by_access = 0, hit_ratio_by_byte = 0, bytes_fetched = 0, stall_ns = 0, simulated_ns = 0;
  std::optional<double> latency_p50_ns, latency_p99_ns;
  /// Serving metrics (runs whose trace has requests; absent otherwise).
  std::optional<double> ttft_p50_ns, tpot_mean_ns, tokens_per_second;

  /// The point label less its capacity ("cache.capacity=10% x.y=2" ->
  /// "x.y=2"): runs that differ only in capacity share it.
  std::string point_label_without_capacity() const;
};

struct RunSummaryDocument {
  std::filesystem::path file;
  std::string scenario, tool_version, engine, date_utc;
  std::string scenario_source;  ///< the scenario file run ("<builtin:default>", "" when absent)
  std::vector<RunSummaryRow> runs;
  /// "bytes", or "blocks" when every run ignored sizes ("mixed" when runs differ).
  std::string size_unit() const;
};

/// True when the file's top level looks like a run summary (has
/// results_schema_version and runs).
bool is_run_summary(const JsonFields& json);

/// Reads the runs. Throws InputError naming the file and key when a run
/// lacks policy_label, capacity_bytes, accesses or hit_ratio_by_access, or
/// a key has the wrong type.
RunSummaryDocument read_run_summary_document(const JsonFields& json);

}  // namespace flashsim::report
