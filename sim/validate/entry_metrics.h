// The figures `flashsim validate` compares, taken the same way from a
// simulator run and from a GPU replay (both are RunResults in the
// simulator's schema), plus the series the plots draw.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "sim/results/run_result.h"
#include "sim/run/trace_provider.h"

namespace flashsim {

/// Metric name (validation_metric_names()) -> value, in the name's unit.
using MetricValues = std::map<std::string, double>;

/// Tokens of a trace: distinct (request_id, token_index) pairs, records
/// without a token index not counted — the tokens a batch processed, so a
/// decode step of 16 requests is 16 tokens. Reads the whole trace once.
std::uint64_t count_tokens(ITraceSource& trace);

/// The metrics of one run: time_per_token_ns = simulated_ns / tokens
/// (tokens = 0: simulated_ns), validation's own; the others are the results
/// schema's (sim/results/metric_schema.h), read through it under its names:
/// stall_ns, simulated_ns, misses, bytes_fetched, bytes_written_back,
/// hit_ratio_by_access, hit_ratio_by_byte, latency_p50_ns, latency_p99_ns,
/// prefetch_accuracy, prefetch_coverage.
MetricValues metrics_of(const RunResult& run, std::uint64_t tokens);

/// The plotted series of one run.
struct RunSeries {
  std::vector<double> latency_q;      ///< quantile levels 0.01 .. 0.99 (99 values) and 0.999
  std::vector<double> latency_ns;     ///< the access latency at each level
  Nanoseconds window_ns = 0;          ///< width of a hit-ratio window
  std::vector<double> hit_ratio;      ///< per window: hits / accesses (windows without accesses: -1)
};

/// The series of `run`; more than `max_windows` windows are merged in
/// equal groups (the window width grows accordingly).
RunSeries series_of(const RunResult& run, std::size_t max_windows = 400);

}  // namespace flashsim
