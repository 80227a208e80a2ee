// Prefetchers in the event engine (sim/engine/engine.h, EngineConfig::
// prefetchers) against closed forms: a sequential scan with next-N lookahead.
#include <gtest/gtest.h>

#include "sim/core/errors.h"
#include "sim/engine/engine.h"
#include "sim/engine/event/engine_detail.h"
#include "sim/prefetch/i_prefetcher.h"
#include "sim/prefetch/prefetcher_stats.h"
#include "tests/engine/test_policies.h"

namespace flashsim {
namespace {

// Test-only lookahead: on an access of catalog block b, prefetch b+1 .. b+depth
// (those in the catalog). Stands in for the registered `lookahead`, which
// walks the operator graph instead of block ids.
class NextN final : public IPrefetcher {
 public:
  NextN(std::int64_t depth, const TraceMeta* meta) : depth_(depth), meta_(meta) {}
  std::string_view name() const override { return "engine_test_next_n"; }
  void on_access(const PrefetchAccess& a, const IFastTierView&, IPrefetchActions& actions) override {
    for (std::int64_t k = 1; k <= depth_; ++k) {
      const BlockId id = a.block_id + static_cast<BlockId>(k);
      if (id < meta_->catalog.size()) actions.prefetch(id);
    }
  }

 private:
  std::int64_t depth_;
  const TraceMeta* meta_;
};

FLASHSIM_REGISTER_PREFETCHER({"engine_test_next_n", "test-only: prefetch the next `depth` block ids",
                              {ParamSpec{"depth", ParamType::integer, "1", "blocks ahead", 0, 1e6, {}}},
                              [](const ParamValues& v, const PrefetcherContext& c) -> std::unique_ptr<IPrefetcher> {
                                return std::make_unique<NextN>(v.integer("depth"), c.meta);
                              }});

// Records what the view answers, to check the engine's IFastTierView.
struct ViewLog {
  std::vector<BlockState> state_of_next;
  std::vector<Nanoseconds> last_access_of_self;
  std::vector<std::size_t> resident_count;
};
ViewLog& view_log() {
  static ViewLog log;
  return log;
}
class ViewProbe final : public IPrefetcher {
 public:
  std::string_view name() const override { return "engine_test_view_probe"; }
  void on_access(const PrefetchAccess& a, const IFastTierView& view, IPrefetchActions&) override {
    view_log().state_of_next.push_back(view.state(a.block_id + 1));
    view_log().last_access_of_self.push_back(view.last_access_ns(a.block_id));
    std::size_t n = 0;
    view.for_each_resident([&](BlockId) { ++n; });
    view_log().resident_count.push_back(n);
  }
};
FLASHSIM_REGISTER_PREFETCHER({"engine_test_view_probe", "test-only: logs what IFastTierView answers", {},
                              [](const ParamValues&, const PrefetcherContext&) -> std::unique_ptr<IPrefetcher> {
                                return std::make_unique<ViewProbe>();
                              }});

// Asks for a block id no catalog has.
class Stray final : public IPrefetcher {
 public:
  std::string_view name() const override { return "engine_test_stray"; }
  void on_access(const PrefetchAccess&, const IFastTierView&, IPrefetchActions& actions) override {
    actions.prefetch(12345);
  }
};
FLASHSIM_REGISTER_PREFETCHER({"engine_test_stray", "test-only: prefetches block 12345", {},
                              [](const ParamValues&, const PrefetcherContext&) -> std::unique_ptr<IPrefetcher> {
                                return std::make_unique<Stray>();
                              }});

constexpr ByteCount kBlock = 4000;  // at 1 B/ns: t = 4000 ns per block

TierSpec tier(const std::string& name, BytesPerSecond bw) {
  TierSpec t;
  t.name = name;
  t.policy = test::kTestFifo;
  t.link_to_faster.bandwidth = bw;
  return t;
}

// Hit latency, miss penalty, link latency all 0: a miss costs bytes/bandwidth.
// depth > 0: the registered `lookahead` (next `depth` operators of the
// operator order); depth < 0: the test's NextN with depth −depth.
EngineConfig scan_config(BytesPerSecond bw, std::int64_t depth) {
  EngineConfig c;
  c.hardware.name = "test";
  c.hardware.tiers = {tier("hbm", bw), tier("dram", bw)};
  c.cache.capacity_bytes = 1'000'000;
  c.cache.eviction = {test::kTestFifo, {}};
  if (depth > 0) c.prefetchers.push_back({"lookahead", {{"depth", std::to_string(depth)}}});
  if (depth < 0) c.prefetchers.push_back({"engine_test_next_n", {{"depth", std::to_string(-depth)}}});
  return c;
}

// A model of `ops` operators, operator k reading block k (kBlock bytes);
// the catalog holds max(ops, catalog_blocks) blocks.
TraceMeta scan_meta(std::size_t ops, std::size_t catalog_blocks = 0) {
  TraceMeta meta;
  meta.source = "scan";
  for (BlockId b = 0; b < std::max(ops, catalog_blocks); ++b) {
    BlockCatalogEntry e;
    e.id = b;
    e.bytes = kBlock;
    e.kind = "weight";
    meta.catalog.push_back(e);
  }
  for (BlockId b = 0; b < ops; ++b) {
    OperatorEntry op;
    op.name = "op" + std::to_string(b);
    op.blocks = {b};
    meta.operators.push_back(op);
  }
  return meta;
}

// `tokens` passes over operators 0..ops-1 in order, compute c ns after each access.
std::vector<AccessRecord> passes(std::size_t ops, std::size_t tokens, Nanoseconds compute) {
  std::vector<AccessRecord> records;
  for (std::size_t t = 0; t < tokens; ++t) {
    for (BlockId b = 0; b < ops; ++b) {
      AccessRecord r;
      r.block_id = b;
      r.bytes = kBlock;
      r.compute_ns = compute;
      r.operator_id = static_cast<std::uint32_t>(b);
      records.push_back(r);
    }
  }
  return records;
}

// A sequential scan: blocks 0..n-1 read once each.
EngineResult scan(std::size_t n, Nanoseconds compute, const EngineConfig& config, std::size_t catalog_blocks = 0,
                  EngineDetail* detail = nullptr) {
  MemoryTraceSource trace(scan_meta(n, catalog_blocks), passes(n, 1, compute));
  return run_engine(trace, config, detail);
}

constexpr std::size_t kN = 10;
constexpr Nanoseconds kT = 4000;  // transfer time of one block at 1 B/ns

TEST(PrefetchEngine, WithoutPrefetchEveryBlockStallsItsTransfer) {
  const EngineResult r = scan(kN, 5000, scan_config(1e9, 0));
  EXPECT_EQ(r.metrics.total.misses, kN);
  EXPECT_EQ(r.metrics.total.stall_ns, static_cast<Nanoseconds>(kN) * kT);
  EXPECT_EQ(r.metrics.total.prefetches, 0u);
}

TEST(PrefetchEngine, LookaheadWithEnoughBandwidthLeavesNoStallBeyondTheColdMiss) {
  // Per block: compute c = 5000 ns >= transfer t = 4000 ns, lookahead 2.
  // Access 0 misses (stall t). Access i >= 1 issues at t + i·c; block i,
  // requested at the issue of access i−2 (blocks 1, 2 at time 0), arrives
  // by max(submit, previous arrival) + t <= t + (i−1)·c + t <= t + i·c:
  // it is resident, so every later access is a timely prefetch hit and
  // the stall is exactly the compulsory t.
  const Nanoseconds c = 5000;
  const EngineResult r = scan(kN, c, scan_config(1e9, 2));
  const AccessCounters& m = r.metrics.total;
  EXPECT_EQ(m.stall_ns, kT);
  EXPECT_EQ(m.hits, kN - 1);
  EXPECT_EQ(m.misses, 1u);
  EXPECT_EQ(m.delayed_hits, 0u);
  EXPECT_EQ(m.prefetches, kN - 1);
  EXPECT_EQ(m.bytes_prefetched, (kN - 1) * kBlock);
  EXPECT_EQ(m.bytes_fetched, kN * kBlock);
  EXPECT_EQ(m.prefetch_used_timely, kN - 1);
  EXPECT_EQ(m.prefetch_used_late, 0u);
  EXPECT_EQ(m.prefetch_unused, 0u);
  EXPECT_DOUBLE_EQ(m.prefetch_accuracy(), 1.0);
  EXPECT_DOUBLE_EQ(m.prefetch_coverage(), 9.0 / 10.0);
  EXPECT_DOUBLE_EQ(m.prefetch_timeliness(), 1.0);
  EXPECT_EQ(r.metrics.simulated_ns, kT + static_cast<Nanoseconds>(kN - 1) * c);
}

TEST(PrefetchEngine, LookaheadWithTooLittleBandwidthStallsByTheClosedFormDeficit) {
  // c = 1000 ns < t = 4000 ns, lookahead 2. The link never idles: block k
  // is requested at the issue of access k−2, (k−2)·t + c <= (k−1)·t, before
  // the link frees, so block k arrives at (k+1)·t. Access i >= 1 issues at
  // i·t + c (access i−1 done at i·t, then compute c) and waits until
  // (i+1)·t: a late prefetch stalling t − c. Total:
  //   stall = t + (N − 1)·(t − c),   simulated time = N·t.
  const Nanoseconds c = 1000;
  const EngineResult r = scan(kN, c, scan_config(1e9, 2));
  const AccessCounters& m = r.metrics.total;
  EXPECT_EQ(m.stall_ns, kT + static_cast<Nanoseconds>(kN - 1) * (kT - c));
  EXPECT_EQ(m.stall_ns, 31000);
  EXPECT_EQ(r.metrics.simulated_ns, static_cast<Nanoseconds>(kN) * kT);
  EXPECT_EQ(m.delayed_hits, kN - 1);
  EXPECT_EQ(m.prefetch_used_late, kN - 1);
  EXPECT_EQ(m.prefetch_used_timely, 0u);
  EXPECT_DOUBLE_EQ(m.prefetch_timeliness(), 0.0);
  EXPECT_DOUBLE_EQ(m.prefetch_accuracy(), 1.0);
}

TEST(PrefetchEngine, TestLookaheadMatchesTheRegisteredOne) {
  for (Nanoseconds c : {1000, 5000}) {
    const AccessCounters a = scan(kN, c, scan_config(1e9, 2)).metrics.total;
    const AccessCounters b = scan(kN, c, scan_config(1e9, -2)).metrics.total;
    EXPECT_EQ(a.stall_ns, b.stall_ns);
    EXPECT_EQ(a.prefetches, b.prefetches);
    EXPECT_EQ(a.prefetch_used_late, b.prefetch_used_late);
  }
}

TEST(PrefetchEngine, PrefetchesNeverAccessedCountAsUnused) {
  // The catalog has two blocks past the scan: the last access prefetches
  // both, and the run ends before any access of them.
  const EngineResult r = scan(kN, 5000, scan_config(1e9, -2), kN + 2);
  const AccessCounters& m = r.metrics.total;
  EXPECT_EQ(m.prefetches, kN + 1);
  EXPECT_EQ(m.prefetch_unused, 2u);
  EXPECT_EQ(m.prefetch_used_timely, kN - 1);
  EXPECT_DOUBLE_EQ(m.prefetch_accuracy(), 9.0 / 11.0);
}

TEST(PrefetchEngine, PrefetchOfABlockOutsideTheCatalogIsAnInputError) {
  EngineConfig config = scan_config(1e9, 0);
  config.prefetchers.push_back({"engine_test_stray", {}});
  TraceMeta meta;
  meta.source = "no-catalog";
  std::vector<AccessRecord> records(1);
  records[0].bytes = kBlock;
  MemoryTraceSource trace(meta, records);
  EXPECT_THROW(run_engine(trace, config), InputError);
}

TEST(PrefetchEngine, ViewReportsStatesAndLastAccessTimes) {
  view_log() = ViewLog{};
  EngineConfig config = scan_config(1e9, 0);
  config.prefetchers.push_back({"engine_test_view_probe", {}});
  config.decision_clock = DecisionClock::engine;
  scan(3, 5000, config);
  // Without prefetch the next block is always absent; the access itself
  // is the last access of its block (engine clock: its issue time).
  ASSERT_EQ(view_log().state_of_next.size(), 3u);
  for (BlockState s : view_log().state_of_next) EXPECT_EQ(s, BlockState::absent);
  EXPECT_EQ(view_log().last_access_of_self, (std::vector<Nanoseconds>{0, kT + 5000, 2 * (kT + 5000)}));
  // Resident at each access: the blocks that arrived before it.
  EXPECT_EQ(view_log().resident_count, (std::vector<std::size_t>{0, 1, 2}));
}

// The seed's hit-ratio controller (registered `hit_ratio_controller`) on a
// workload built to need pre-warm: 8 operators of one 4000-B block each,
// 5 tokens, compute 1000 ns per access, a tier that holds everything.
// Without it token 0 misses all 8 blocks one after the other:
//   stall = 8 · 4000 = 32000 ns, later tokens all hit.
// With window 2 and low 0.75: after access 1 (two misses, ratio 0 < 0.75)
// it pre-warms the blocks of the operators ahead, 2..7, which queue on the
// link behind block 1 (arrives 9000): block k arrives 4000·k + 5000.
// Access 0 stalls 4000, access 1 (issued 5000) 4000, and accesses 2..7
// each issue 1000 ns after the previous one completes and wait the rest of
// a transfer, 3000 ns:  stall = 4000 + 4000 + 6 · 3000 = 26000 ns.
EngineConfig controller_config(const std::string& low, const std::string& high, const std::string& idle) {
  EngineConfig c = scan_config(1e9, 0);
  c.decision_clock = DecisionClock::engine;
  c.prefetchers.push_back(
      {"hit_ratio_controller", {{"window", "2"}, {"low", low}, {"high", high}, {"idle", idle}, {"recheck", "1s"}}});
  return c;
}

EngineResult controller_run(const EngineConfig& c, EngineDetail* detail = nullptr) {
  MemoryTraceSource trace(scan_meta(8), passes(8, 5, 1000));
  return run_engine(trace, c, detail);
}

TEST(ControllerEngine, PrewarmLowersStallOnAColdStart) {
  EngineConfig none = scan_config(1e9, 0);
  EXPECT_EQ(controller_run(none).metrics.total.stall_ns, 32000);
  EngineDetail detail;
  const EngineResult r = controller_run(controller_config("0.75", "0.88", "300ms"), &detail);
  EXPECT_EQ(r.metrics.total.stall_ns, 26000);
  EXPECT_EQ(r.metrics.total.prefetches, 6u);
  EXPECT_EQ(r.metrics.total.prefetch_used_late, 6u);
  EXPECT_EQ(r.metrics.total.evictions, 0u);  // nothing idle for 300 ms
  // Switches: to prewarm at access 1 (ratio 0/2); the window [late, hit]
  // of accesses 7, 8 is 0.5, still below 0.75; at access 9 it is 2/2 = 1
  // > 0.88: evict_idle.
  ASSERT_EQ(detail.prefetchers.size(), 1u);
  ASSERT_TRUE(detail.prefetchers[0].reported);
  const auto& events = detail.prefetchers[0].stats.events;
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].what, "prewarm");
  EXPECT_EQ(events[0].access_index, 1u);
  EXPECT_DOUBLE_EQ(events[0].value, 0.0);
  EXPECT_EQ(events[1].what, "evict_idle");
  EXPECT_EQ(events[1].access_index, 9u);
  EXPECT_DOUBLE_EQ(events[1].value, 1.0);
}

TEST(ControllerEngine, ThresholdsDecideTheSwitches) {
  // low 0: a ratio is never below it, so no pre-warm: the stall is the
  // controller-free 32000. high 1: never above it, so no idle eviction even
  // with idle 0 ns; high 0.88 with idle 0 evicts the blocks not accessed at
  // that very instant once the window is all hits.
  EXPECT_EQ(controller_run(controller_config("0", "1", "0ns")).metrics.total.stall_ns, 32000);
  EXPECT_EQ(controller_run(controller_config("0", "1", "0ns")).metrics.total.evictions, 0u);
  EngineDetail detail;
  const EngineResult r = controller_run(controller_config("0.75", "0.88", "0ns"), &detail);
  EXPECT_GT(r.metrics.total.evictions, 0u);
  EXPECT_EQ(detail.prefetchers[0].stats.events.at(1).what, "evict_idle");
}

}  // namespace
}  // namespace flashsim
