// GPU replay (hw/replay) against the simulator, on hardware. Label gpu:
// every test that needs a device skips cleanly without one.
#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "hw/cuda_check.h"
#include "hw/replay/replay.h"
#include "kernels/replay_kernels.h"
#include "sim/core/errors.h"
#include "sim/engine/engine.h"
#include "sim/policy/i_eviction_policy.h"
#include "sim/prefetch/i_prefetcher.h"
#include "sim/scenario/hardware_loader.h"
#include "tests/support/temp_dir.h"
#include "traces/trace_formats.h"

namespace flashsim {
namespace {

#define REQUIRE_GPU() \
  if (!hw::cuda_device_present()) GTEST_SKIP() << "no CUDA device"

// A prefetcher for the tests: on every access of block k, prefetch block k + 1.
class NextBlockPrefetcher final : public IPrefetcher {
 public:
  std::string_view name() const override { return "test_next_block"; }
  void on_access(const PrefetchAccess& a, const IFastTierView& view, IPrefetchActions& actions) override {
    if (view.state(a.block_id + 1) == BlockState::absent && a.block_id + 1 < 40) actions.prefetch(a.block_id + 1);
  }
};
FLASHSIM_REGISTER_PREFETCHER({"test_next_block", "test: prefetch block k+1 on access of k", {},
                              [](const ParamValues&, const PrefetcherContext&) {
                                return std::make_unique<NextBlockPrefetcher>();
                              }});

/// 40 blocks of 4 KiB .. 148 KiB (every third one 20 bytes longer, so the
/// kernels' tails are exercised), `n` accesses with a skewed popularity.
MemoryTraceSource make_trace(std::size_t n, unsigned seed = 1) {
  TraceMeta meta;
  meta.source = "gpu-test";
  std::vector<ByteCount> sizes;
  for (BlockId k = 0; k < 40; ++k) {
    const ByteCount bytes = 4096 * (1 + (k * 7) % 37) + (k % 3 == 0 ? 20 : 0);
    sizes.push_back(bytes);
    BlockCatalogEntry e;
    e.id = k;
    e.bytes = bytes;
    // Four layers of five two-block experts, for the model-aware policies.
    e.layer = static_cast<std::int32_t>(k / 10);
    e.name = "layers." + std::to_string(k / 10) + ".experts." + std::to_string(k % 10 / 2) + ".w#" + std::to_string(k);
    e.kind = "weight";
    meta.catalog.push_back(e);
  }
  std::mt19937 rng(seed);
  std::geometric_distribution<int> pick(0.12);
  std::vector<AccessRecord> records;
  for (std::size_t i = 0; i < n; ++i) {
    AccessRecord r;
    r.time_ns = static_cast<Nanoseconds>(i) * 1000;
    r.block_id = static_cast<BlockId>(pick(rng) % 40);
    r.bytes = sizes[r.block_id];
    r.token_index = static_cast<std::int32_t>(i / 50);
    r.request_id = 0;
    r.phase = i < 50 ? Phase::prefill : Phase::decode;
    records.push_back(r);
  }
  // Next use precomputed into the records, so that the simulator's runs on
  // prefixes (simulator_hits) give Belady the whole trace's future too.
  std::vector<std::uint64_t> next(40, kNeverAccessedAgain);
  for (std::size_t i = records.size(); i-- > 0;) {
    records[i].next_use_index = next[records[i].block_id];
    next[records[i].block_id] = i;
  }
  meta.has_next_use = true;
  meta.record_count = records.size();
  return MemoryTraceSource(meta, records);
}

ByteCount footprint(const MemoryTraceSource& t) {
  ByteCount sum = 0;
  for (const auto& e : t.meta().catalog) sum += e.bytes;
  return sum;
}

EngineConfig config_for(const std::string& policy, ByteCount capacity) {
  EngineConfig c;
  c.hardware = load_hardware_profile("h200", FLASHSIM_SOURCE_DIR "/scenarios/hardware");
  c.cache.capacity_bytes = capacity;
  c.cache.eviction = {policy, {}};
  c.cache.allocator = {"first_fit", {}};
  c.issue = IssueMode::closed;
  c.decision_clock = DecisionClock::trace;
  return c;
}

/// The simulator's per-access hit sequence: hits of the event engine on
/// each prefix, differenced (the engine reports counts only).
std::vector<bool> simulator_hits(const MemoryTraceSource& full, const EngineConfig& config) {
  std::vector<bool> out;
  std::uint64_t previous = 0;
  for (std::size_t k = 1; k <= full.records().size(); ++k) {
    TraceMeta meta = full.meta();
    meta.record_count = k;
    MemoryTraceSource prefix(meta, std::vector<AccessRecord>(full.records().begin(), full.records().begin() + k));
    const EngineResult r = run_engine(prefix, config);
    out.push_back(r.metrics.total.hits > previous);
    previous = r.metrics.total.hits;
  }
  return out;
}

class DemandOnlyEquivalence : public ::testing::TestWithParam<std::string> {};

TEST_P(DemandOnlyEquivalence, HitMissSequenceEqualsSimulatorAndDeviceMemory) {
  REQUIRE_GPU();
  MemoryTraceSource trace = make_trace(240);
  const EngineConfig config = config_for(GetParam(), footprint(trace) * 3 / 10);
  const std::vector<bool> sim = simulator_hits(trace, config);

  hw::ReplayOptions options;
  options.verify = true;
  options.nvml = false;
  const hw::ReplayRun run = hw::replay_trace(trace, config, options);
  ASSERT_EQ(run.outcomes.size(), sim.size());
  ASSERT_EQ(run.device_resident.size(), sim.size());
  std::size_t hits = 0;
  for (std::size_t i = 0; i < sim.size(); ++i) {
    const bool replay_hit = run.outcomes[i] == AccessOutcome::hit;
    EXPECT_EQ(replay_hit, sim[i]) << "access " << i;
    // The replay's answer read from device memory: the slot table's place holds the block's tag.
    EXPECT_EQ(run.device_resident[i] != 0, sim[i]) << "access " << i << " (device memory)";
    hits += sim[i];
  }
  EXPECT_GT(hits, 20u);
  EXPECT_LT(hits, sim.size());
  EXPECT_EQ(run.result.metrics.total.hits, hits);
  EXPECT_EQ(run.checksum_mismatches, 0u);
  EXPECT_GT(run.resident_checked, 0u);
  EXPECT_EQ(run.resident_mismatches, 0u);
  // The whole-run counters equal the event engine's.
  const EngineResult full = run_engine(trace, config);
  EXPECT_EQ(run.result.metrics.total.misses, full.metrics.total.misses);
  EXPECT_EQ(run.result.metrics.total.evictions, full.metrics.total.evictions);
  EXPECT_EQ(run.result.metrics.total.bytes_fetched, full.metrics.total.bytes_fetched);
  EXPECT_EQ(run.result.metrics.total.bypasses, full.metrics.total.bypasses);
}

/// Every registered policy: the same objects run in both engines.
std::vector<std::string> every_policy() {
  std::vector<std::string> names;
  for (const auto* e : PolicyRegistry::instance().entries()) names.push_back(e->name);
  return names;
}

INSTANTIATE_TEST_SUITE_P(Policies, DemandOnlyEquivalence, ::testing::ValuesIn(every_policy()));

TEST(ReplayGpu, L2ModeMakesTheSameDecisionsWithTheSameData) {
  REQUIRE_GPU();
  MemoryTraceSource trace = make_trace(200, 7);
  const EngineConfig config = config_for("lru", footprint(trace) * 3 / 10);
  const std::vector<bool> sim = simulator_hits(trace, config);
  hw::ReplayOptions options;
  options.l2_mode = true;
  options.verify = true;
  options.nvml = false;
  const hw::ReplayRun run = hw::replay_trace(trace, config, options);
  ASSERT_EQ(run.outcomes.size(), sim.size());
  for (std::size_t i = 0; i < sim.size(); ++i) {
    EXPECT_EQ(run.outcomes[i] == AccessOutcome::hit, sim[i]) << "access " << i;
    EXPECT_EQ(run.device_resident[i] != 0, sim[i]) << "access " << i << " (device memory)";
  }
  EXPECT_EQ(run.checksum_mismatches, 0u);
  EXPECT_GT(run.resident_checked, 0u);
  EXPECT_EQ(run.resident_mismatches, 0u);
  // Larger than any persisting carve-out: refused.
  EXPECT_THROW(hw::replay_trace(trace, config_for("lru", ByteCount{1} << 30), options), InputError);
}

TEST(ReplayGpu, NoCachePageableCopiesEveryAccess) {
  REQUIRE_GPU();
  MemoryTraceSource trace = make_trace(120, 2);
  hw::ReplayOptions options;
  options.no_cache = true;
  options.backing = hw::HostMemory::pageable;
  options.nvml = false;
  const hw::ReplayRun run = hw::replay_trace(trace, config_for("lru", 1), options);
  const AccessCounters& c = run.result.metrics.total;
  EXPECT_EQ(c.accesses, 120u);
  EXPECT_EQ(c.hits, 0u);
  EXPECT_EQ(c.misses, 120u);
  EXPECT_EQ(c.bytes_fetched, c.bytes_accessed);
  EXPECT_EQ(run.checksum_mismatches, 0u);
  EXPECT_GT(run.result.metrics.simulated_ns, 0);
}

TEST(ReplayGpu, BlocksLargerThanTheTierBypassIntoStaging) {
  REQUIRE_GPU();
  MemoryTraceSource trace = make_trace(100, 3);
  hw::ReplayOptions options;
  options.nvml = false;
  // 64 KiB: blocks above it can never be cached.
  const hw::ReplayRun run = hw::replay_trace(trace, config_for("lru", 64 * 1024), options);
  EXPECT_GT(run.result.metrics.total.bypasses, 0u);
  EXPECT_EQ(run.checksum_mismatches, 0u);
  EXPECT_EQ(run.resident_mismatches, 0u);
}

TEST(ReplayGpu, PrefetcherRunsThroughTheSameInterface) {
  REQUIRE_GPU();
  MemoryTraceSource trace = make_trace(200, 4);
  hw::ReplayOptions options;
  options.nvml = false;
  options.copy_streams = 2;
  options.prefetcher = {"test_next_block", {}};
  const hw::ReplayRun run = hw::replay_trace(trace, config_for("lru", footprint(trace) / 2), options);
  const AccessCounters& c = run.result.metrics.total;
  EXPECT_GT(c.bytes_prefetched, 0u);
  EXPECT_EQ(c.hits + c.delayed_hits + c.misses, c.accesses);
  // H2D bytes = demand misses' bytes + prefetched bytes.
  ByteCount demand = 0;
  for (std::size_t i = 0; i < run.outcomes.size(); ++i) {
    if (run.outcomes[i] == AccessOutcome::miss) demand += trace.records()[i].bytes;
  }
  EXPECT_EQ(c.bytes_fetched, demand + c.bytes_prefetched);
  EXPECT_EQ(run.checksum_mismatches, 0u);
  EXPECT_EQ(run.resident_mismatches, 0u);
}

TEST(ReplayGpu, GemvKernelAndComputeHold) {
  REQUIRE_GPU();
  MemoryTraceSource trace = make_trace(60, 5);
  std::vector<AccessRecord> records = trace.records();
  for (auto& r : records) r.compute_ns = 20000;  // 20 µs held on the GPU clock
  MemoryTraceSource held(trace.meta(), records);
  hw::ReplayOptions options;
  options.nvml = false;
  options.kernel = kernels::ConsumeMode::gemv;
  const hw::ReplayRun run = hw::replay_trace(held, config_for("lru", footprint(trace) / 2), options);
  EXPECT_EQ(run.checksum_mismatches, 0u);
  EXPECT_GT(run.gemv_rows, 0u);
  // 60 accesses each holding >= 20 µs of GPU time, one after another.
  EXPECT_GE(run.result.metrics.simulated_ns, 60 * 20000 - 20000);
}

TEST(ReplayGpu, AccessLogIsACanonicalTraceAndResultsHaveTheSchema) {
  REQUIRE_GPU();
  test::TempDir dir;
  MemoryTraceSource trace = make_trace(80, 6);
  hw::ReplayOptions options;
  options.access_log = dir / "log.h5";
  const hw::ReplayRun run = hw::replay_trace(trace, config_for("arc", footprint(trace) / 3), options);
  auto log = open_trace(dir / "log.h5");
  std::vector<AccessRecord> records(200);
  const std::size_t n = log->read(records);
  ASSERT_EQ(n, 80u);
  for (std::size_t i = 1; i < n; ++i) {
    EXPECT_GE(records[i].time_ns, records[i - 1].time_ns) << i;
    EXPECT_EQ(records[i].block_id, trace.records()[i].block_id);
  }
  EXPECT_EQ(run.decisions, 80u);
  EXPECT_GT(run.decision_ns_total, 0);
  EXPECT_EQ(run.decision_isolated_ns.count(), 80u);
}

}  // namespace
}  // namespace flashsim
