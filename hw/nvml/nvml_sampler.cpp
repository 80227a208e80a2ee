#include "hw/nvml/nvml_sampler.h"

namespace flashsim::hw {

NvmlSampler::NvmlSampler(int ordinal, std::chrono::milliseconds period) : period_(period) {
  if (!library_.available()) {
    error_ = library_.error();
    return;
  }
  const nvml::Api& api = library_.api();
  if (api.memory_info == nullptr || api.pcie_throughput == nullptr || api.clock_info == nullptr ||
      api.power_usage == nullptr) {
    error_ = "libnvidia-ml.so.1 lacks an expected symbol";
    return;
  }
  device_ = library_.device_for_cuda_ordinal(ordinal);
  if (device_ == nullptr) error_ = library_.error();
}

NvmlSampler::~NvmlSampler() {
  if (running_) (void)stop();
}

NvmlSample NvmlSampler::sample_now() const {
  NvmlSample s;
  s.time_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - origin_).count();
  if (device_ == nullptr) return s;
  const nvml::Api& api = library_.api();
  nvml::Memory mem{};
  if (api.memory_info(device_, &mem) == nvml::kSuccess) s.memory_used_bytes = static_cast<std::int64_t>(mem.used);
  unsigned v = 0;
  if (api.pcie_throughput(device_, nvml::kPcieRx, &v) == nvml::kSuccess) s.pcie_rx_bytes_per_s = std::int64_t{v} * 1024;
  if (api.pcie_throughput(device_, nvml::kPcieTx, &v) == nvml::kSuccess) s.pcie_tx_bytes_per_s = std::int64_t{v} * 1024;
  if (api.clock_info(device_, nvml::kClockSm, &v) == nvml::kSuccess) s.sm_clock_mhz = v;
  if (api.clock_info(device_, nvml::kClockMem, &v) == nvml::kSuccess) s.memory_clock_mhz = v;
  if (api.power_usage(device_, &v) == nvml::kSuccess) s.power_mw = v;
  return s;
}

void NvmlSampler::start() {
  if (running_) (void)stop();
  origin_ = std::chrono::steady_clock::now();
  {
    std::lock_guard lock(mutex_);
    samples_.clear();
  }
  if (device_ == nullptr) return;
  running_ = true;
  thread_ = std::thread([this] { loop(); });
}

void NvmlSampler::loop() {
  auto next = std::chrono::steady_clock::now();
  while (running_) {
    const NvmlSample s = sample_now();
    {
      std::lock_guard lock(mutex_);
      samples_.push_back(s);
    }
    next += period_;
    // Sleep in short steps so stop() returns promptly.
    while (running_ && std::chrono::steady_clock::now() < next) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

std::vector<NvmlSample> NvmlSampler::stop() {
  running_ = false;
  if (thread_.joinable()) thread_.join();
  std::lock_guard lock(mutex_);
  return std::move(samples_);
}

}  // namespace flashsim::hw
