// The GPU replay against the event engine on a generated decode workload
// (KV pages written and read, requests ending, concurrency 4), access by
// access: both drivers call a recording wrapper of the same policy, so the
// per-access hit/miss sequences of the two are compared, not only counts.
// Also: the scenario's prefetchers run in the replay, and the device's
// identity is stored with the results. Label gpu: skips without a device.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "hw/cuda_check.h"
#include "hw/gpu_uuid.h"
#include "hw/replay/replay.h"
#include "hw/device_identity.h"
#include "sim/results/results_writer.h"
#include "sim/policy/i_eviction_policy.h"
#include "sim/run/scenario_runner.h"
#include "sim/scenario/scenario_document.h"
#include "tests/support/recording_policy.h"
#include "tests/support/temp_dir.h"

namespace flashsim {
namespace {

#define REQUIRE_GPU() \
  if (!hw::cuda_device_present()) GTEST_SKIP() << "no CUDA device"

// The recorder (tests/support/recording_policy.h): the replay builds two
// policies, the tier it runs, then its isolated-cost tier.
using test::recording;

FLASHSIM_REGISTER_POLICY({"test_rec_lru", "test: lru, recording each access", {},
                          [](const ParamValues&, const PolicyContext& c) { return recording("lru", c); }});
FLASHSIM_REGISTER_POLICY({"test_rec_s3fifo", "test: s3fifo, recording each access", {},
                          [](const ParamValues&, const PolicyContext& c) { return recording("s3fifo", c); }});

// tests/gpu/data/tiny-llama.json: a 2-layer Llama (GQA 4/2 heads, fp16),
// 276 kB of weights and KV at tensor granularity; the decode generator
// writes every new token's KV page (a write allocation on its first touch)
// and reads the context's pages. As tests/gpu/data/kv-decode.yaml.
const std::filesystem::path kDataDir = FLASHSIM_SOURCE_DIR "/tests/gpu/data";


/// One run of both drivers on the runner's trace and configuration.
struct Pair {
  EngineResult sim;
  hw::ReplayRun hw;
  std::vector<char> sim_seq, hw_seq;
};

std::vector<Pair> run_both(const std::string& yaml, const hw::ReplayOptions& options) {
  const ScenarioDocument doc = ScenarioDocument::from_text(yaml, "eq.yaml", kDataDir);
  std::vector<Pair> out;
  RunnerOptions ro;
  ro.jobs = 1;
  ro.engine = [&](ITraceSource& trace, const EngineConfig& config, const ComponentChoice&, const EngineContext&) {
    Pair p;
    trace.rewind();
    const std::size_t first = test::recorded().size();
    p.sim = run_engine(trace, config);
    if (test::recorded().size() <= first) throw Error("the engine built no recording policy");
    p.sim_seq = test::recorded().back().seq;  // its fast tier's
    trace.rewind();
    const std::size_t replay_first = test::recorded().size();
    p.hw = hw::replay_trace(trace, config, options);
    if (test::recorded().size() <= replay_first) throw Error("the replay built no recording policy");
    p.hw_seq = test::recorded()[replay_first].seq;  // the tier it runs (built before the isolated-cost one)
    const std::size_t n = p.sim.metrics.total.accesses;
    p.sim_seq.resize(n, '.');
    p.hw_seq.resize(n, '.');
    out.push_back(std::move(p));
    return out.back().hw.result;
  };
  (void)run_scenario(doc, ro);
  return out;
}


class KvDecodeEquivalence : public ::testing::TestWithParam<std::string> {};

// (b) Demand-only, KV writes at concurrency 4, capacity 50%: the same policy
// calls access by access and the same counters, write allocations and
// write-backs included; the bytes on the device are right throughout.
TEST_P(KvDecodeEquivalence, SameDecisionsWritesAndWriteBacksAsTheEngine) {
  REQUIRE_GPU();
  hw::ReplayOptions options;
  options.nvml = false;
  options.verify = true;
  options.copy_streams = 2;
  const std::vector<Pair> runs = run_both(test::kv_decode_scenario("50%", "  - " + GetParam() + "\n"), options);
  ASSERT_EQ(runs.size(), 1u);
  const Pair& p = runs[0];
  const AccessCounters& s = p.sim.metrics.total;
  const AccessCounters& h = p.hw.result.metrics.total;
  ASSERT_EQ(p.hw.outcomes.size(), s.accesses);
  EXPECT_EQ(test::mismatches(p.sim_seq, p.hw_seq, false), 0u);
  for (std::size_t i = 0; i < p.hw.outcomes.size(); ++i) {
    const bool hit = p.hw.outcomes[i] == AccessOutcome::hit;
    EXPECT_EQ(hit, p.hw_seq[i] == 'h') << "access " << i;
    if (hit) {
      EXPECT_EQ(p.hw.device_resident[i], 1u) << "access " << i << " (device memory)";
    }
  }
  test::expect_same_demand_counters(h, s);
  // Not vacuous: pages were allocated in place and dirty ones written back
  // (flashsim run on this scenario: 48 allocations; LRU 20480 B, S3-FIFO 26624 B written back).
  EXPECT_EQ(s.write_allocations, 48u);
  EXPECT_GT(s.bytes_written_back, 0u);
  EXPECT_GT(p.hw.write_backs, 0u);
  EXPECT_GT(s.hits, 0u);
  // Written pages re-read after their write-back came back from the host intact.
  EXPECT_EQ(p.hw.checksum_mismatches, 0u);
  EXPECT_GT(p.hw.resident_checked, 0u);
  EXPECT_EQ(p.hw.resident_mismatches, 0u);
}

INSTANTIATE_TEST_SUITE_P(Policies, KvDecodeEquivalence, ::testing::Values("test_rec_lru", "test_rec_s3fifo"));

// (a) The scenario's own prefetcher (a policy entry's `prefetch:` list, no
// ReplayOptions::prefetcher) runs in the replay. Lookahead on the decode
// scan with a fast tier larger than the footprint: nothing is evicted, so
// whether a block is absent at any decision depends on earlier decisions
// only, never on when a copy lands. Exact, then: which accesses miss,
// prefetches issued, bytes prefetched and fetched, write allocations.
// Not exact: hit vs delayed hit (a prefetch still in flight on the GPU or
// not), hence not hits alone.
TEST(ReplayEngineEquivalence, LookaheadFromTheScenarioIssuesTheSamePrefetches) {
  REQUIRE_GPU();
  hw::ReplayOptions options;
  options.nvml = false;
  const std::vector<Pair> runs =
      run_both(test::kv_decode_scenario("64MiB", "  - {impl: test_rec_lru, prefetch: [{impl: lookahead}]}\n"), options);
  ASSERT_EQ(runs.size(), 1u);
  const Pair& p = runs[0];
  const AccessCounters& s = p.sim.metrics.total;
  const AccessCounters& h = p.hw.result.metrics.total;
  EXPECT_EQ(test::mismatches(p.sim_seq, p.hw_seq, true), 0u);
  EXPECT_GT(s.prefetches, 0u);
  EXPECT_EQ(h.prefetches, s.prefetches);
  EXPECT_EQ(h.bytes_prefetched, s.bytes_prefetched);
  EXPECT_EQ(h.bytes_fetched, s.bytes_fetched);
  EXPECT_EQ(h.misses, s.misses);
  EXPECT_EQ(h.hits + h.delayed_hits, s.hits + s.delayed_hits);
  EXPECT_EQ(h.write_allocations, s.write_allocations);
  EXPECT_EQ(h.evictions, 0u);
  EXPECT_EQ(s.evictions, 0u);
  EXPECT_EQ(h.prefetch_used_timely + h.prefetch_used_late + h.prefetch_unused, h.prefetches);
  EXPECT_EQ(p.hw.checksum_mismatches, 0u);
}

// The gpu_replay engine, run as `engine: {impl: gpu_replay}` through the
// runner and the results writers: its device identity and replay
// statistics are the run's components in summary.json and results.h5, its
// access log a file in the results folder named by replay.access_log.
TEST(ReplayEngineEquivalence, RegisteredEngineStoresItsStatisticsAndIdentity) {
  REQUIRE_GPU();
  test::TempDir dir;
  const ScenarioDocument doc = ScenarioDocument::from_text(
      test::kv_decode_scenario("50%", "  - lru\n"), "eq.yaml", kDataDir,
      {parse_override("engine={impl: gpu_replay, nvml: false}")});
  RunnerOptions ro;
  ro.artifacts_dir = dir / "out";
  const ScenarioResults results = run_scenario(doc, ro);
  write_results(dir / "out", results);
  ASSERT_EQ(results.runs.size(), 1u);
  EXPECT_EQ(results.runs[0].engine, "gpu_replay");
  const ComponentStats& c = results.runs[0].result.components;
  const DeviceIdentity device = hw::read_device_identity(0);
  ASSERT_NE(c.find_text("device", "uuid"), nullptr);
  EXPECT_TRUE(hw::is_gpu_uuid(c.find_text("device", "uuid")->text)) << c.find_text("device", "uuid")->text;
  EXPECT_EQ(c.find_text("device", "uuid")->text, device.uuid);
  ASSERT_NE(c.find("replay", "decisions"), nullptr);
  EXPECT_GE(c.find("replay", "decisions")->value, static_cast<double>(results.runs[0].result.metrics.total.accesses));
  EXPECT_EQ(c.find("replay", "checksum_mismatches")->value, 0.0);

  const nlohmann::json summary = nlohmann::json::parse(std::ifstream(dir / "out" / "summary.json"));
  std::string log, uuid;
  for (const auto& t : summary.at("runs").at(0).at("component_texts")) {
    if (t.at("component") == "replay" && t.at("name") == "access_log") log = t.at("text");
    if (t.at("component") == "device" && t.at("name") == "uuid") uuid = t.at("text");
  }
  EXPECT_EQ(uuid, device.uuid);
  EXPECT_EQ(log, "access_log_run_000.h5");
  EXPECT_TRUE(std::filesystem::is_regular_file(dir / "out" / log));

  const hid_t file = H5Fopen((dir / "out" / "results.h5").c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  ASSERT_GE(file, 0);
  for (const char* name : {"/timeseries/run_000/components/texts/text",
                           "/timeseries/run_000/components/series/replay.token_start_ns"}) {
    EXPECT_GT(H5Lexists(file, name, H5P_DEFAULT), 0) << name;
  }
  H5Fclose(file);
}

}  // namespace
}  // namespace flashsim
