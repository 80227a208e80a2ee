// The one metric schema: every per-run value flashsim reports, with its
// name (unit in the name where it has one), unit, type, how it aggregates
// and what it means. results.h5's /summary, summary.json, the terminal
// tables and `flashsim report` iterate this table, so a metric is added
// here once and has one name everywhere.
//
// Per-component statistics (L2, TLB, each link, each tier, each prefetcher)
// are not in this table: each component declares its own
// (sim/metrics/component_stats.h) and the results carry them as a list.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sim/results/run_result.h"

namespace flashsim {

enum class MetricType : std::uint8_t { u64, i64, f64, text };

/// How a metric combines over windows, repeats or runs.
enum class Aggregation : std::uint8_t {
  label,     ///< identifies the run (not combined)
  sum,       ///< counts and totals: add
  ratio,     ///< a quotient of sums: recompute from the summed parts, never average
  quantile,  ///< a percentile of a distribution: recompute from the merged distribution
  max,       ///< a peak or a span: take the largest
  mean,      ///< a mean over a population: weight by its count
};

std::string_view to_string(MetricType type);
std::string_view to_string(Aggregation aggregation);

/// One metric's value for one run.
struct RunMetricValue {
  MetricType type = MetricType::u64;
  std::uint64_t u64 = 0;
  std::int64_t i64 = 0;
  double f64 = 0.0;
  std::string text;
  /// As a double (text: 0).
  double number() const;
};

struct RunMetricSpec {
  std::string_view name;     ///< snake_case, unit suffix where it has one: "stall_ns", "bytes_fetched"
  std::string_view unit;     ///< "ns", "bytes", "count", "1" (a ratio), "tokens/s", "" (labels)
  MetricType type;
  Aggregation aggregation;
  std::string_view meaning;  ///< one line; definitions in sim/metrics/metrics.h
  RunMetricValue (*get)(const RunResult& run);
};

/// Every per-run metric, in output order (labels first). The table is
/// static: results files list their columns in this order.
const std::vector<RunMetricSpec>& run_metric_schema();

/// The spec named `name`; throws Error when there is none.
const RunMetricSpec& metric_spec(std::string_view name);

}  // namespace flashsim
