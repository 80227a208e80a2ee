// ServingMetrics aggregates and exact quantiles (sim/metrics/metrics.h).
#include <algorithm>
#include <cmath>

#include "sim/metrics/metrics.h"

namespace flashsim {

namespace {
std::size_t nearest_rank(std::size_t n, double q) {
  q = std::clamp(q, 0.0, 1.0);
  const auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(n)));
  return std::max<std::size_t>(rank, 1) - 1;
}
}  // namespace

Nanoseconds exact_quantile_ns(std::vector<Nanoseconds>& values, double q) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  return values[nearest_rank(values.size(), q)];
}

double exact_quantile(std::vector<double>& values, double q) {
  if (values.empty()) return 0.0;
  std::sort(values.begin(), values.end());
  return values[nearest_rank(values.size(), q)];
}

void ServingMetrics::summarise(Nanoseconds simulated_ns) {
  std::vector<Nanoseconds> ttft, e2e;
  std::vector<double> tpot;
  output_tokens = 0;
  double ttft_sum = 0.0, tpot_sum = 0.0;
  for (const RequestMetrics& r : requests) {
    output_tokens += r.output_tokens;
    if (r.output_tokens >= 1) {
      ttft.push_back(r.ttft_ns());
      ttft_sum += static_cast<double>(r.ttft_ns());
    }
    if (r.output_tokens >= 2) {
      tpot.push_back(r.tpot_ns());
      tpot_sum += r.tpot_ns();
    }
    e2e.push_back(r.e2e_ns());
  }
  tokens_per_second = simulated_ns > 0 ? static_cast<double>(output_tokens) * 1e9 / static_cast<double>(simulated_ns) : 0.0;
  ttft_mean_ns = ttft.empty() ? 0.0 : ttft_sum / static_cast<double>(ttft.size());
  tpot_mean_ns = tpot.empty() ? 0.0 : tpot_sum / static_cast<double>(tpot.size());
  ttft_p50_ns = exact_quantile_ns(ttft, 0.50);
  ttft_p90_ns = exact_quantile_ns(ttft, 0.90);
  ttft_p99_ns = exact_quantile_ns(ttft, 0.99);
  tpot_p50_ns = exact_quantile(tpot, 0.50);
  tpot_p99_ns = exact_quantile(tpot, 0.99);
  e2e_p50_ns = exact_quantile_ns(e2e, 0.50);
  e2e_p90_ns = exact_quantile_ns(e2e, 0.90);
  e2e_p99_ns = exact_quantile_ns(e2e, 0.99);
}

}  // namespace flashsim
