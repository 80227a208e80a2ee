// GPU test (label gpu): skips cleanly when no CUDA device is visible.
#include <gtest/gtest.h>

#include "hw/device_info.h"

namespace {

TEST(ConsumeKernelGpu, ChecksumMatchesHost) {
  if (flashsim::hw::list_devices().empty()) GTEST_SKIP() << "no CUDA device";
  EXPECT_TRUE(flashsim::hw::consume_self_test(0, std::size_t{16} << 20));
  EXPECT_TRUE(flashsim::hw::consume_self_test(0, 4096 + 16));  // a tail smaller than a grid stride
}

TEST(DeviceInfoGpu, ReportsL2) {
  const auto devices = flashsim::hw::list_devices();
  if (devices.empty()) GTEST_SKIP() << "no CUDA device";
  EXPECT_GT(devices[0].l2_bytes, 0u);
  EXPECT_GT(devices[0].sm_count, 0);
}

}  // namespace
