// FlexGen's placement LP (sim/placement/flexgen_lp.h) on inputs whose
// optimum is worked out by hand: everything fits, weights larger than the
// fast tier on two tiers, a disk tier slower than PCIe on three, KV more
// valuable per byte than MoE weights, and a fast tier too small.
#ifdef FLASHSIM_HAVE_GLPK
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "sim/core/errors.h"
#include "sim/placement/flexgen_lp.h"
#include "tests/app/app_test_util.h"

namespace flashsim::placement {
namespace {

constexpr double GB = 1e9;

// `n` equal groups of `weight_gb` GB, read whole every step, `compute_ms` each, no KV.
PlacementInput dense(int n, double weight_gb, double compute_ms) {
  PlacementInput in;
  for (int i = 0; i < n; ++i) {
    LayerGroup g;
    g.name = "layers." + std::to_string(i);
    g.weight_bytes = g.weight_read_bytes = weight_gb * GB;
    g.compute_ns = compute_ms * 1e6;
    in.groups.push_back(g);
  }
  return in;
}

TierInput tier(const std::string& name, double capacity_gb, double up_gb_s) {
  return TierInput{name, capacity_gb * GB, up_gb_s * GB, up_gb_s * GB};
}

bool binds(const GroupTime& g, const std::string& term) {
  return std::find(g.binding.begin(), g.binding.end(), term) != g.binding.end();
}

TEST(PlaceLp, EverythingFitsAllOnTheFastTierAndComputeBinds) {
  // 4 × 10 GB of weights, 1 GB of KV per group; a fast tier of 100 GB holds
  // all 44 GB: w0 = c0 = 1, nothing crosses PCIe, step = 4 × 1 ms compute.
  PlacementInput in = dense(4, 10, 1.0);
  for (LayerGroup& g : in.groups) g.kv_bytes = g.kv_read_bytes = 1 * GB;
  in.tiers = {tier("hbm", 100, 0), tier("host_dram", 0, 50)};
  in.batch = 8;
  const PlacementResult r = solve_flexgen_lp(in);
  EXPECT_NEAR(r.weight_share[0], 1.0, 1e-9);
  EXPECT_NEAR(r.kv_share[0], 1.0, 1e-9);
  EXPECT_NEAR(r.step_ns, 4e6, 1e-3);
  EXPECT_NEAR(r.tokens_per_s, 8 / 4e-3, 1e-6);
  for (const GroupTime& g : r.groups) EXPECT_EQ(g.binding, std::vector<std::string>{"compute"});
  // Buffers vanish at w0 = c0 = 1: used = 40 + 4 GB.
  EXPECT_NEAR(r.tier_used_bytes[0], 44 * GB, 1.0);
  EXPECT_TRUE(r.full_tiers.empty());
}

TEST(PlaceLp, TwoTiersWithoutBuffersGiveCapacityMinusReservedOverWeights) {
  // W = 40 GB, C = 30 GB, 1 GB reserved, no stream buffers: w0 = (30 − 1) / 40 = 0.725.
  // Each group streams 10 × 0.275 = 2.75 GB at 50 GB/s = 55 ms > 1 ms compute.
  PlacementInput in = dense(4, 10, 1.0);
  in.tiers = {tier("hbm", 30, 0), tier("host_dram", 0, 50)};
  in.reserved_bytes = 1 * GB;
  in.stream_buffers = 0;
  const PlacementResult r = solve_flexgen_lp(in);
  EXPECT_NEAR(r.weight_share[0], 0.725, 1e-9);
  EXPECT_NEAR(r.weight_share[1], 0.275, 1e-9);
  EXPECT_NEAR(closed_form_weight_share(in, 0.0), 0.725, 1e-12);
  EXPECT_NEAR(r.step_ns, 4 * 55e6, 1.0);
  for (const GroupTime& g : r.groups) {
    EXPECT_NEAR(g.time_ns, 55e6, 1.0);
    EXPECT_EQ(g.binding, std::vector<std::string>{"up:host_dram"});
  }
  EXPECT_EQ(r.full_tiers, std::vector<std::string>{"hbm"});
}

TEST(PlaceLp, LinkLatencyIsChargedPerTransfer) {
  // As above (w0 = 0.725) with 1 MB blocks on a link of 10 µs latency: a
  // byte costs 1/50 GB/s + 10 µs / 1 MB = 0.02 + 0.01 ns, so a group's
  // 2.75 GB take 82.5 ms. The placement does not change: only w0 moves bytes.
  PlacementInput in = dense(4, 10, 1.0);
  for (LayerGroup& g : in.groups) g.weight_block_bytes = 1e6;
  in.tiers = {tier("hbm", 30, 0), tier("host_dram", 0, 50)};
  in.tiers[1].latency_ns = 10e3;
  in.reserved_bytes = 1 * GB;
  in.stream_buffers = 0;
  const PlacementResult r = solve_flexgen_lp(in);
  EXPECT_NEAR(r.weight_share[0], 0.725, 1e-9);
  EXPECT_NEAR(r.step_ns, 4 * 82.5e6, 1.0);
}

TEST(PlaceLp, TwoTiersWithFlexGensDoubleBuffer) {
  // The double buffer holds 2 × 10 GB × (1 − w0):
  // 40·w0 + 20·(1 − w0) + 1 = 30  ->  w0 = (30 − 1 − 20) / (40 − 20) = 0.45.
  // Time a group: 10 × 0.55 / 50 = 110 ms; the step 440 ms.
  PlacementInput in = dense(4, 10, 1.0);
  in.tiers = {tier("hbm", 30, 0), tier("host_dram", 0, 50)};
  in.reserved_bytes = 1 * GB;
  const PlacementResult r = solve_flexgen_lp(in);
  EXPECT_NEAR(r.weight_share[0], 0.45, 1e-9);
  EXPECT_NEAR(closed_form_weight_share(in, 0.0), 0.45, 1e-12);
  EXPECT_NEAR(r.step_ns, 440e6, 1.0);
  EXPECT_NEAR(r.tier_used_bytes[0], 30 * GB, 10.0);
}

TEST(PlaceLp, SlowDiskFillsTheCpuTierFirst) {
  // Fast tier 30 GB of W = 40 (no buffers): w0 = 0.75. Host DRAM 4 GB:
  // w1 = 0.1, the disk the rest, w2 = 0.15. A group: PCIe 10 × 0.25 / 50 =
  // 50 ms, disk 10 × 0.15 / 10 = 150 ms: the disk binds, step 600 ms.
  PlacementInput in = dense(4, 10, 1.0);
  in.tiers = {tier("hbm", 30, 0), tier("host_dram", 4, 50), tier("nvme", 0, 10)};
  in.stream_buffers = 0;
  const PlacementResult r = solve_flexgen_lp(in);
  EXPECT_NEAR(r.weight_share[0], 0.75, 1e-9);
  EXPECT_NEAR(r.weight_share[1], 0.10, 1e-9);
  EXPECT_NEAR(r.weight_share[2], 0.15, 1e-9);
  EXPECT_NEAR(r.step_ns, 600e6, 1.0);
  for (const GroupTime& g : r.groups) EXPECT_EQ(g.binding, std::vector<std::string>{"up:nvme"});
  EXPECT_EQ(r.full_tiers, (std::vector<std::string>{"hbm", "host_dram"}));
}

TEST(PlaceLp, WhenPcieBindsTheDiskStillHoldsOnlyWhatDramCannot) {
  // Host DRAM 9 GB: w1 = 0.225, w2 = 0.025. PCIe 10 × 0.25 / 50 = 50 ms
  // binds; the disk's 10 × 0.025 / 10 = 25 ms leaves it room, so the time
  // alone would accept any w2 up to 0.05: the tie-break keeps DRAM full.
  PlacementInput in = dense(4, 10, 1.0);
  in.tiers = {tier("hbm", 30, 0), tier("host_dram", 9, 50), tier("nvme", 0, 10)};
  in.stream_buffers = 0;
  const PlacementResult r = solve_flexgen_lp(in);
  EXPECT_NEAR(r.weight_share[0], 0.75, 1e-9);
  EXPECT_NEAR(r.weight_share[1], 0.225, 1e-9);
  EXPECT_NEAR(r.weight_share[2], 0.025, 1e-9);
  EXPECT_NEAR(r.step_ns, 200e6, 1.0);
  for (const GroupTime& g : r.groups) EXPECT_TRUE(binds(g, "up:host_dram")) << g.binding.front();
}

TEST(PlaceLp, KvReadMoreOftenThanSparseExpertsTakesTheFastTierFirst) {
  // Per GB of fast tier a step saves 0.4 GB of expert reads (each step reads
  // 40% of the experts) but 0.8 GB of KV reads: KV goes first. 2 groups of
  // 10 GB weights and 2 GB KV; C = 12 GB, no buffers: c0 = 1 (4 GB), then
  // w0 = (12 − 4) / 20 = 0.4. A group: (10·0.4·0.6 + 0) / 50 = 48 ms.
  PlacementInput in = dense(2, 10, 1.0);
  for (LayerGroup& g : in.groups) {
    g.weight_read_bytes = 0.4 * g.weight_bytes;
    g.kv_bytes = 2 * GB;
    g.kv_read_bytes = 1.6 * GB;
  }
  in.tiers = {tier("hbm", 12, 0), tier("host_dram", 0, 50)};
  in.stream_buffers = 0;
  const PlacementResult r = solve_flexgen_lp(in);
  EXPECT_NEAR(r.kv_share[0], 1.0, 1e-9);
  EXPECT_NEAR(r.weight_share[0], 0.4, 1e-9);
  EXPECT_NEAR(closed_form_weight_share(in, 1.0), 0.4, 1e-12);
  EXPECT_NEAR(r.step_ns, 2 * 48e6, 1.0);
}

TEST(PlaceLp, KvWritesBindTheDownLinkWhenTheyAreTheLargestTerm) {
  // KV only (5 GB), a fast tier of 1 GB: c0 = 0.2 (both link terms fall as
  // c0 grows). Reads 0.5 GB × 0.8 at 50 GB/s up = 8 ms; writes 1 GB × 0.8
  // at 10 GB/s down = 80 ms: the down link binds, the step is 80 ms.
  PlacementInput in = dense(1, 0, 1.0);
  in.groups[0].kv_bytes = 5 * GB;
  in.groups[0].kv_read_bytes = 0.5 * GB;
  in.groups[0].kv_written_bytes = 1 * GB;
  in.tiers = {tier("hbm", 1, 0), TierInput{"host_dram", 0, 50 * GB, 10 * GB}};
  in.stream_buffers = 0;
  const PlacementResult r = solve_flexgen_lp(in);
  EXPECT_NEAR(r.kv_share[0], 0.2, 1e-9);
  EXPECT_NEAR(r.step_ns, 80e6, 1.0);
  EXPECT_EQ(r.groups[0].binding, std::vector<std::string>{"down:host_dram"});
}

TEST(PlaceLp, TooSmallAFastTierIsAnInputErrorWithTheFigures) {
  // Double buffer of the largest group (2 × 10 GB) + 1 GB reserved > 15 GB.
  PlacementInput in = dense(4, 10, 1.0);
  in.tiers = {tier("hbm", 15, 0), tier("host_dram", 0, 50)};
  in.reserved_bytes = 1 * GB;
  const std::string e = test::error_of<InputError>([&] { solve_flexgen_lp(in); });
  EXPECT_NE(e.find("'hbm'"), std::string::npos) << e;
  EXPECT_NE(e.find("21.0"), std::string::npos) << e;  // 21 GB needed
}

TEST(PlaceLp, MalformedInputIsRefused) {
  PlacementInput in = dense(2, 1, 1.0);
  in.tiers = {tier("hbm", 10, 0)};
  EXPECT_NE(test::error_of<InputError>([&] { solve_flexgen_lp(in); }).find("tier"), std::string::npos);
  in.tiers = {tier("hbm", 10, 0), tier("host_dram", 0, 0)};
  EXPECT_NE(test::error_of<InputError>([&] { solve_flexgen_lp(in); }).find("bandwidth 0"), std::string::npos);
  in.groups.clear();
  in.tiers = {tier("hbm", 10, 0), tier("host_dram", 0, 50)};
  EXPECT_NE(test::error_of<InputError>([&] { solve_flexgen_lp(in); }).find("no layer groups"), std::string::npos);
}

}  // namespace
}  // namespace flashsim::placement
#endif  // FLASHSIM_HAVE_GLPK
