// NVML sampling during replays: device memory used, PCIe rx/tx, SM and
// memory clocks and power, every `period` (100 ms by default), on a thread
// of its own. libnvidia-ml.so.1 (the driver's) is loaded at run time
// (nvml_library.h): a missing NVML must not stop a replay -- the sampler
// then reports available() == false and records nothing.
//
// NVML calls used (NVML API reference, r580): nvmlInit_v2,
// nvmlDeviceGetHandleByIndex_v2, nvmlDeviceGetMemoryInfo,
// nvmlDeviceGetPcieThroughput (KB/s over a 20 ms window, per NVML's docs),
// nvmlDeviceGetClockInfo (MHz), nvmlDeviceGetPowerUsage (mW), nvmlShutdown.
#pragma once
#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "hw/nvml/nvml_library.h"

namespace flashsim::hw {

/// One sample. Fields NVML could not read are -1.
struct NvmlSample {
  std::int64_t time_ns = 0;          ///< steady clock, ns since the sampler started
  std::int64_t memory_used_bytes = -1;
  std::int64_t pcie_rx_bytes_per_s = -1;  ///< into the device (H2D direction)
  std::int64_t pcie_tx_bytes_per_s = -1;  ///< out of the device
  std::int64_t sm_clock_mhz = -1;
  std::int64_t memory_clock_mhz = -1;
  std::int64_t power_mw = -1;
};

class NvmlSampler {
 public:
  /// Loads NVML and opens CUDA device `ordinal`; never throws (available() says
  /// whether it worked, error() why not).
  explicit NvmlSampler(int ordinal = 0, std::chrono::milliseconds period = std::chrono::milliseconds(100));
  ~NvmlSampler();  ///< stops the thread (NVML is shut down by library_)
  NvmlSampler(const NvmlSampler&) = delete;
  NvmlSampler& operator=(const NvmlSampler&) = delete;

  bool available() const { return device_ != nullptr; }
  const std::string& error() const { return error_; }

  /// Starts sampling (a sample at once, then every period). Clears earlier samples.
  void start();
  /// Stops sampling and returns the samples taken since start().
  std::vector<NvmlSample> stop();
  /// One sample now (also without start()); all -1 when unavailable.
  NvmlSample sample_now() const;

 private:
  void loop();

  nvml::Library library_;
  nvml::Device device_ = nullptr;
  std::string error_;
  std::chrono::milliseconds period_;
  std::chrono::steady_clock::time_point origin_;
  std::atomic<bool> running_{false};
  std::thread thread_;
  std::mutex mutex_;
  std::vector<NvmlSample> samples_;
};

}  // namespace flashsim::hw
