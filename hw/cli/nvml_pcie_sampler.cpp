// Installs NVML sampling for `flashsim diagnose` (sim/diagnose/pcie_sampler.h).
#include <chrono>

#include "hw/nvml/nvml_sampler.h"
#include "sim/diagnose/pcie_sampler.h"

namespace flashsim::hw {
namespace {

class NvmlPcieSampler : public diagnose::IPcieSampler {
 public:
  NvmlPcieSampler() : sampler_(0, std::chrono::milliseconds(20)) {}  // NVML's PCIe window is 20 ms
  bool ok(std::string& why_not) const {
    if (!sampler_.available()) why_not = "NVML: " + sampler_.error();
    return sampler_.available();
  }
  void start() override { sampler_.start(); }
  std::vector<diagnose::PcieSample> stop() override {
    std::vector<diagnose::PcieSample> out;
    for (const NvmlSample& s : sampler_.stop()) {
      out.push_back({static_cast<double>(s.time_ns) / 1e9, static_cast<double>(s.pcie_rx_bytes_per_s),
                     static_cast<double>(s.pcie_tx_bytes_per_s), static_cast<double>(s.memory_used_bytes)});
    }
    return out;
  }

 private:
  NvmlSampler sampler_;
};

[[maybe_unused]] const bool registered = diagnose::set_pcie_sampler_factory(
    [](std::string& why_not) -> std::unique_ptr<diagnose::IPcieSampler> {
      auto s = std::make_unique<NvmlPcieSampler>();
      if (!s->ok(why_not)) return nullptr;
      return s;
    });

}  // namespace
}  // namespace flashsim::hw
