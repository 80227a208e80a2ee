// Serving metrics, KV growth, segment locking and bandwidth reservation in
// the event engine, on hand-built traces with hand-computed timelines.
#include <gtest/gtest.h>

#include "sim/core/errors.h"
#include "sim/engine/engine.h"
#include "sim/engine/event/engine_detail.h"
#include "tests/engine/test_policies.h"

namespace flashsim {
namespace {

constexpr ByteCount kBlock = 1000;  // 1000 ns at 1 B/ns

TierSpec tier(const std::string& name, Nanoseconds hit, LinkSharing sharing = LinkSharing::fifo) {
  TierSpec t;
  t.name = name;
  t.hit_latency_ns = hit;
  t.policy = test::kTestFifo;
  t.link_to_faster.bandwidth = 1e9;
  t.link_to_faster.sharing = sharing;
  return t;
}

EngineConfig config(Nanoseconds hit, ByteCount capacity = 1'000'000, LinkSharing sharing = LinkSharing::fifo) {
  EngineConfig c;
  c.hardware.name = "test";
  c.hardware.tiers = {tier("hbm", hit), tier("dram", 0, sharing)};
  c.cache.capacity_bytes = capacity;
  c.cache.eviction = {test::kTestFifo, {}};
  return c;
}

AccessRecord rec(Nanoseconds t, BlockId block, std::uint32_t stream, std::uint64_t request, std::int32_t token,
                 Phase phase, Nanoseconds compute, AccessOp op = AccessOp::read) {
  AccessRecord r;
  r.time_ns = t;
  r.block_id = block;
  r.bytes = kBlock;
  r.stream_id = stream;
  r.request_id = request;
  r.token_index = token;
  r.phase = phase;
  r.compute_ns = compute;
  r.op = op;
  return r;
}

BlockCatalogEntry entry(BlockId id, const std::string& kind, const std::string& segment = "") {
  BlockCatalogEntry e;
  e.id = id;
  e.bytes = kBlock;
  e.kind = kind;
  e.segment = segment;
  return e;
}

EngineResult run(const std::vector<AccessRecord>& records, const EngineConfig& c, TraceMeta meta = {}) {
  meta.source = "hand";
  MemoryTraceSource trace(meta, records);
  return run_engine(trace, c);
}

TEST(ServingMetrics, TwoRequestsByHand) {
  // Hit 100 ns, miss = 1000 ns transfer + 100 ns. Request 100 on stream 0:
  //   prefill token 0: block 0 at 0 (miss, done 1100), think 1000;
  //                    block 1 at 2100 (miss, done 3200), think 1000
  //   decode token 1:  block 0 at 4200 (hit, 4300), block 1 at 4800 (4900)
  //   decode token 2:  block 0 at 5400 (5500), block 1 at 6000 (6100)
  //   TTFT = 3200, TPOT = (6100 − 3200) / 2 = 1450, end-to-end 6100.
  // Request 200 on stream 1 from 100000, decode only, tokens 5, 6, 7 on
  // block 2: 100000 miss -> 101100, 101300 hit -> 101400, 101600 -> 101700.
  //   TTFT = 1100 (first token = its smallest token), TPOT = 300, e2e 1700.
  std::vector<AccessRecord> r = {
      rec(0, 0, 0, 100, 0, Phase::prefill, 1000),       rec(0, 1, 0, 100, 0, Phase::prefill, 1000),
      rec(0, 0, 0, 100, 1, Phase::decode, 500),         rec(0, 1, 0, 100, 1, Phase::decode, 500),
      rec(0, 0, 0, 100, 2, Phase::decode, 500),         rec(0, 1, 0, 100, 2, Phase::decode, 0),
      rec(100000, 2, 1, 200, 5, Phase::decode, 200),    rec(100000, 2, 1, 200, 6, Phase::decode, 200),
      rec(100000, 2, 1, 200, 7, Phase::decode, 0),
  };
  const EngineResult res = run(r, config(100));
  const ServingMetrics& s = res.metrics.serving;
  ASSERT_EQ(s.requests.size(), 2u);
  const RequestMetrics& a = s.requests[0];
  EXPECT_EQ(a.request_id, 100u);
  EXPECT_EQ(a.arrival_ns, 0);
  EXPECT_EQ(a.ttft_ns(), 3200);
  EXPECT_EQ(a.output_tokens, 3u);
  EXPECT_DOUBLE_EQ(a.tpot_ns(), 1450.0);
  EXPECT_EQ(a.e2e_ns(), 6100);
  EXPECT_EQ(a.input_tokens, 1u);
  EXPECT_EQ(a.accesses, 6u);
  const RequestMetrics& b = s.requests[1];
  EXPECT_EQ(b.request_id, 200u);
  EXPECT_EQ(b.arrival_ns, 100000);
  EXPECT_EQ(b.ttft_ns(), 1100);
  EXPECT_EQ(b.output_tokens, 3u);
  EXPECT_DOUBLE_EQ(b.tpot_ns(), 300.0);
  EXPECT_EQ(b.e2e_ns(), 1700);
  EXPECT_EQ(res.metrics.simulated_ns, 101700);
  EXPECT_EQ(s.output_tokens, 6u);
  EXPECT_DOUBLE_EQ(s.tokens_per_second, 6.0 * 1e9 / 101700.0);
  EXPECT_EQ(s.ttft_p50_ns, 1100);  // nearest rank of {1100, 3200}
  EXPECT_EQ(s.ttft_p99_ns, 3200);
  EXPECT_DOUBLE_EQ(s.ttft_mean_ns, 2150.0);
  EXPECT_DOUBLE_EQ(s.tpot_mean_ns, 875.0);
  EXPECT_EQ(s.e2e_p50_ns, 1700);
  EXPECT_EQ(s.e2e_p90_ns, 6100);
}

TEST(SegmentLocking, CrossAttentionShareGivesTheClosedFormCompletionTimes) {
  // Fair link at 1 B/ns; cross_attention has a 35% minimum share, the
  // decoder (unlisted) the other 65%. Two 1000-B misses at t = 0: the
  // decoder block finishes at 1000/0.65 = 1538.46 -> 1539 ns; the
  // cross-attention block has then received 538.46 B and takes the whole
  // link for the remaining 461.54 B: done at 2000 ns (work conserved).
  TraceMeta meta;
  meta.catalog = {entry(0, "weight", "cross_attention"), entry(1, "weight", "decoder")};
  std::vector<AccessRecord> r = {rec(0, 0, 0, kNoRequest, -1, Phase::unknown, 0),
                                 rec(0, 1, 1, kNoRequest, -1, Phase::unknown, 0)};
  EngineConfig c = config(0, 1'000'000, LinkSharing::fair);
  c.segment_shares = {{"cross_attention", 0.35}};
  const EngineResult res = run(r, c, meta);
  EXPECT_EQ(res.metrics.simulated_ns, 2000);
  EXPECT_EQ(res.metrics.total.stall_ns, 1539 + 2000);
  // Without shares both get half: both end at 2000.
  c.segment_shares.clear();
  EXPECT_EQ(run(r, c, meta).metrics.total.stall_ns, 2000 + 2000);
}

TEST(SegmentLocking, SharesOutsideTheUnitIntervalAreInputErrors) {
  EngineConfig c = config(0);
  c.segment_shares = {{"a", 0.7}, {"b", 0.5}};
  std::vector<AccessRecord> r = {rec(0, 0, 0, kNoRequest, -1, Phase::unknown, 0)};
  EXPECT_THROW(run(r, c), InputError);
  c.segment_shares = {{"a", 0.0}};
  EXPECT_THROW(run(r, c), InputError);
}

TEST(SegmentLocking, AShareForASegmentNoBlockBelongsToIsRefusedNotIgnored) {
  std::vector<AccessRecord> r = {rec(0, 0, 0, kNoRequest, -1, Phase::unknown, 0)};
  EngineConfig c = config(0);
  c.segment_shares = {{"cross_attention", 0.35}};
  const auto error_of = [](auto fn) -> std::string {
    try {
      fn();
    } catch (const InputError& e) {
      return e.what();
    }
    return "did not throw";
  };
  // No catalog (a plain trace): nothing to share between.
  std::string error = error_of([&] { run(r, c); });
  EXPECT_NE(error.find("bandwidth.segment_shares.cross_attention"), std::string::npos) << error;
  EXPECT_NE(error.find("it has no block catalog, so no segments"), std::string::npos) << error;
  // A catalog with other segments: they are named.
  TraceMeta meta;
  meta.catalog = {entry(0, "weight", "vision"), entry(1, "weight", "decoder")};
  error = error_of([&] { run(r, c, meta); });
  EXPECT_NE(error.find("its segments: decoder, vision"), std::string::npos) << error;
  c.segment_shares = {{"vision", 0.35}};
  EXPECT_NO_THROW(run(r, c, meta));
}

TEST(Reservation, RequestsAreGrantedInArrivalOrderWhenTheLinkCanCarryThem) {
  // Link 1 GB/s; need = L_in · 1 · 0.1 GB/s with L_in = 1 + prefill token:
  // A (stream 0) 0.6, B (stream 1) 0.6, C (stream 2) 0.3 GB/s, all at t = 0,
  // one 1000-B access each. A is granted at 0; B does not fit (1.2 > 1) and
  // waits; C would fit beside A but may not overtake B. A ends at 1000 ns:
  // B and C (0.9 <= 1) are granted at 1000, and share the fifo link:
  // B done 2000, C done 3000.
  std::vector<AccessRecord> r = {rec(0, 0, 0, 1, 5, Phase::prefill, 0), rec(0, 1, 1, 2, 5, Phase::prefill, 0),
                                 rec(0, 2, 2, 3, 2, Phase::prefill, 0)};
  EngineConfig c = config(0);
  c.reservation.enabled = true;
  c.reservation.input_coefficient = 1.0;
  c.reservation.output_coefficient = 0.0;
  c.reservation.base_bandwidth = 0.1e9;
  const EngineResult res = run(r, c);
  const auto& q = res.metrics.serving.requests;
  ASSERT_EQ(q.size(), 3u);
  EXPECT_EQ(q[0].admitted_ns, 0);
  EXPECT_EQ(q[1].admitted_ns, 1000);
  EXPECT_EQ(q[2].admitted_ns, 1000);
  EXPECT_EQ(q[1].queue_ns(), 1000);
  EXPECT_EQ(q[0].end_ns, 1000);
  EXPECT_EQ(q[1].end_ns, 2000);
  EXPECT_EQ(q[2].end_ns, 3000);
  EXPECT_EQ(q[1].ttft_ns(), 2000);  // TTFT counts the wait for admission
  EXPECT_EQ(q[0].input_tokens, 6u);
  // Without reservation all three go at once: A 1000, B 2000, C 3000 in
  // link order, each admitted at arrival.
  c.reservation.enabled = false;
  const auto& q2 = run(r, c).metrics.serving.requests;
  EXPECT_EQ(q2[2].admitted_ns, 0);
  EXPECT_EQ(q2[2].end_ns, 3000);
}

TEST(Reservation, ARequestNeedingMoreThanTheLinkRunsAlone) {
  std::vector<AccessRecord> r = {rec(0, 0, 0, 1, 19, Phase::prefill, 0), rec(0, 1, 1, 2, 0, Phase::prefill, 0)};
  EngineConfig c = config(0);
  c.reservation.enabled = true;
  c.reservation.input_coefficient = 1.0;
  c.reservation.base_bandwidth = 0.1e9;  // A needs 2 GB/s of a 1 GB/s link
  const auto& q = run(r, c).metrics.serving.requests;
  EXPECT_EQ(q[0].admitted_ns, 0);
  EXPECT_EQ(q[1].admitted_ns, 1000);
}

// One request: read the weight (block 0) and append one KV page per token
// (pages 10, 11, ...). Capacity 4000 B with the weight pinned leaves room
// for three 1000-B pages. Closed loop, no compute, hit latency 0:
//   weight miss at 0, done 1000; then every access issues at 1000.
std::vector<AccessRecord> kv_growth(int tokens) {
  std::vector<AccessRecord> r;
  for (int k = 0; k < tokens; ++k) {
    r.push_back(rec(0, 0, 0, 7, k, Phase::decode, 0));
    r.push_back(rec(0, 10 + static_cast<BlockId>(k), 0, 7, k, Phase::decode, 0, AccessOp::write));
  }
  return r;
}

TraceMeta kv_meta() {
  TraceMeta meta;
  meta.catalog.push_back(entry(0, "weight"));
  for (BlockId p = 10; p < 16; ++p) meta.catalog.push_back(entry(p, "kv_page"));
  return meta;
}

TEST(KvGrowth, HeldPagesReachTheOutOfMemoryPointAtTheFourthToken) {
  EngineConfig c = config(0, 4000);
  c.cache.pinned.kinds = {"weight"};
  c.kv_resident = true;
  const EngineResult res = run(kv_growth(5), c, kv_meta());
  const OutOfMemoryPoint& oom = res.metrics.out_of_memory;
  ASSERT_TRUE(oom.reached);
  EXPECT_EQ(oom.time_ns, 1000);
  EXPECT_EQ(oom.request_id, 7u);
  EXPECT_EQ(oom.token_index, 3);
  EXPECT_EQ(oom.block_id, 13u);
  EXPECT_EQ(oom.kv_bytes, 3000u);
  EXPECT_EQ(oom.reserved_bytes, 4000u);
  EXPECT_EQ(oom.pinned_bytes, 1000u);
  const AccessCounters& m = res.metrics.total;
  EXPECT_EQ(m.write_allocations, 5u);  // pages 10..14 (13 and 14 written through)
  EXPECT_EQ(m.bypasses, 2u);
  EXPECT_EQ(m.bytes_fetched, 1000u);   // the weight only: appends move nothing H2D
  EXPECT_EQ(res.metrics.occupancy.peak_kv_bytes, 3000u);
  EXPECT_EQ(res.metrics.occupancy.peak_weights_bytes, 1000u);
  EXPECT_EQ(res.metrics.occupancy.peak.total_bytes(), 4000u);
}

TEST(KvGrowth, EvictablePagesAreWrittenBackInsteadOfRunningOutOfMemory) {
  EngineConfig c = config(0, 4000);
  c.cache.pinned.kinds = {"weight"};
  const EngineResult res = run(kv_growth(5), c, kv_meta());
  EXPECT_FALSE(res.metrics.out_of_memory.reached);
  // Pages 13 and 14 each evict the oldest page (10, then 11), both written.
  EXPECT_EQ(res.metrics.total.bytes_written_back, 2000u);
  EXPECT_EQ(res.metrics.total.evictions, 2u);
  EXPECT_EQ(res.metrics.total.write_allocations, 5u);
  EXPECT_EQ(res.metrics.total.bypasses, 0u);
  // The request's pages are freed when it ends: the last sample is the weight alone.
  ASSERT_FALSE(res.metrics.occupancy.samples.empty());
  EXPECT_EQ(res.metrics.occupancy.samples.back().kv_bytes, 0u);
  EXPECT_EQ(res.metrics.occupancy.samples.back().weights_bytes, 1000u);
}

TEST(Occupancy, SampledEveryPeriodSplitByKind) {
  // Weight miss 0..1000, then pages 10, 11 appended at 1000; sampled every
  // 500 ns: at 0 nothing is reserved yet (the sample precedes events at 0),
  // at 500 the in-flight weight, at 1000 still the weight alone.
  EngineConfig c = config(0, 1'000'000);
  c.occupancy_sample_ns = 500;
  const EngineResult res = run(kv_growth(2), c, kv_meta());
  const auto& s = res.metrics.occupancy.samples;
  ASSERT_GE(s.size(), 3u);
  EXPECT_EQ(s[0].time_ns, 0);
  EXPECT_EQ(s[0].total_bytes(), 0u);
  EXPECT_EQ(s[1].time_ns, 500);
  EXPECT_EQ(s[1].weights_bytes, 1000u);
  EXPECT_EQ(s[2].time_ns, 1000);
  EXPECT_EQ(s[2].kv_bytes, 0u);
  EXPECT_EQ(res.metrics.occupancy.peak_kv_bytes, 2000u);
  EXPECT_EQ(res.metrics.occupancy.peak.weights_bytes, 1000u);
  EXPECT_EQ(res.metrics.occupancy.peak.kv_bytes, 2000u);
}

TEST(Pinning, BySegmentPinsSharedParameters) {
  // Capacity for one block; block 0 is in segment "shared" and pinned, so
  // block 1 can never be cached beside it: every access of 1 bypasses,
  // and 0 hits after its first fetch.
  TraceMeta meta;
  meta.catalog = {entry(0, "embedding", "shared"), entry(1, "weight", "decoder")};
  std::vector<AccessRecord> r;
  for (int k = 0; k < 3; ++k) {
    r.push_back(rec(0, 0, 0, kNoRequest, -1, Phase::unknown, 0));
    r.push_back(rec(0, 1, 0, kNoRequest, -1, Phase::unknown, 0));
  }
  EngineConfig c = config(0, 1500);
  c.cache.pinned.segments = {"shared"};
  const EngineResult res = run(r, c, meta);
  EXPECT_EQ(res.pinned_bytes, 1000u);
  EXPECT_EQ(res.metrics.total.hits, 2u);
  EXPECT_EQ(res.metrics.total.bypasses, 3u);
  c.cache.pinned.segments = {"vision"};
  EXPECT_THROW(run(r, c, meta), InputError);
}

}  // namespace
}  // namespace flashsim
