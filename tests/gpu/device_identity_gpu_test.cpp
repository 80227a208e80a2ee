// hw/device_identity.h on the device: every field the baselines' provenance
// needs is read, and the UUID is in nvidia-smi's form. Label gpu: skips
// without a device.
#include <gtest/gtest.h>

#include <regex>

#include "hw/cuda_check.h"
#include "hw/device_identity.h"
#include "hw/gpu_uuid.h"
#include "sim/core/errors.h"

namespace flashsim {
namespace {

TEST(DeviceIdentityGpu, NameUuidDriverBusAndClocksAreRead) {
  if (!hw::cuda_device_present()) GTEST_SKIP() << "no CUDA device";
  const DeviceIdentity id = hw::read_device_identity(0);
  EXPECT_FALSE(id.name.empty());
  EXPECT_TRUE(hw::is_gpu_uuid(id.uuid)) << id.uuid;
  EXPECT_GE(id.cuda_driver_version, 11000);
  EXPECT_TRUE(std::regex_match(id.pci_bus_id, std::regex("[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\\.[0-7]")))
      << id.pci_bus_id;
  EXPECT_GT(id.sm_clock_max_mhz, 0u);
  EXPECT_GT(id.memory_clock_max_mhz, 0u);
  ASSERT_TRUE(id.source == "nvml" || id.source == "cudart") << id.source;
  if (id.source == "nvml") {
    EXPECT_TRUE(std::regex_match(id.driver_version, std::regex("[0-9]+\\.[0-9]+(\\.[0-9]+)?"))) << id.driver_version;
    EXPECT_GT(id.sm_clock_mhz, 0u);
    EXPECT_GT(id.memory_clock_mhz, 0u);
    EXPECT_GE(id.sm_clock_max_mhz, id.sm_clock_mhz);
    EXPECT_GT(id.sm_clock_application_mhz, 0u);
  }
  // The same device read twice: the same identity (clocks may move).
  const DeviceIdentity again = hw::read_device_identity(0);
  EXPECT_EQ(again.uuid, id.uuid);
  EXPECT_EQ(again.pci_bus_id, id.pci_bus_id);
  EXPECT_EQ(again.driver_version, id.driver_version);
  // An ordinal past the last device is an Error naming the call.
  int count = 0;
  ASSERT_EQ(cudaGetDeviceCount(&count), cudaSuccess);
  EXPECT_THROW(hw::read_device_identity(count), Error);
}

}  // namespace
}  // namespace flashsim
