// PCIe throughput sampling while `flashsim diagnose` runs a program. The
// sampler lives in hw/ (NVML, loaded at run time; hw/nvml/nvml_sampler.h),
// which only CUDA builds have: hw/cli registers a factory here, and a build
// without it reports why there are no samples instead of failing.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace flashsim::diagnose {

/// One NVML reading. Negative: not read.
struct PcieSample {
  double time_s = 0;               ///< since start()
  double rx_bytes_per_s = -1;      ///< into the device (H2D), NVML's 20 ms window
  double tx_bytes_per_s = -1;      ///< out of the device (D2H)
  double memory_used_bytes = -1;
};

class IPcieSampler {
 public:
  virtual ~IPcieSampler() = default;
  virtual void start() = 0;                     ///< clears earlier samples
  virtual std::vector<PcieSample> stop() = 0;   ///< the samples since start()
};

/// Makes a sampler, or returns null and says why in `why_not`.
using PcieSamplerFactory = std::function<std::unique_ptr<IPcieSampler>(std::string& why_not)>;

/// Installs the factory (hw/cli does, at static initialisation). Returns true.
bool set_pcie_sampler_factory(PcieSamplerFactory factory);

/// A sampler from the installed factory; null with `why_not` set when none
/// is installed ("built without CUDA") or the factory could not make one.
std::unique_ptr<IPcieSampler> make_pcie_sampler(std::string& why_not);

/// Summary of the samples with any traffic (rx or tx above 0) — a program's
/// idle start-up would otherwise pull the medians down.
struct PcieSummary {
  std::size_t samples = 0, busy_samples = 0;
  double median_rx_bytes_per_s = 0, median_tx_bytes_per_s = 0;
  double p90_rx_bytes_per_s = 0, p90_tx_bytes_per_s = 0;
  double peak_memory_used_bytes = 0;
};
PcieSummary summarise_pcie(const std::vector<PcieSample>& samples);

}  // namespace flashsim::diagnose
