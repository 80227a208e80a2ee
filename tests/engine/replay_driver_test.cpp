// The GPU replay's own decision code (sim/engine/gpu_replay/replay_driver.h) driven
// through a fake backend, against the event engine, on a machine without a
// GPU: the same policy calls access by access, the same counters, and the
// write-backs the backend is asked for are the engine's bytes_written_back.
// Also the capacity rule every driver shares (pins equal to the capacity).
#include <gtest/gtest.h>

#include <deque>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "sim/engine/gpu_replay/replay_driver.h"
#include "sim/cache/cache_only.h"
#include "sim/core/errors.h"
#include "sim/policy/i_eviction_policy.h"
#include "sim/run/scenario_runner.h"
#include "sim/scenario/scenario_document.h"
#include "tests/support/recording_policy.h"
#include "traces/trace_source.h"

namespace flashsim {
namespace {

using test::recorded;
using test::Recorded;
using test::recording;

FLASHSIM_REGISTER_POLICY({"test_drv_lru", "test: lru, recording each access", {},
                          [](const ParamValues&, const PolicyContext& c) { return recording("lru", c); }});
FLASHSIM_REGISTER_POLICY({"test_drv_s3fifo", "test: s3fifo, recording each access", {},
                          [](const ParamValues&, const PolicyContext& c) { return recording("s3fifo", c); }});
FLASHSIM_REGISTER_POLICY({"test_drv_belady", "test: belady, recording each access", {},
                          [](const ParamValues&, const PolicyContext& c) { return recording("belady", c); }});

// ---- a backend that moves nothing: copies finish `prefetch_delay` accesses after issue ----
class FakeBackend final : public hw::IReplayBackend {
 public:
  explicit FakeBackend(std::uint64_t prefetch_delay) : delay_(prefetch_delay) {}
  void wait_access_done(std::uint64_t index) override { done_through_ = std::max(done_through_, index + 1); }
  bool copy_done(hw::CopyId id, bool wait) override {
    if (wait) return true;
    return !copies_[id].prefetch || now_ >= copies_[id].issued + delay_;
  }
  void departed(const Departure& d, std::uint64_t) override {
    if (d.dirty) written_back_slot_bytes += d.slot.reserved_bytes;
    ++departures;
  }
  hw::CopyId fetch(BlockIndex, ByteCount bytes, const SlotRange& slot, bool prefetch) override {
    if (slot.reserved_bytes < bytes) ADD_FAILURE() << "a copy into a slot smaller than the block";
    copies_.push_back(Copy{now_, prefetch});
    fetched_bytes += bytes;
    return static_cast<hw::CopyId>(copies_.size() - 1);
  }
  void consume(std::uint64_t index, AccessKind kind, BlockIndex, const AccessRecord&, const SlotRange&,
               hw::CopyId wait) override {
    now_ = index + 1;
    if ((kind == AccessKind::miss || kind == AccessKind::delayed_hit) && wait == hw::kNoCopy) {
      ADD_FAILURE() << "access " << index << " waits for no copy";
    }
    ++consumed;
  }
  ByteCount written_back_slot_bytes = 0;
  ByteCount fetched_bytes = 0;
  std::uint64_t departures = 0, consumed = 0;

 private:
  struct Copy {
    std::uint64_t issued;
    bool prefetch;
  };
  std::uint64_t delay_;
  std::uint64_t now_ = 0, done_through_ = 0;
  std::vector<Copy> copies_;
};

const std::filesystem::path kDataDir = FLASHSIM_SOURCE_DIR "/tests/gpu/data";


struct Pair {
  EngineResult sim;
  AccessCounters drv;          // the replay driver's counters, as the CUDA backend sums them
  std::vector<char> sim_seq, drv_seq;
  ByteCount backend_written_back = 0;
  std::uint64_t consumed = 0;
};

std::vector<Pair> run_both(const std::string& yaml, std::uint64_t prefetch_delay) {
  const ScenarioDocument doc = ScenarioDocument::from_text(yaml, "eq.yaml", kDataDir);
  std::vector<Pair> out;
  RunnerOptions ro;
  ro.jobs = 1;
  ro.engine = [&](ITraceSource& trace, const EngineConfig& config, const ComponentChoice&, const EngineContext&) {
    Pair p;
    trace.rewind();
    p.sim = run_engine(trace, config);
    p.sim_seq = recorded().back().seq;
    trace.rewind();
    hw::ReplayDriverOptions options;
    options.run_ahead = 1;
    hw::ReplayDriver driver(trace, config, options);
    FakeBackend backend(prefetch_delay);
    driver.run(backend);
    p.drv_seq = recorded().back().seq;
    p.drv = driver.totals();
    p.backend_written_back = backend.written_back_slot_bytes;
    p.consumed = backend.consumed;
    const std::size_t n = p.sim.metrics.total.accesses;
    p.sim_seq.resize(n, '.');
    p.drv_seq.resize(n, '.');
    out.push_back(std::move(p));
    return out.back().sim;
  };
  (void)run_scenario(doc, ro);
  return out;
}


class DemandEquivalence : public ::testing::TestWithParam<std::string> {};

// Demand-only, KV writes at concurrency 4, capacity 50% of the footprint:
// the same policy calls access by access and the same counters, write
// allocations and write-backs included.
TEST_P(DemandEquivalence, SameDecisionsWritesAndWriteBacksAsTheEngine) {
  const std::vector<Pair> runs = run_both(test::kv_decode_scenario("50%", "  - {impl: " + GetParam() + "}\n"), 0);
  ASSERT_EQ(runs.size(), 1u);
  const Pair& p = runs[0];
  const AccessCounters& s = p.sim.metrics.total;
  const AccessCounters& h = p.drv;
  EXPECT_EQ(test::mismatches(p.sim_seq, p.drv_seq, false), 0u);
  EXPECT_EQ(p.consumed, s.accesses);
  test::expect_same_demand_counters(h, s);
  // Real work was compared: pages appended, evictions made, something written back.
  EXPECT_EQ(s.write_allocations, 48u);
  EXPECT_GT(s.evictions, 0u);
  EXPECT_GT(s.bytes_written_back, 0u);
  // What the backend was asked to write back is what both count (no write-throughs at 50%).
  EXPECT_EQ(p.backend_written_back, s.bytes_written_back);
}

INSTANTIATE_TEST_SUITE_P(Policies, DemandEquivalence,
                         ::testing::Values("test_drv_lru", "test_drv_s3fifo", "test_drv_belady"));

// Lookahead prefetch with a tier larger than the footprint: nothing is
// evicted, so which accesses miss and which prefetches are issued depend on
// earlier decisions only. With copies landing two accesses late, some
// prefetched blocks are found in flight (delayed hits) in the replay.
TEST(ReplayDriverEquivalence, LookaheadIssuesTheSamePrefetches) {
  const std::vector<Pair> runs =
      run_both(test::kv_decode_scenario("64MiB", "  - {impl: test_drv_lru, prefetch: [{impl: lookahead}]}\n"), 2);
  ASSERT_EQ(runs.size(), 1u);
  const AccessCounters& s = runs[0].sim.metrics.total;
  const AccessCounters& h = runs[0].drv;
  EXPECT_EQ(test::mismatches(runs[0].sim_seq, runs[0].drv_seq, true), 0u);
  EXPECT_GT(h.prefetches, 0u);
  EXPECT_EQ(h.prefetches, s.prefetches);
  EXPECT_EQ(h.bytes_prefetched, s.bytes_prefetched);
  EXPECT_EQ(h.misses, s.misses);
  EXPECT_EQ(h.hits + h.delayed_hits, s.hits + s.delayed_hits);
  EXPECT_GT(h.delayed_hits, 0u);
  EXPECT_EQ(h.evictions, 0u);
  EXPECT_EQ(s.evictions, 0u);
  EXPECT_EQ(h.prefetch_used_timely + h.prefetch_used_late + h.prefetch_unused, h.prefetches);
}

// The drift case: pins whose catalog bytes equal the capacity. Every
// driver tells the policy the same capacity (1 byte: nothing is left).
TEST(AccessProtocol, PinsFillingTheCapacityGiveEveryDriverTheSamePolicyCapacity) {
  TraceMeta meta;
  meta.source = "pins";
  meta.catalog = {BlockCatalogEntry{}, BlockCatalogEntry{}, BlockCatalogEntry{}};
  for (std::size_t i = 0; i < 3; ++i) {
    meta.catalog[i].id = i;
    meta.catalog[i].bytes = 256;  // first_fit's alignment: the replay's pool holds them exactly
  }
  std::vector<AccessRecord> records;
  for (std::uint64_t k = 0; k < 9; ++k) {
    AccessRecord r;
    r.time_ns = static_cast<Nanoseconds>(k);
    r.block_id = k % 3;
    r.bytes = 256;
    records.push_back(r);
  }
  MemoryTraceSource trace(meta, records);
  EngineConfig config;
  config.hardware.name = "two";
  config.hardware.tiers.resize(2);
  config.hardware.tiers[0].name = "hbm";
  config.hardware.tiers[1].name = "dram";
  config.hardware.tiers[1].link_to_faster.bandwidth = 1e9;
  config.cache.capacity_bytes = 512;
  config.cache.eviction = {"test_drv_lru", {}};
  config.cache.pinned.blocks = {0, 1};  // 512 bytes by the catalog: all of it

  recorded().clear();
  const EngineResult engine = run_engine(trace, config);
  trace.rewind();
  const RunMetrics cache_only = run_cache_only(trace, config.cache);
  trace.rewind();
  hw::ReplayDriver driver(trace, config, {});
  FakeBackend backend(0);
  driver.run(backend);
  ASSERT_EQ(recorded().size(), 3u);  // one policy per driver
  for (const Recorded& r : recorded()) EXPECT_EQ(r.capacity_bytes, 1u);
  // Blocks 0 and 1 are pinned (a miss each, then hits); block 2 can never be held.
  for (const AccessCounters* c : {&engine.metrics.total, &cache_only.total, &driver.totals()}) {
    EXPECT_EQ(c->hits, 4u);
    EXPECT_EQ(c->misses, 5u);
    EXPECT_EQ(c->bypasses, 3u);
  }
}

}  // namespace
}  // namespace flashsim
