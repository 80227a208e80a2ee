#include "sim/validate/entry_metrics.h"

#include <unordered_set>
#include <vector>

#include "sim/results/metric_schema.h"

namespace flashsim {

std::uint64_t count_tokens(ITraceSource& trace) {
  std::vector<AccessRecord> chunk(4096);
  std::unordered_set<std::uint64_t> seen;
  trace.rewind();
  for (std::size_t n; (n = trace.read(chunk)) > 0;) {
    for (std::size_t i = 0; i < n; ++i) {
      const AccessRecord& r = chunk[i];
      if (r.token_index < 0) continue;
      seen.insert((r.request_id << 32) ^ static_cast<std::uint32_t>(r.token_index));
    }
  }
  trace.rewind();
  return seen.size();
}

MetricValues metrics_of(const RunResult& run, std::uint64_t tokens) {
  const double sim_ns = static_cast<double>(run.result.metrics.simulated_ns);
  MetricValues out{{"time_per_token_ns", tokens ? sim_ns / static_cast<double>(tokens) : sim_ns}};
  for (const char* name : {"stall_ns", "simulated_ns", "hit_ratio_by_access", "hit_ratio_by_byte", "bytes_fetched",
                           "bytes_written_back", "misses", "latency_p50_ns", "latency_p99_ns", "prefetch_accuracy",
                           "prefetch_coverage"}) {
    out[name] = metric_spec(name).get(run).number();
  }
  return out;
}

RunSeries series_of(const RunResult& run, std::size_t max_windows) {
  const RunMetrics& m = run.result.metrics;
  RunSeries s;
  for (int k = 1; k <= 99; ++k) s.latency_q.push_back(k / 100.0);
  s.latency_q.push_back(0.999);
  for (double q : s.latency_q) s.latency_ns.push_back(static_cast<double>(m.latency.quantile_ns(q)));
  const std::size_t n = m.windows.size();
  const std::size_t group = max_windows && n > max_windows ? (n + max_windows - 1) / max_windows : 1;
  s.window_ns = m.window_ns * static_cast<Nanoseconds>(group);
  for (std::size_t i = 0; i < n; i += group) {
    std::uint64_t hits = 0, accesses = 0;
    for (std::size_t k = i; k < std::min(n, i + group); ++k) {
      hits += m.windows[k].counters.hits;
      accesses += m.windows[k].counters.accesses;
    }
    s.hit_ratio.push_back(accesses ? static_cast<double>(hits) / static_cast<double>(accesses) : -1.0);
  }
  return s;
}

}  // namespace flashsim
