// Scenario keys of the event engine's prefetch, bandwidth and serving
// options (sim/scenario/engine_options.h), the three-tier hardware profile,
// and a run of the whole path with a prefetcher.
#include <gtest/gtest.h>

#include "sim/run/scenario_runner.h"
#include "sim/scenario/hardware_loader.h"
#include "sim/scenario/scenario_document.h"
#include "tests/app/app_test_util.h"
#include "tests/support/temp_dir.h"

namespace flashsim {
namespace {

using test::error_of;
using test::write_file;

class EngineOptionsTest : public ::testing::Test {
 protected:
  void SetUp() override { write_file(dir_ / "trace.csv", test::cyclic_csv(3, 2, 1024)); }
  Scenario resolve(const std::string& text) {
    write_file(dir_ / "s.yaml", text);
    const ScenarioDocument doc = ScenarioDocument::from_file(dir_ / "s.yaml");
    return doc.resolve(doc.points().front());
  }
  test::TempDir dir_;
};

constexpr const char* kBase =
    "name: t\n"
    "hardware: {profile: seed-defaults}\n"
    "workload: {trace: trace.csv}\n"
    "cache: {capacity: 2MiB}\n";

TEST_F(EngineOptionsTest, DefaultsAreOff) {
  const Scenario s = resolve(std::string(kBase) + "policies: [lru]\n");
  EXPECT_TRUE(s.prefetchers.empty());
  EXPECT_TRUE(s.segment_shares.empty());
  EXPECT_FALSE(s.reservation.enabled);
  EXPECT_DOUBLE_EQ(s.reservation.input_coefficient, 0.8);
  EXPECT_DOUBLE_EQ(s.reservation.output_coefficient, 1.2);
  EXPECT_FALSE(s.kv_resident);
  EXPECT_EQ(s.occupancy_sample_ns, 100'000'000);
  const EngineConfig c = s.engine_config(0, 1024);
  EXPECT_TRUE(c.prefetchers.empty());
  EXPECT_EQ(c.occupancy_sample_ns, 100'000'000);
}

TEST_F(EngineOptionsTest, EveryKeyReachesTheEngineConfig) {
  const Scenario s = resolve("name: t\n"
                             "hardware: {profile: seed-defaults}\n"
                             "workload: {trace: trace.csv}\n"
                             "seed: 9\n"
                             "prefetch: [{impl: lookahead, depth: 3}]\n"
                             "policies:\n"
                             "  - lru\n"
                             "  - {impl: fifo, prefetch: [hit_ratio_controller]}\n"
                             "  - {impl: fifo, prefetch: []}\n"
                             "bandwidth:\n"
                             "  segment_shares: {cross_attention: 35%, encoder: 0.2}\n"
                             "  reservation: {enabled: true, input_coefficient: 1, output_coefficient: 2,\n"
                             "                base_bandwidth: 1.2GB/s, grant_share: 50%}\n"
                             "serving: {kv_resident: true, occupancy_window: 10ms}\n"
                             "cache: {capacity: 2MiB, pin: {segments: [shared]}}\n");
  const EngineConfig c0 = s.engine_config(0, 1024);
  ASSERT_EQ(c0.prefetchers.size(), 1u);
  EXPECT_EQ(c0.prefetchers[0].impl, "lookahead");
  EXPECT_EQ(c0.prefetchers[0].params.at("depth"), "3");
  EXPECT_EQ(c0.seed, 9u);
  const EngineConfig c1 = s.engine_config(1, 1024);
  ASSERT_EQ(c1.prefetchers.size(), 1u);
  EXPECT_EQ(c1.prefetchers[0].impl, "hit_ratio_controller");
  EXPECT_TRUE(s.engine_config(2, 1024).prefetchers.empty());
  EXPECT_EQ(s.policies[1].label(), "fifo+hit_ratio_controller");
  EXPECT_EQ(s.policies[2].label(), "fifo+noprefetch");
  EXPECT_DOUBLE_EQ(c0.segment_shares.at("cross_attention"), 0.35);
  EXPECT_DOUBLE_EQ(c0.segment_shares.at("encoder"), 0.2);
  EXPECT_TRUE(c0.reservation.enabled);
  EXPECT_DOUBLE_EQ(c0.reservation.input_coefficient, 1.0);
  EXPECT_DOUBLE_EQ(c0.reservation.output_coefficient, 2.0);
  EXPECT_DOUBLE_EQ(c0.reservation.base_bandwidth, 1.2e9);
  EXPECT_DOUBLE_EQ(c0.reservation.grant_share, 0.5);
  EXPECT_TRUE(c0.kv_resident);
  EXPECT_EQ(c0.occupancy_sample_ns, 10'000'000);
  EXPECT_EQ(c0.cache.pinned.segments, std::vector<std::string>{"shared"});
  // The resolved scenario carries them (results embed it).
  const std::string text = to_yaml_text(s.resolved);
  EXPECT_NE(text.find("cross_attention"), std::string::npos);
  EXPECT_NE(text.find("hit_ratio_controller"), std::string::npos);
  EXPECT_NE(text.find("kv_resident"), std::string::npos);
}

TEST_F(EngineOptionsTest, BadValuesNameTheKey) {
  const std::string base = std::string(kBase) + "policies: [lru]\n";
  EXPECT_NE(error_of<UnknownNameError>([&] { resolve(base + "prefetch: [lookahed]\n"); }).find("did you mean 'lookahead'"),
            std::string::npos);
  EXPECT_NE(error_of<InputError>([&] { resolve(base + "bandwidth: {segment_shares: {a: 70%, b: 40%}}\n"); })
                .find("bandwidth.segment_shares.b"),
            std::string::npos);
  EXPECT_NE(error_of<InputError>([&] { resolve(base + "bandwidth: {segment_shares: {a: 0%}}\n"); }).find("out of range"),
            std::string::npos);
  EXPECT_NE(error_of<InputError>([&] { resolve(base + "bandwidth: {reservaton: {}}\n"); }).find("reservation"),
            std::string::npos);
  EXPECT_NE(error_of<InputError>([&] { resolve(base + "serving: {kv_resident: maybe}\n"); }).find("serving.kv_resident"),
            std::string::npos);
  EXPECT_NE(error_of<InputError>([&] { resolve(base + "prefetch: [{impl: lookahead, dept: 2}]\n"); }).find("prefetch.0"),
            std::string::npos);
}

TEST(ThreeTierProfile, DramNvmeProfileLoadsWithCitedNvmeLink) {
  const HardwareProfile p = load_hardware_profile("h200-dram-nvme", ".");
  ASSERT_EQ(p.tiers.size(), 3u);
  EXPECT_EQ(p.tiers[0].name, "hbm");
  EXPECT_EQ(p.tiers[1].name, "host_dram");
  EXPECT_EQ(p.tiers[1].capacity_bytes, 512 * kGiB);
  EXPECT_DOUBLE_EQ(p.tiers[1].link_to_faster.bandwidth, 55.23e9);  // inherited from h200.yaml
  EXPECT_EQ(p.tiers[2].name, "nvme");
  EXPECT_DOUBLE_EQ(p.tiers[2].link_to_faster.bandwidth, 13e9);
  EXPECT_EQ(p.tiers[2].link_to_faster.latency_ns, 80'000);
}

TEST_F(EngineOptionsTest, ThreeTierRunEndToEnd) {
  // 3 blocks of 1 KiB, two passes, a fast tier of 2 blocks under LRU with
  // host DRAM (holding everything after the first pass) and NVMe behind it.
  write_file(dir_ / "s.yaml",
             "name: three\n"
             "hardware: {profile: h200-dram-nvme}\n"
             "workload: {trace: trace.csv}\n"
             "cache: {capacity: 2KiB}\n"
             "policies: [lru]\n"
             "outputs: {window: 0}\n");
  RunnerOptions options;
  options.jobs = 1;
  const ScenarioResults r = run_scenario(ScenarioDocument::from_file(dir_ / "s.yaml"), options);
  ASSERT_EQ(r.runs.size(), 1u);
  const AccessCounters& c = r.runs[0].result.metrics.total;
  EXPECT_EQ(c.accesses, 6u);
  EXPECT_EQ(c.misses, 6u);  // LRU, 2 slots, cycle of 3: every access misses
  // The first pass comes from NVMe (80 µs + ...), the second from DRAM: the
  // run takes longer than three NVMe latencies.
  EXPECT_GT(r.runs[0].result.metrics.simulated_ns, 3 * 80'000);
}

}  // namespace
}  // namespace flashsim
