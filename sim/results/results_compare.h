// `flashsim compare A B`: two results' runs side by side, metric by metric,
// with deltas. Runs are matched by (sweep point, policy label); a run left
// over is matched by its resolved scenario (one run against the sweep point
// that ran the same scenario: a single run has no point label); two results
// of one run each are compared whatever their labels. Reads summary.json
// (sim/results/results_writer.h), whose keys are the one metric schema's
// (sim/results/metric_schema.h).
#pragma once
#include <filesystem>
#include <map>
#include <ostream>
#include <string>
#include <vector>

namespace flashsim {

/// One run of a summary.json: its labels and every numeric metric.
struct ComparedRun {
  std::string point_label, policy_label;
  /// The resolved scenario of the run's sweep point (the folder's sweep.json
  /// or results.h5); empty when the results hold none.
  std::string resolved;
  /// Schema order, then the components' numbers as COMPONENT.NAME
  /// (summary.json runs[].components), in their order.
  std::vector<std::pair<std::string, double>> metrics;
  std::map<std::string, std::string> component_units;  ///< COMPONENT.NAME -> its unit
};

/// A summary.json read: `path` is the file or the results folder holding it.
/// Throws InputError naming the file (missing, not JSON, not a flashsim
/// summary, a run without policy_label).
struct ComparedResults {
  std::filesystem::path file;
  std::string scenario;
  std::vector<ComparedRun> runs;
  static ComparedResults read(const std::filesystem::path& path);
};

struct CompareOptions {
  bool all_metrics = false;  ///< also metrics equal in both (default: only those that differ)
};

/// Prints the matched runs' metrics (A, B, B − A, relative change; ratios
/// as percentage points, times and bytes humanised), then the runs found on
/// one side only. Returns the number of matched runs.
std::size_t print_comparison(std::ostream& out, const ComparedResults& a, const ComparedResults& b,
                             const CompareOptions& options = {});

}  // namespace flashsim
