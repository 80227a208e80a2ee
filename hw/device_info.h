// What the GPU says about itself: the facts hw/ and the calibration need.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace flashsim::hw {

struct DeviceInfo {
  int ordinal = 0;
  std::string name;
  int compute_major = 0, compute_minor = 0;
  int sm_count = 0;
  std::uint64_t global_memory_bytes = 0;
  std::uint64_t l2_bytes = 0;
  std::uint64_t persisting_l2_max_bytes = 0;     ///< cudaDevAttrMaxPersistingL2CacheSize
  std::uint64_t access_policy_max_window_bytes = 0;
  int pci_bus_id = 0;
};

/// Every visible CUDA device; empty when there is no GPU or no driver
/// (never throws for that: callers skip). Throws std::runtime_error when a
/// present device cannot be queried.
std::vector<DeviceInfo> list_devices();

/// Reads `bytes` (a multiple of 16) of a known pattern through the consumer
/// kernel on device `ordinal` and returns true when the device checksum
/// equals the host's. Throws std::runtime_error on a CUDA error.
bool consume_self_test(int ordinal, std::size_t bytes);

}  // namespace flashsim::hw
