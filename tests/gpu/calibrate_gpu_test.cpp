// Calibration (hw/calibrate): the link fit in closed form (runs anywhere),
// and a quick calibration on the GPU whose figures must lie within physical
// bounds and whose profile must load as a hardware profile.
#include <gtest/gtest.h>

#include <fstream>

#include "hw/calibrate/calibrate.h"
#include "hw/cuda_check.h"
#include "sim/scenario/hardware_loader.h"
#include "tests/support/temp_dir.h"

namespace flashsim {
namespace {

TEST(CalibrateFit, RecoversLatencyAndBandwidthExactly) {
  // t = 4.5 µs + b / 55 GB/s, exactly.
  std::vector<std::pair<double, double>> pts;
  for (double b : {256.0, 4096.0, 65536.0, 1048576.0, 16777216.0, 268435456.0}) pts.emplace_back(b, 4.5e-6 + b / 55e9);
  const hw::LinkFit f = hw::fit_link(pts);
  EXPECT_NEAR(f.latency_ns, 4500.0, 1e-3);
  EXPECT_NEAR(f.bandwidth_bytes_per_s, 55e9, 55e9 * 1e-9);
  EXPECT_LT(f.max_abs_residual, 1e-9);
}

TEST(CalibrateFit, MeasuredKeepsMedianAndSpread) {
  const hw::Measured m = hw::Measured::of({5, 1, 4, 2, 3});
  EXPECT_EQ(m.median, 3);
  EXPECT_EQ(m.min, 1);
  EXPECT_EQ(m.max, 5);
  EXPECT_DOUBLE_EQ(m.spread(), 4.0 / 3.0);
  EXPECT_EQ(hw::Measured::of({1, 2, 3, 4}).median, 2.5);
}

TEST(CalibrateGpu, QuickFiguresWithinPhysicalBoundsAndProfileLoads) {
  if (!hw::cuda_device_present()) GTEST_SKIP() << "no CUDA device";
  hw::CalibrationOptions o;
  o.quick = true;
  const hw::CalibrationReport r = hw::run_calibration(o, nullptr);
  // PCIe Gen5 x16 carries at most 64 GB/s raw per direction; a copy costs at least ~1 µs.
  EXPECT_GT(r.h2d_pinned.bandwidth_bytes_per_s, 1e9);
  EXPECT_LT(r.h2d_pinned.bandwidth_bytes_per_s, 64e9);
  EXPECT_GT(r.h2d_pinned.latency_ns, 500.0);
  EXPECT_LT(r.h2d_pinned.latency_ns, 50000.0);
  EXPECT_LT(r.h2d_pageable.bandwidth_bytes_per_s, 64e9);
  for (const auto& p : r.pinned) {
    EXPECT_EQ(p.h2d_us.samples.size(), 5u);
    EXPECT_LE(p.h2d_us.min, p.h2d_us.median);
    EXPECT_LE(p.h2d_us.median, p.h2d_us.max);
    EXPECT_GT(p.h2d_us.median, 0.5);  // no copy is faster than the round trip
  }
  for (const auto& p : r.concurrent_h2d) EXPECT_LT(p.gb_per_s.median, 64.0);
  // HBM3e: 4.8 TB/s datasheet.
  EXPECT_GT(r.hbm_read_gb_per_s.median, 500.0);
  EXPECT_LT(r.hbm_read_gb_per_s.median, 4800.0 * 1.02);
  ASSERT_GE(r.chase.size(), 2u);
  EXPECT_GT(r.chase.front().ns.median, 30.0);   // an L2 hit is tens of ns at least
  EXPECT_LT(r.chase.front().ns.median, 1000.0);
  EXPECT_GT(r.chase.back().ns.median, r.chase.front().ns.median);  // 256 MiB > L2: slower
  EXPECT_GT(r.sm_clock_ghz, 0.5);
  EXPECT_LT(r.sm_clock_ghz, 3.0);
  EXPECT_EQ(r.contention_slope_ns_per_mib.samples.size(), 5u);

  test::TempDir dir;
  {
    std::ofstream f(dir / "quick.yaml");
    f << hw::profile_yaml(r, "quick");
  }
  const HardwareProfile p = load_hardware_profile((dir / "quick.yaml").string());
  EXPECT_EQ(p.name, "quick");
  ASSERT_EQ(p.tiers.size(), 2u);
  EXPECT_NEAR(double(p.tiers[1].link_to_faster.bandwidth), r.h2d_pinned.bandwidth_bytes_per_s, 0.01e9);
  EXPECT_GT(p.l2.hit_latency_ns, 0);
}

}  // namespace
}  // namespace flashsim
