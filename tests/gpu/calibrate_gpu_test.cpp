// Calibration (hw/calibrate): the link fit in closed form (runs anywhere),
// and a quick calibration on the GPU whose figures must lie within physical
// bounds and whose profile must load as a hardware profile.
#include <gtest/gtest.h>

#include <yaml-cpp/yaml.h>

#include <fstream>
#include <string>

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

hw::Measured five(double median) { return hw::Measured::of({median - 2, median - 1, median, median + 1, median + 2}); }

/// A hand-made report with every group's figures (no GPU).
hw::CalibrationReport sample_report() {
  hw::CalibrationReport r;
  r.device.name = "Test GPU";
  r.device.sm_count = 132;
  r.device.compute_major = 9;
  r.device.global_memory_bytes = 141 * kGiB;
  r.device.l2_bytes = 60 * kMiB;
  r.date_utc = "2026-12-01T00:00:00Z";
  r.repeats = 5;
  r.pinned = {{256, five(4.5), five(3.7)}, {kMiB, five(23.5), five(22.7)}};
  r.pageable = {{256, five(3.74), five(9.54)}, {4096, five(4.43), five(9.94)}, {256 * kMiB, five(40000), five(20000)}};
  r.h2d_pinned = {4710, 53.59e9, 0.119};
  r.d2h_pinned = {3700, 55.12e9, 0.02};
  r.concurrent_h2d = {{1, five(55.3)}, {2, five(55.1)}};
  r.bidirectional_gb_per_s = five(85.25);
  r.chase = {{kMiB, five(141), five(280)}, {2 * kGiB, five(349), five(690)}};
  r.tlb = {{2 * kGiB, 1024, five(349)}};
  r.hbm_read_gb_per_s = five(4490);
  r.contention = {{0, five(141)}, {64 * kMiB, five(151)}};
  r.contention_slope_ns_per_mib = five(0.0064);
  r.sm_clock_ghz = 1.98;
  hw::ExecutionConstants& x = r.execution;
  hw::ApiCost* costs[] = {&x.launch,     &x.copy_async, &x.event_record, &x.stream_wait_event,
                          &x.stream_sync, &x.event_sync, &x.device_sync,  &x.sync_copy_small};
  double ns = 1000;
  for (hw::ApiCost* c : costs) {
    c->ns = five(ns);
    c->drain_us = five(10);
    c->calls = 2000;
    ns += 100;
  }
  x.host_memcpy_bytes = 256 * kMiB;
  x.host_memcpy_gb_per_s = five(12.34);
  x.host_memcpy_pageable_gb_per_s = five(9.5);
  return r;
}

TEST(CalibrateProfileYaml, WritesTheExecutionSection) {
  const std::string text = hw::profile_yaml(sample_report(), "sample");
  EXPECT_EQ(text.find("PARTIAL"), std::string::npos);
  const YAML::Node doc = YAML::Load(text);
  ASSERT_TRUE(doc["execution"].IsMap()) << text;
  const YAML::Node e = doc["execution"];
  const char* api_keys[] = {"api_launch",      "api_copy_async", "api_event_record", "api_stream_wait_event",
                            "api_stream_sync", "api_event_sync", "api_device_sync",  "api_sync_copy_small"};
  double ns = 1000;
  for (const char* key : api_keys) {
    ASSERT_TRUE(e[key]) << key;
    EXPECT_EQ(e[key].as<std::string>(), std::to_string(static_cast<int>(ns)) + "ns") << key;
    ns += 100;
  }
  EXPECT_EQ(e["host_memcpy_bandwidth"].as<std::string>(), "12.34GB/s");
  EXPECT_EQ(e["host_memcpy_pageable_bandwidth"].as<std::string>(), "9.50GB/s");
  EXPECT_EQ(e["h2d_latency"].as<std::string>(), "4710ns");
  EXPECT_EQ(e["h2d_bandwidth"].as<std::string>(), "53.59GB/s");
  EXPECT_EQ(e["d2h_latency"].as<std::string>(), "3700ns");
  EXPECT_EQ(e["d2h_bandwidth"].as<std::string>(), "55.12GB/s");
  EXPECT_EQ(e["duplex_bandwidth"].as<std::string>(), "85.25GB/s");
  // [bytes, ns] pairs, the medians (µs in the report).
  const YAML::Node h2d = e["pageable_h2d_points"], d2h = e["pageable_d2h_points"];
  ASSERT_TRUE(h2d.IsSequence());
  ASSERT_EQ(h2d.size(), 3u);
  ASSERT_EQ(d2h.size(), 3u);
  EXPECT_EQ(h2d[0][0].as<std::uint64_t>(), 256u);
  EXPECT_EQ(h2d[0][1].as<double>(), 3740);
  EXPECT_EQ(h2d[1][1].as<double>(), 4430);
  EXPECT_EQ(h2d[2][0].as<std::uint64_t>(), 256 * kMiB);
  EXPECT_EQ(h2d[2][1].as<double>(), 40000000);
  EXPECT_EQ(d2h[0][1].as<double>(), 9540);
  EXPECT_EQ(d2h[2][1].as<double>(), 20000000);
  EXPECT_NE(text.find("  pageable_h2d_points: [[256, 3740], [4096, 4430], [268435456, 40000000]]\n"), std::string::npos);
  // Every value keeps its provenance: the line above each api key is its spread.
  const auto at = text.find("  api_launch: 1000ns\n");
  ASSERT_NE(at, std::string::npos);
  EXPECT_NE(text.rfind("median 1000.0 ns per call, min 998.0, max 1002.0 over 5 repeats", at), std::string::npos);
  // The rest of the profile is still there.
  EXPECT_TRUE(doc["tiers"].IsSequence());
  EXPECT_TRUE(doc["l2"].IsMap());
  EXPECT_TRUE(doc["tlb"].IsMap());
  EXPECT_TRUE(doc["contention"].IsMap());
  // Everything before `execution:` (the last section) is the profile the loader knows.
  const auto execution_at = text.find("\nexecution:\n");
  ASSERT_NE(execution_at, std::string::npos);
  test::TempDir dir;
  {
    std::ofstream f(dir / "sample.yaml");
    f << text.substr(0, execution_at + 1);
  }
  const HardwareProfile p = load_hardware_profile((dir / "sample.yaml").string());
  EXPECT_EQ(p.name, "sample");
  EXPECT_NEAR(double(p.tiers[1].link_to_faster.bandwidth), 53.59e9, 0.01e9);
  EXPECT_EQ(p.l2.hit_latency_ns, 141);
}

TEST(CalibrateProfileYaml, PartialRunSaysSoAndWritesOnlyWhatRan) {
  hw::CalibrationReport r = sample_report();
  r.skipped_groups = {"hbm", "chase", "tlb", "contention"};
  const std::string text = hw::profile_yaml(r, "partial");
  EXPECT_NE(text.find("# PARTIAL: `flashsim calibrate --only` ran the benchmark groups copies, concurrent, execution;"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("# skipped: hbm, chase, tlb, contention. This file is NOT a complete hardware profile"),
            std::string::npos);
  const YAML::Node doc = YAML::Load(text);
  EXPECT_FALSE(doc["tlb"]);
  EXPECT_FALSE(doc["l2"]);
  EXPECT_FALSE(doc["contention"]);
  EXPECT_EQ(doc["execution"]["api_launch"].as<std::string>(), "1000ns");
  EXPECT_EQ(doc["execution"]["duplex_bandwidth"].as<std::string>(), "85.25GB/s");
  EXPECT_TRUE(doc["execution"]["pageable_d2h_points"].IsSequence());
  EXPECT_EQ(doc["tiers"][1]["link"]["bandwidth"].as<std::string>(), "53.59GB/s");
  // Only execution: no copy points, fits or duplex figure.
  r.skipped_groups = {"copies", "concurrent", "hbm", "chase", "tlb", "contention"};
  const YAML::Node only_execution = YAML::Load(hw::profile_yaml(r, "x"));
  EXPECT_TRUE(only_execution["execution"]["api_device_sync"]);
  EXPECT_FALSE(only_execution["execution"]["pageable_h2d_points"]);
  EXPECT_FALSE(only_execution["execution"]["duplex_bandwidth"]);
  EXPECT_FALSE(only_execution["tiers"][1]["link"]["bandwidth"]);
}

TEST(CalibrateProfileYaml, OnlyListParses) {
  EXPECT_EQ(hw::parse_calibration_groups("copies,concurrent,execution"),
            (std::vector<std::string>{"copies", "concurrent", "execution"}));
  EXPECT_EQ(hw::parse_calibration_groups(" tlb , chase"), (std::vector<std::string>{"tlb", "chase"}));
  EXPECT_THROW(hw::parse_calibration_groups("copies,nope"), InputError);
  EXPECT_THROW(hw::parse_calibration_groups("copies,copies"), InputError);
  EXPECT_THROW(hw::parse_calibration_groups(","), InputError);
  EXPECT_EQ(hw::calibration_groups().size(), 7u);
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
  // Execution-model constants: a CUDA API call costs the host between ~0.05 and 100 µs.
  for (const hw::ApiCost* c : {&r.execution.launch, &r.execution.copy_async, &r.execution.event_record,
                               &r.execution.stream_wait_event, &r.execution.stream_sync, &r.execution.event_sync,
                               &r.execution.device_sync, &r.execution.sync_copy_small}) {
    EXPECT_EQ(c->ns.samples.size(), 5u);
    EXPECT_GT(c->ns.median, 10.0);
    EXPECT_LT(c->ns.median, 100000.0);
  }
  // A blocking round trip costs more than recording an event.
  EXPECT_GT(r.execution.sync_copy_small.ns.median, r.execution.event_record.ns.median);
  EXPECT_GT(r.execution.host_memcpy_gb_per_s.median, 0.5);
  EXPECT_LT(r.execution.host_memcpy_gb_per_s.median, 500.0);
  EXPECT_GT(r.execution.host_memcpy_pageable_gb_per_s.median, 0.5);

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
