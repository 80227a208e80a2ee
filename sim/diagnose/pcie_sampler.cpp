#include "sim/diagnose/pcie_sampler.h"

#include <algorithm>
#include <cmath>

namespace flashsim::diagnose {
namespace {

PcieSamplerFactory& factory() {
  static PcieSamplerFactory f;
  return f;
}

/// Nearest-rank quantile of a sorted, non-empty vector.
double quantile(const std::vector<double>& sorted, double q) {
  const auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(sorted.size())));
  return sorted[std::min(sorted.size() - 1, rank == 0 ? 0 : rank - 1)];
}

}  // namespace

bool set_pcie_sampler_factory(PcieSamplerFactory f) {
  factory() = std::move(f);
  return true;
}

std::unique_ptr<IPcieSampler> make_pcie_sampler(std::string& why_not) {
  if (!factory()) {
    why_not = "this flashsim was built without CUDA (no NVML sampler)";
    return nullptr;
  }
  return factory()(why_not);
}

PcieSummary summarise_pcie(const std::vector<PcieSample>& samples) {
  PcieSummary s;
  s.samples = samples.size();
  std::vector<double> rx, tx;
  for (const PcieSample& p : samples) {
    s.peak_memory_used_bytes = std::max(s.peak_memory_used_bytes, p.memory_used_bytes);
    if (p.rx_bytes_per_s <= 0 && p.tx_bytes_per_s <= 0) continue;
    ++s.busy_samples;
    rx.push_back(std::max(0.0, p.rx_bytes_per_s));
    tx.push_back(std::max(0.0, p.tx_bytes_per_s));
  }
  if (rx.empty()) return s;
  std::sort(rx.begin(), rx.end());
  std::sort(tx.begin(), tx.end());
  s.median_rx_bytes_per_s = quantile(rx, 0.5);
  s.median_tx_bytes_per_s = quantile(tx, 0.5);
  s.p90_rx_bytes_per_s = quantile(rx, 0.9);
  s.p90_tx_bytes_per_s = quantile(tx, 0.9);
  return s;
}

}  // namespace flashsim::diagnose
