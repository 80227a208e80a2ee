// Simulator against hardware, per entry and metric, and over the suite the
// way GPU-simulator correlators report it (Accel-Sim, Khairy et al., ISCA
// 2020: mean absolute error, Pearson correlation, count within 10%).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/validate/baseline.h"
#include "sim/validate/entry_metrics.h"
#include "sim/validate/validation_suite.h"

namespace flashsim {

struct ComparisonRow {
  std::string metric;
  double sim = 0.0;
  std::optional<double> hw;          ///< median of the repeats; empty when not measured
  double hw_min = 0.0, hw_max = 0.0;
  unsigned hw_repeats = 0;
  double abs_error = 0.0;            ///< |sim - hw|
  double rel_error = 0.0;            ///< |sim - hw| / max(|hw|, floor)
  double tolerance = 0.0;            ///< as written in the suite
  /// What is applied: relative: max(tolerance, 3 x the repeats' relative
  /// spread); absolute: max(tolerance, 3 x (max - min)); exact: 0.
  double tolerance_effective = 0.0;
  bool judged = false;               ///< in the metric's scope, hw present
  bool gated = false;                ///< judged and the metric gates the suite
  bool passed = true;                ///< false only for judged rows out of tolerance
};

/// Compares one metric. `in_scope`: the entry is in the metric's scope.
ComparisonRow compare_metric(const MetricSpec& spec, double sim, const MeasuredValue* hw, bool in_scope);

struct EntryComparison {
  std::string name, group;
  bool fit = false;                  ///< role: fit (its error is in-sample for fitted parameters)
  std::string policy;                ///< the policy label ("lru", "mlru+lookahead")
  std::string prefetch;              ///< prefetcher names, '+'-joined; empty = demand-only
  bool demand_only = true;
  ByteCount block_bytes = 0;         ///< mean block size (footprint / distinct blocks)
  double capacity_fraction = 0.0;    ///< capacity / footprint
  ByteCount capacity_bytes = 0, footprint_bytes = 0;
  std::uint64_t tokens = 0, accesses = 0;
  std::vector<ComparisonRow> rows;   ///< one per suite metric, in suite order
  RunSeries sim_series, hw_series;
  bool passed() const;
};

struct MetricSummary {
  std::string metric;
  std::string role;                  ///< "all", "fit", "holdout"
  std::size_t n = 0;                 ///< judged rows
  double mae_pct = 0.0;              ///< mean of rel_error, %
  std::optional<double> pearson_r;   ///< empty for n < 3 or zero variance
  bool pearson_log10 = false;        ///< computed on log10 values (span > log_span, all > 0)
  std::size_t under_10pct = 0;
  double max_rel_error = 0.0;
};

/// Pearson correlation of paired values; empty for n < 3 (two points
/// correlate perfectly) or zero variance.
/// Throws Error when the sizes differ.
std::optional<double> pearson_r(const std::vector<double>& x, const std::vector<double>& y);

/// One MetricSummary per suite metric and role (all, fit, holdout), the
/// roles without rows left out. Pearson on log10 when every value of both
/// sides is > 0 and max/min exceeds `log_span`.
std::vector<MetricSummary> summarize(const std::vector<MetricSpec>& metrics, const std::vector<EntryComparison>& entries,
                                     double log_span);

}  // namespace flashsim
