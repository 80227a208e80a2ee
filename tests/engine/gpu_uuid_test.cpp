// hw/gpu_uuid.h: the nvidia-smi form of a GPU UUID, formatted from the 16
// bytes cudaDeviceProp::uuid holds, and its well-formedness check (what a
// baseline's provenance must carry). CUDA-free, so it runs everywhere.
#include <gtest/gtest.h>

#include <array>
#include <string>

#include "hw/gpu_uuid.h"

namespace flashsim::hw {
namespace {

TEST(GpuUuid, FormatsTheSixteenBytesInOrderAs8_4_4_4_12LowercaseHex) {
  const std::array<unsigned char, 16> bytes = {0x5f, 0x4d, 0x2e, 0x1c, 0x0a, 0x9b, 0x4c, 0x3d,
                                               0x8e, 0x7f, 0x11, 0x22, 0x33, 0x44, 0x55, 0xAB};
  EXPECT_EQ(format_gpu_uuid(bytes), "GPU-5f4d2e1c-0a9b-4c3d-8e7f-1122334455ab");
  EXPECT_EQ(format_gpu_uuid({}), "GPU-00000000-0000-0000-0000-000000000000");
  std::array<unsigned char, 16> ff;
  ff.fill(0xff);
  EXPECT_EQ(format_gpu_uuid(ff), "GPU-ffffffff-ffff-ffff-ffff-ffffffffffff");
}

TEST(GpuUuid, WellFormedIsExactlyGpuDash8_4_4_4_12Hex) {
  EXPECT_TRUE(is_gpu_uuid("GPU-5f4d2e1c-0a9b-4c3d-8e7f-1122334455ab"));
  EXPECT_TRUE(is_gpu_uuid("GPU-5F4D2E1C-0A9B-4C3D-8E7F-1122334455AB"));  // either case
  std::array<unsigned char, 16> bytes{};
  for (unsigned k = 0; k < 16; ++k) bytes[k] = static_cast<unsigned char>(k * 17);
  EXPECT_TRUE(is_gpu_uuid(format_gpu_uuid(bytes)));
  EXPECT_FALSE(is_gpu_uuid(""));
  EXPECT_FALSE(is_gpu_uuid("GPU-5f4d2e1c-0a9b-4c3d-8e7f-1122334455a"));    // 11 digits at the end
  EXPECT_FALSE(is_gpu_uuid("GPU-5f4d2e1c-0a9b-4c3d-8e7f-1122334455abc"));  // 13
  EXPECT_FALSE(is_gpu_uuid("MIG-5f4d2e1c-0a9b-4c3d-8e7f-1122334455ab"));   // a MIG instance, not a GPU
  EXPECT_FALSE(is_gpu_uuid("GPU-5f4d2e1c0a9b-4c3d-8e7f-1122334455ab-"));   // dash misplaced
  EXPECT_FALSE(is_gpu_uuid("GPU-5f4d2e1c-0a9b-4c3d-8e7f-1122334455ag"));   // not hex
  EXPECT_FALSE(is_gpu_uuid("gpu-5f4d2e1c-0a9b-4c3d-8e7f-1122334455ab"));   // the prefix is upper case
}

}  // namespace
}  // namespace flashsim::hw
