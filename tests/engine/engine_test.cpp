// The event engine against hand-computed timelines (model:
// sim/engine/event/engine_detail.h).
#include <gtest/gtest.h>

#include "sim/core/errors.h"
#include "sim/engine/engine.h"
#include "sim/engine/event/engine_detail.h"
#include "tests/engine/test_policies.h"

namespace flashsim {
namespace {

constexpr Nanoseconds kHit = 100;      // fast-tier hit latency
constexpr Nanoseconds kPenalty = 142;  // miss penalty (the seed's figure)
constexpr Nanoseconds kBackHit = 50;   // backing tier read latency
constexpr Nanoseconds kLinkLat = 1000;
// Link at 1 B/ns; a 4000-B block: one miss takes
//   142 + 50 + (1000 + 4000) + 100 = 5292 ns, stall 5292 ns (a miss stalls for its whole latency).
constexpr ByteCount kBlock = 4000;
constexpr Nanoseconds kMiss = kPenalty + kBackHit + kLinkLat + 4000 + kHit;

TierSpec tier(const std::string& name, Nanoseconds hit, ByteCount capacity = 0, Nanoseconds link_latency = 0,
              BytesPerSecond bw = 1e9, LinkSharing sharing = LinkSharing::fifo) {
  TierSpec t;
  t.name = name;
  t.hit_latency_ns = hit;
  t.capacity_bytes = capacity;
  t.policy = test::kTestFifo;
  t.link_to_faster.latency_ns = link_latency;
  t.link_to_faster.bandwidth = bw;
  t.link_to_faster.sharing = sharing;
  return t;
}

EngineConfig two_tier(ByteCount capacity, LinkSharing sharing = LinkSharing::fifo) {
  EngineConfig c;
  c.hardware.name = "test";
  c.hardware.tiers = {tier("hbm", kHit), tier("dram", kBackHit, 0, kLinkLat, 1e9, sharing)};
  c.hardware.miss_penalty_ns = kPenalty;
  c.cache.capacity_bytes = capacity;
  c.cache.eviction = {test::kTestFifo, {}};
  return c;
}

AccessRecord rec(Nanoseconds t, BlockId block, ByteCount bytes = kBlock, std::uint32_t stream = 0) {
  AccessRecord r;
  r.time_ns = t;
  r.block_id = block;
  r.bytes = bytes;
  r.stream_id = stream;
  return r;
}

EngineResult run(const std::vector<AccessRecord>& records, const EngineConfig& config,
                 EngineDetail* detail = nullptr, TraceMeta meta = {}) {
  meta.source = "test";
  MemoryTraceSource trace(meta, records);
  return run_engine(trace, config, detail);
}

TEST(Engine, EveryAccessMissesClosedLoop) {
  // Five cold blocks, one stream, closed loop, no compute: accesses run
  // back to back, so simulated time = 5 x (penalty + read + transfer + hit).
  std::vector<AccessRecord> r;
  for (BlockId b = 0; b < 5; ++b) r.push_back(rec(0, b));
  EngineDetail detail;
  const EngineResult res = run(r, two_tier(1'000'000), &detail);
  const AccessCounters& c = res.metrics.total;
  EXPECT_EQ(kMiss, 5292);
  EXPECT_EQ(res.metrics.simulated_ns, 5 * kMiss);
  EXPECT_EQ(c.accesses, 5u);
  EXPECT_EQ(c.misses, 5u);
  EXPECT_EQ(c.hits, 0u);
  EXPECT_EQ(c.bytes_fetched, 5 * kBlock);
  EXPECT_EQ(c.stall_ns, 5 * kMiss);
  EXPECT_EQ(res.metrics.latency.max_ns(), kMiss);
  EXPECT_EQ(res.metrics.latency.count(), 5u);
  ASSERT_EQ(detail.links.size(), 1u);
  EXPECT_EQ(detail.links[0].transfers, 5u);
  EXPECT_EQ(detail.links[0].busy_ns, 5 * 4000);
  EXPECT_EQ(detail.tiers[1].served, 5u);
  // The same counts as the components declare them (component_stats.h).
  auto stat = [&](const std::string& component, const std::string& name) {
    for (const ComponentStat& s : res.components.rows) {
      if (s.component == component && s.name == name) return s.value;
    }
    ADD_FAILURE() << "no statistic " << component << " " << name;
    return -1.0;
  };
  EXPECT_EQ(stat("link.dram->hbm", "transfers"), 5.0);
  EXPECT_EQ(stat("link.dram->hbm", "busy_ns"), 5.0 * 4000);
  EXPECT_EQ(stat("link.dram->hbm", "bytes"), 5.0 * kBlock);
  EXPECT_EQ(stat("tier.dram", "served"), 5.0);
  EXPECT_EQ(stat("tier.hbm", "evictions"), 0.0);
}

TEST(Engine, ComputeTimeSeparatesClosedLoopAccesses) {
  // compute_ns = 1000 after each access: the next issues at completion +
  // 1000; the last access's compute is not part of simulated time.
  std::vector<AccessRecord> r;
  for (BlockId b = 0; b < 5; ++b) {
    r.push_back(rec(0, b));
    r.back().compute_ns = 1000;
  }
  EXPECT_EQ(run(r, two_tier(1'000'000)).metrics.simulated_ns, 5 * kMiss + 4 * 1000);
  // Without compute_ns, gap_ns stands in for it.
  for (auto& x : r) x.compute_ns = 0;
  EngineConfig c = two_tier(1'000'000);
  c.gap_ns = 700;
  EXPECT_EQ(run(r, c).metrics.simulated_ns, 5 * kMiss + 4 * 700);
}

TEST(Engine, HitCostsExactlyTheHitLatency) {
  const std::vector<AccessRecord> r{rec(0, 7), rec(0, 7)};
  const EngineResult res = run(r, two_tier(1'000'000));
  EXPECT_EQ(res.metrics.total.hits, 1u);
  EXPECT_EQ(res.metrics.total.bytes_hit, kBlock);
  EXPECT_EQ(res.metrics.simulated_ns, kMiss + kHit);
  EXPECT_EQ(res.metrics.total.stall_ns, kMiss);  // the hit stalls 0
  EXPECT_DOUBLE_EQ(res.metrics.total.hit_ratio_by_access(), 0.5);
}

TEST(Engine, DelayedHitWaitsExactlyTheRemainingTransfer) {
  // Stream 0 misses on block 1 at 0: the copy leaves at 192 and arrives at
  // 192 + 1000 + 4000 = 5192. Stream 1 asks for it at 2000: in flight, so
  // it waits 5192 - 2000 = 3192 ns, then the hit latency.
  const std::vector<AccessRecord> r{rec(0, 1, kBlock, 0), rec(2000, 1, kBlock, 1)};
  for (IssueMode mode : {IssueMode::closed, IssueMode::timestamp}) {
    EngineConfig c = two_tier(1'000'000);
    c.issue = mode;
    const EngineResult res = run(r, c);
    const AccessCounters& t = res.metrics.total;
    EXPECT_EQ(t.misses, 1u);
    EXPECT_EQ(t.delayed_hits, 1u);
    EXPECT_EQ(t.hits, 0u);
    EXPECT_EQ(t.bytes_fetched, kBlock);  // one copy serves both
    EXPECT_EQ(t.stall_ns, kMiss + 3192 + kHit);
    EXPECT_EQ(res.metrics.simulated_ns, kMiss);  // both done at 5292
  }
}

TEST(Engine, TimestampModeIssuesOpenLoopAndTheFifoLinkQueues) {
  // Blocks 0 and 1 at t = 0 and 1000. Open loop: the second copy is
  // requested at 1192 but the link is busy until 5192: it ends at 10192,
  // done 10292. Closed loop: the second issues at 5292, done 10584.
  const std::vector<AccessRecord> r{rec(0, 0), rec(1000, 1)};
  EngineConfig c = two_tier(1'000'000);
  c.issue = IssueMode::timestamp;
  EXPECT_EQ(run(r, c).metrics.simulated_ns, 10292);
  c.issue = IssueMode::closed;
  EXPECT_EQ(run(r, c).metrics.simulated_ns, 2 * kMiss);
}

TEST(Engine, FairLinkSharesBetweenStreams) {
  // Two streams miss on different blocks at 0: both copies flow from 1192
  // at 0.5 B/ns each and end at 1192 + 8000 = 9192; done 9292.
  const std::vector<AccessRecord> r{rec(0, 0, kBlock, 0), rec(0, 1, kBlock, 1)};
  const EngineResult res = run(r, two_tier(1'000'000, LinkSharing::fair));
  EXPECT_EQ(res.metrics.simulated_ns, 9292);
  EXPECT_EQ(res.metrics.total.stall_ns, 2 * 9292);
  // fifo instead: 5292 and 10292.
  EXPECT_EQ(run(r, two_tier(1'000'000)).metrics.simulated_ns, 10292);
}

TEST(Engine, ContentionAddsNsPerMibOfExcessOccupancy) {
  // 1-MiB blocks 0,1,2 then a hit on 0. Occupancy at issue: 0, 1, 2, 3 MiB;
  // baseline 1 MiB, 5 ns/MiB -> +0, +0, +5, +10 ns.
  const ByteCount mib = kMiB;
  const std::vector<AccessRecord> r{rec(0, 0, mib), rec(0, 1, mib), rec(0, 2, mib), rec(0, 0, mib)};
  EngineConfig off = two_tier(10 * kMiB);
  EngineConfig on = off;
  on.hardware.contention.ns_per_mib = 5.0;
  on.hardware.contention.baseline_bytes = kMiB;
  const EngineResult a = run(r, off), b = run(r, on);
  EXPECT_EQ(b.metrics.simulated_ns - a.metrics.simulated_ns, 15);
  // Stall counts the +5 of the third access (a miss); the hit's +10 is latency, not stall.
  EXPECT_EQ(b.metrics.total.stall_ns - a.metrics.total.stall_ns, 5);
  // Fractional: 4.3 ns/MiB x 2 MiB = 8.6 -> 9 on the hit, 4.3 -> 4 on the third.
  on.hardware.contention.ns_per_mib = 4.3;
  EXPECT_EQ(run(r, on).metrics.simulated_ns - a.metrics.simulated_ns, 13);
}

TEST(Engine, TlbMissesFromRecordAddresses) {
  // Pages 0 1 0 2 1 0 (one 4-KiB block per page), 2 entries: 5 misses (see
  // tlb_l2_test) -> 5 x 30 ns more than without a TLB.
  std::vector<AccessRecord> r;
  for (std::uint64_t page : {0, 1, 0, 2, 1, 0}) {
    r.push_back(rec(0, page, 4096));
    r.back().address = page * 4096;
  }
  EngineConfig off = two_tier(1'000'000);
  EngineConfig on = off;
  on.hardware.tlb.entries = 2;
  on.hardware.tlb.page_bytes = 4096;
  on.hardware.tlb.miss_penalty_ns = 30;
  EngineDetail detail;
  const EngineResult a = run(r, off), b = run(r, on, &detail);
  EXPECT_EQ(detail.tlb.misses, 5u);
  EXPECT_EQ(detail.tlb.hits, 1u);
  EXPECT_EQ(b.metrics.simulated_ns - a.metrics.simulated_ns, 150);
}

TEST(Engine, TlbSyntheticAddressesLayBlocksBackToBack) {
  // No addresses: 3000-B blocks 0..3 sit at 0, 3072, 6144, 9216 (rounded to
  // 256 B); 4-KiB pages 0, 0, 1, 2 -> 3 misses, 1 hit.
  std::vector<AccessRecord> r;
  for (BlockId b = 0; b < 4; ++b) r.push_back(rec(0, b, 3000));
  EngineConfig c = two_tier(1'000'000);
  c.hardware.tlb.entries = 8;
  c.hardware.tlb.page_bytes = 4096;
  EngineDetail detail;
  run(r, c, &detail);
  EXPECT_EQ(detail.tlb.misses, 3u);
  EXPECT_EQ(detail.tlb.hits, 1u);
}

TEST(Engine, L2LatencyOnAddressLevelRecords) {
  // 512-B L2 (see tlb_l2_test): addresses 0, 256, 0 of blocks 0, 1, 0.
  // L2: miss, miss, hit. Each access adds 330, 330, 150 ns.
  std::vector<AccessRecord> r{rec(0, 0, 32), rec(0, 1, 32), rec(0, 0, 32)};
  r[0].address = 0;
  r[1].address = 256;
  r[2].address = 0;
  EngineConfig off = two_tier(1'000'000);
  EngineConfig on = off;
  on.hardware.l2.capacity_bytes = 512;
  on.hardware.l2.line_bytes = 128;
  on.hardware.l2.sector_bytes = 32;
  on.hardware.l2.associativity = 2;
  on.hardware.l2.hit_latency_ns = 150;
  on.hardware.l2.miss_latency_ns = 330;
  EngineDetail detail;
  const EngineResult a = run(r, off), b = run(r, on, &detail);
  EXPECT_EQ(b.metrics.simulated_ns - a.metrics.simulated_ns, 330 + 330 + 150);
  EXPECT_TRUE(detail.l2.enabled);
  EXPECT_EQ(detail.l2.sampled_line_misses, 2u);
  EXPECT_EQ(detail.l2.sampled_sector_hits, 1u);
}

TEST(Engine, ThreeTierHierarchyHandComputed) {
  // HBM (hit 100, holds one 4000-B block) <- DRAM (hit 80; link 1000 ns,
  // 1 B/ns) <- NVMe (hit 20000; link 5000 ns, 0.5 B/ns). Accesses A, B, A.
  //  A: NVMe -> DRAM -> HBM. Leaves NVMe at 142 + 20000 = 20142; NVMe->DRAM
  //     5000 + 8000 = 13000 -> 33142; DRAM->HBM 5000 -> 38142; done 38242.
  //  B: same path, evicts A from HBM (A stays in DRAM): done 2 x 38242 = 76484.
  //  A: HBM miss, DRAM hit: leaves at +142 +80, +5000 on the link, +100:
  //     done 76484 + 5322 = 81806.
  EngineConfig c;
  c.hardware.name = "three";
  c.hardware.tiers = {tier("hbm", 100), tier("dram", 80, 1'000'000, 1000, 1e9),
                      tier("nvme", 20000, 0, 5000, 5e8)};
  c.hardware.miss_penalty_ns = 142;
  c.cache.capacity_bytes = kBlock;
  c.cache.eviction = {test::kTestFifo, {}};
  const std::vector<AccessRecord> r{rec(0, 10), rec(0, 11), rec(0, 10)};
  EngineDetail detail;
  const EngineResult res = run(r, c, &detail);
  EXPECT_EQ(res.metrics.simulated_ns, 81806);
  EXPECT_EQ(res.metrics.total.misses, 3u);
  EXPECT_EQ(res.metrics.total.evictions, 2u);
  EXPECT_EQ(res.metrics.total.bytes_fetched, 3 * kBlock);
  EXPECT_EQ(res.metrics.latency.max_ns(), 38242);
  ASSERT_EQ(detail.tiers.size(), 3u);
  EXPECT_EQ(detail.tiers[1].served, 1u);
  EXPECT_EQ(detail.tiers[2].served, 2u);
  ASSERT_EQ(detail.links.size(), 2u);
  EXPECT_EQ(detail.links[0].transfers, 3u);  // DRAM -> HBM
  EXPECT_EQ(detail.links[1].transfers, 2u);  // NVMe -> DRAM
  EXPECT_EQ(detail.links[1].from_tier, "nvme");
  EXPECT_EQ(detail.tiers[1].evictions, 0u);
}

TEST(Engine, WindowsCountAccessesByIssueTime) {
  // Five back-to-back misses issue at 0, 5292, 10584, 15876, 21168 and the
  // run ends at 26460: windows of 5000 ns -> 6 windows, one access in each
  // of the first five. Occupancy at 5000: block 0 in flight (4000 B); at
  // 10000: blocks 0, 1 (8000 B).
  std::vector<AccessRecord> r;
  for (BlockId b = 0; b < 5; ++b) r.push_back(rec(0, b));
  EngineConfig c = two_tier(1'000'000);
  c.window_ns = 5000;
  const EngineResult res = run(r, c);
  const auto& w = res.metrics.windows;
  ASSERT_EQ(w.size(), 6u);
  for (int k = 0; k < 5; ++k) EXPECT_EQ(w[k].counters.accesses, 1u) << k;
  EXPECT_EQ(w[5].counters.accesses, 0u);
  EXPECT_EQ(w[3].start_ns, 15000);
  EXPECT_EQ(w[0].occupancy_bytes, 4000u);
  EXPECT_EQ(w[1].occupancy_bytes, 8000u);
  EXPECT_EQ(w[5].occupancy_bytes, 20000u);
  Nanoseconds busy = 0;
  for (const auto& x : w) busy += x.link_busy_ns;
  EXPECT_EQ(busy, 20000);
  EXPECT_EQ(w[0].link_busy_ns, 5000 - 1192);  // first copy flows [1192, 5192)
  EXPECT_EQ(res.metrics.window_ns, 5000);
  // window_ns = 0: one window spanning the run.
  c.window_ns = 0;
  const EngineResult one = run(r, c);
  ASSERT_EQ(one.metrics.windows.size(), 1u);
  EXPECT_EQ(one.metrics.window_ns, one.metrics.simulated_ns);
  EXPECT_EQ(one.metrics.windows[0].link_busy_ns, 20000);
}

TEST(Engine, PinnedBlocksStayAndOthersBypass) {
  // Capacity one block; block 0 pinned. 0 (miss, kept), 1 (cannot fit
  // beside the pinned block: bypass, no eviction), 0 (hit).
  EngineConfig c = two_tier(kBlock);
  c.cache.pinned.blocks = {0};
  const std::vector<AccessRecord> r{rec(0, 0), rec(0, 1), rec(0, 0)};
  const EngineResult res = run(r, c);
  EXPECT_EQ(res.metrics.total.hits, 1u);
  EXPECT_EQ(res.metrics.total.misses, 2u);
  EXPECT_EQ(res.metrics.total.bypasses, 1u);
  EXPECT_EQ(res.metrics.total.evictions, 0u);
  EXPECT_EQ(res.metrics.total.bytes_fetched, 2 * kBlock);
  EXPECT_EQ(res.pinned_bytes, kBlock);
}

TEST(Engine, PinningByKindNeedsACatalog) {
  EngineConfig c = two_tier(kBlock);
  c.cache.pinned.kinds = {"embedding"};
  EXPECT_THROW(run({rec(0, 0)}, c), InputError);
  TraceMeta meta;
  meta.catalog.push_back(BlockCatalogEntry{0, "embed", kBlock, kNoAddress, kNoAddress, -1, "embedding"});
  const EngineResult res = run({rec(0, 0), rec(0, 1), rec(0, 0)}, c, nullptr, meta);
  EXPECT_EQ(res.metrics.total.bypasses, 1u);
  EXPECT_EQ(res.metrics.total.hits, 1u);
}

TEST(Engine, SizeChangeDropsTheOldCopyWithoutEviction) {
  const std::vector<AccessRecord> r{rec(0, 0, 4000), rec(0, 0, 2000), rec(0, 0, 2000)};
  const EngineResult res = run(r, two_tier(1'000'000));
  EXPECT_EQ(res.metrics.total.misses, 2u);
  EXPECT_EQ(res.metrics.total.hits, 1u);
  EXPECT_EQ(res.metrics.total.evictions, 0u);
}

TEST(Engine, FragmentationEvictionsWithFirstFit) {
  // 1024-B fast tier, LRU, 256-B blocks A B C D fill it; hits on A and C
  // make the LRU order B D A C. E (512 B): evict B, then D (256 B free at
  // 256 and at 768: enough bytes, not contiguous), so evicting A is a
  // fragmentation eviction; [0, 512) then holds E. The bytes pool evicts
  // only B and D.
  const std::vector<AccessRecord> r{rec(0, 0, 256), rec(0, 1, 256), rec(0, 2, 256), rec(0, 3, 256),
                                    rec(0, 0, 256), rec(0, 2, 256), rec(0, 4, 512)};
  EngineConfig c = two_tier(1024);
  c.cache.eviction = {"lru", {}};
  c.cache.allocator = {"first_fit", {{"alignment", "256B"}}};
  const EngineResult ff = run(r, c);
  EXPECT_EQ(ff.metrics.total.evictions, 3u);
  EXPECT_EQ(ff.fragmentation_evictions, 1u);
  EXPECT_EQ(ff.slot_reserved_peak_bytes, 1024u);
  c.cache.allocator = {"bytes", {}};
  const EngineResult ideal = run(r, c);
  EXPECT_EQ(ideal.metrics.total.evictions, 2u);
  EXPECT_EQ(ideal.fragmentation_evictions, 0u);
}

std::vector<AccessRecord> pseudo_random_trace(std::size_t n) {
  std::vector<AccessRecord> r;
  std::uint64_t x = 12345;
  Nanoseconds t[3] = {0, 0, 0};
  for (std::size_t i = 0; i < n; ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    const std::uint32_t s = static_cast<std::uint32_t>((x >> 33) % 3);
    t[s] += static_cast<Nanoseconds>((x >> 40) % 30000);  // link about half loaded
    const BlockId block = (x >> 20) % 40;
    r.push_back(rec(t[s], block, 1000 + 500 * (block % 4), s));
    r.back().compute_ns = static_cast<Nanoseconds>((x >> 12) % 700);
  }
  return r;
}

void expect_same(const RunMetrics& a, const RunMetrics& b) {
  auto same = [](const AccessCounters& x, const AccessCounters& y) {
    EXPECT_EQ(x.accesses, y.accesses);
    EXPECT_EQ(x.hits, y.hits);
    EXPECT_EQ(x.delayed_hits, y.delayed_hits);
    EXPECT_EQ(x.misses, y.misses);
    EXPECT_EQ(x.bypasses, y.bypasses);
    EXPECT_EQ(x.bytes_accessed, y.bytes_accessed);
    EXPECT_EQ(x.bytes_hit, y.bytes_hit);
    EXPECT_EQ(x.bytes_fetched, y.bytes_fetched);
    EXPECT_EQ(x.evictions, y.evictions);
    EXPECT_EQ(x.bytes_evicted, y.bytes_evicted);
    EXPECT_EQ(x.stall_ns, y.stall_ns);
  };
  same(a.total, b.total);
  EXPECT_EQ(a.simulated_ns, b.simulated_ns);
  EXPECT_EQ(a.latency.count(), b.latency.count());
  EXPECT_EQ(a.latency.max_ns(), b.latency.max_ns());
  for (double q : {0.5, 0.9, 0.99}) EXPECT_EQ(a.latency.quantile_ns(q), b.latency.quantile_ns(q));
  ASSERT_EQ(a.windows.size(), b.windows.size());
  for (std::size_t k = 0; k < a.windows.size(); ++k) {
    same(a.windows[k].counters, b.windows[k].counters);
    EXPECT_EQ(a.windows[k].link_busy_ns, b.windows[k].link_busy_ns);
    EXPECT_EQ(a.windows[k].occupancy_bytes, b.windows[k].occupancy_bytes);
  }
}

TEST(Engine, SameInputsGiveIdenticalMetrics) {
  const auto r = pseudo_random_trace(3000);
  for (LinkSharing sharing : {LinkSharing::fifo, LinkSharing::fair}) {
    for (IssueMode mode : {IssueMode::closed, IssueMode::timestamp}) {
      EngineConfig c = two_tier(12'000, sharing);
      c.issue = mode;
      c.window_ns = 100'000;
      const EngineResult a = run(r, c), b = run(r, c);
      expect_same(a.metrics, b.metrics);
      EXPECT_EQ(a.events_processed, b.events_processed);
      // Sanity: the mix produced every kind of access.
      EXPECT_GT(a.metrics.total.hits, 0u);
      EXPECT_GT(a.metrics.total.misses, 0u);
      EXPECT_GT(a.metrics.total.evictions, 0u);
      EXPECT_EQ(a.metrics.total.accesses, 3000u);
      EXPECT_EQ(a.metrics.total.hits + a.metrics.total.delayed_hits + a.metrics.total.misses, 3000u);
      EXPECT_EQ(a.metrics.latency.count(), 3000u);
    }
  }
}

TEST(Engine, DecisionClockTraceShowsRecordTimesEngineShowsSimulatedTime) {
  // Records at 1000, 2000, 3000 (misses, closed loop). Under `trace` the
  // policy sees 1000, 2000, 3000; under `engine` it sees the engine's issue
  // times: 0 (engine time 0 = earliest record), 5292, 10584.
  const std::vector<AccessRecord> r{rec(1000, 0), rec(2000, 1), rec(3000, 2)};
  EngineConfig c = two_tier(1'000'000);
  c.cache.eviction = {test::kClockProbe, {}};
  test::clock_probe_log().clear();
  EngineResult res = run(r, c);
  EXPECT_EQ(res.decision_clock, DecisionClock::trace);
  ASSERT_EQ(test::clock_probe_log().size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(test::clock_probe_log()[i].now_ns, r[i].time_ns);
    EXPECT_EQ(test::clock_probe_log()[i].access_index, i);
  }
  c.decision_clock = DecisionClock::engine;
  test::clock_probe_log().clear();
  res = run(r, c);
  EXPECT_EQ(res.decision_clock, DecisionClock::engine);
  ASSERT_EQ(test::clock_probe_log().size(), 3u);
  EXPECT_EQ(test::clock_probe_log()[0].now_ns, 0);
  EXPECT_EQ(test::clock_probe_log()[1].now_ns, kMiss);
  EXPECT_EQ(test::clock_probe_log()[2].now_ns, 2 * kMiss);
}

TEST(Engine, EmptyTraceRunsToZero) {
  const EngineResult res = run({}, two_tier(1000));
  EXPECT_EQ(res.metrics.total.accesses, 0u);
  EXPECT_EQ(res.metrics.simulated_ns, 0);
  EXPECT_EQ(res.events_processed, 0u);
}

TEST(Engine, BadConfigurationAndRecordsAreInputErrors) {
  EngineConfig one = two_tier(1000);
  one.hardware.tiers.pop_back();
  EXPECT_THROW(run({rec(0, 0)}, one), InputError);
  EXPECT_THROW(run({rec(0, 0)}, two_tier(0)), InputError);
  EngineConfig unknown = two_tier(1000);
  unknown.cache.eviction = {"no_such_policy", {}};
  EXPECT_THROW(run({rec(0, 0)}, unknown), UnknownNameError);
  try {
    run({rec(0, 0), rec(0, 1, 0)}, two_tier(1000));
    FAIL() << "a record with 0 bytes must be rejected";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("record 1"), std::string::npos) << e.what();
  }
  EngineConfig mid = two_tier(1000);
  mid.hardware.tiers.insert(mid.hardware.tiers.begin() + 1, tier("dram", 10, 0, 0));
  EXPECT_THROW(run({rec(0, 0)}, mid), InputError);  // intermediate tier without capacity
}

TEST(Engine, RecordedOrderWithinAStreamIsKept) {
  // Interleaved streams in the file; each stream's records issue in file order.
  std::vector<AccessRecord> r;
  for (int i = 0; i < 6; ++i) r.push_back(rec(i * 10, 100 + i, kBlock, i % 2));
  EngineConfig c = two_tier(1'000'000);
  c.cache.eviction = {test::kClockProbe, {}};
  test::clock_probe_log().clear();
  run(r, c);
  ASSERT_EQ(test::clock_probe_log().size(), 6u);
  std::vector<std::uint64_t> stream0, stream1;
  for (const auto& o : test::clock_probe_log()) (o.access_index % 2 ? stream1 : stream0).push_back(o.access_index);
  EXPECT_EQ(stream0, (std::vector<std::uint64_t>{0, 2, 4}));
  EXPECT_EQ(stream1, (std::vector<std::uint64_t>{1, 3, 5}));
}

}  // namespace
}  // namespace flashsim
