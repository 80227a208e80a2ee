// Trace statistics: a hand-worked trace, the stack-distance tracker against
// brute force (with time compression), and the one-pass LRU miss-ratio
// curves against a simulated LRU list at every capacity, per access and per byte.
#include <algorithm>
#include <list>
#include <unordered_map>
#include <unordered_set>

#include "tests/traces/trace_test_util.h"
#include "traces/stats/stack_distance.h"
#include "traces/stats/stats_report.h"
#include "traces/stats/trace_stats.h"

namespace flashsim {
namespace {

std::vector<AccessRecord> hand_trace() {
  // A(100) B(200) C(50) A B B D(400) A, at t = 0, 10, ..., 70 ns.
  const std::vector<std::pair<BlockId, ByteCount>> seq = {{'A', 100}, {'B', 200}, {'C', 50},  {'A', 100},
                                                          {'B', 200}, {'B', 200}, {'D', 400}, {'A', 100}};
  std::vector<AccessRecord> v;
  for (std::size_t i = 0; i < seq.size(); ++i) {
    AccessRecord r;
    r.time_ns = static_cast<Nanoseconds>(i * 10 + 5);
    r.block_id = seq[i].first;
    r.bytes = seq[i].second;
    r.op = i == 4 ? AccessOp::write : AccessOp::read;
    v.push_back(r);
  }
  return v;
}

TEST(StackDistance, HandWorkedDistances) {
  StackDistanceTracker t;
  const auto trace = hand_trace();
  std::vector<StackDistanceTracker::Result> d;
  for (const auto& r : trace) d.push_back(t.access(r.block_id, r.bytes));
  // Cold: 0 (A), 1 (B), 2 (C), 6 (D).
  for (int i : {0, 1, 2, 6}) EXPECT_TRUE(d[static_cast<std::size_t>(i)].cold) << i;
  // 3: A after {B, C}: reuse 2, bytes 200 + 50 + own 100.
  EXPECT_EQ(d[3].reuse_distance, 2u);
  EXPECT_EQ(d[3].byte_stack_distance, 350u);
  // 4: B after {C, A}: 50 + 100 + 200.
  EXPECT_EQ(d[4].reuse_distance, 2u);
  EXPECT_EQ(d[4].byte_stack_distance, 350u);
  // 5: B again at once.
  EXPECT_EQ(d[5].reuse_distance, 0u);
  EXPECT_EQ(d[5].byte_stack_distance, 200u);
  // 7: A after {B, D}: 200 + 400 + 100.
  EXPECT_EQ(d[7].reuse_distance, 2u);
  EXPECT_EQ(d[7].byte_stack_distance, 700u);
  EXPECT_EQ(t.distinct_blocks(), 4u);
}

TEST(TraceStats, HandWorkedTrace) {
  MemoryTraceSource src({}, hand_trace());
  StatsOptions o;
  o.capacity_blocks = {4, 1, 2, 3, 3};  // unsorted, duplicate: sorted and deduplicated
  o.capacity_bytes = {199, 200, 349, 350, 700};
  const TraceStats s = compute_stats(src, o);
  EXPECT_EQ(s.records, 8u);
  EXPECT_EQ(s.unique_blocks, 4u);
  EXPECT_EQ(s.footprint_bytes, 750u);
  EXPECT_EQ(s.accessed_bytes, 1350u);
  EXPECT_EQ(s.reads, 7u);
  EXPECT_EQ(s.writes, 1u);
  EXPECT_EQ(s.first_time_ns, 5);
  EXPECT_EQ(s.last_time_ns, 75);
  EXPECT_EQ(s.time_span_ns, 70);
  EXPECT_EQ(s.reuse.cold, 4u);
  EXPECT_EQ(s.reuse.buckets, (std::vector<std::uint64_t>{1, 0, 3}));  // 0 | 1 | 2-3

  EXPECT_EQ(s.mrc_blocks.capacities, (std::vector<std::uint64_t>{1, 2, 3, 4}));
  EXPECT_EQ(s.mrc_blocks.misses, (std::vector<std::uint64_t>{7, 7, 4, 4}));
  EXPECT_EQ(s.mrc_blocks.missed_bytes, (std::vector<ByteCount>{1150, 1150, 750, 750}));
  EXPECT_DOUBLE_EQ(s.mrc_blocks.miss_ratio_by_access[0], 7.0 / 8);
  EXPECT_DOUBLE_EQ(s.mrc_blocks.miss_ratio_by_access[2], 0.5);
  EXPECT_DOUBLE_EQ(s.mrc_blocks.miss_ratio_by_byte[2], 750.0 / 1350);

  EXPECT_EQ(s.mrc_bytes.misses, (std::vector<std::uint64_t>{8, 7, 7, 5, 4}));
  EXPECT_EQ(s.mrc_bytes.missed_bytes, (std::vector<ByteCount>{1350, 1150, 1150, 850, 750}));
  EXPECT_DOUBLE_EQ(s.mrc_bytes.miss_ratio_by_access[3], 5.0 / 8);
  EXPECT_DOUBLE_EQ(s.mrc_bytes.miss_ratio_by_byte[3], 850.0 / 1350);
  EXPECT_EQ(ReuseHistogram::label(3), "4-7");
}

TEST(TraceStats, AutoCapacityPoints) {
  MemoryTraceSource src({}, hand_trace());
  StatsOptions o;
  o.auto_points = 3;
  const TraceStats s = compute_stats(src, o);
  EXPECT_EQ(s.mrc_blocks.capacities, (std::vector<std::uint64_t>{2, 3, 4}));       // ⌈i·4/3⌉
  EXPECT_EQ(s.mrc_bytes.capacities, (std::vector<std::uint64_t>{250, 500, 750}));  // i·750/3
  EXPECT_EQ(s.mrc_bytes.misses, (std::vector<std::uint64_t>{7, 5, 4}));
}

TEST(TraceStats, EmptyTrace) {
  MemoryTraceSource src({}, {});
  const TraceStats s = compute_stats(src, {{1, 2}, {10}, 4});
  EXPECT_EQ(s.records, 0u);
  EXPECT_EQ(s.time_span_ns, 0);
  EXPECT_TRUE(s.reuse.buckets.empty());
  EXPECT_EQ(s.mrc_blocks.miss_ratio_by_access, (std::vector<double>{0.0, 0.0}));
}

// Distances by brute force: scan back to the previous access of the block.
TEST(StackDistance, MatchesBruteForceThroughTimeCompression) {
  const auto trace = test::random_trace(6000, 400, 7);
  StackDistanceTracker t(16);  // tiny time axis: compresses and grows many times
  for (std::size_t i = 0; i < trace.size(); ++i) {
    const auto d = t.access(trace[i].block_id, trace[i].bytes);
    std::size_t j = i;
    bool found = false;
    while (j > 0) {
      --j;
      if (trace[j].block_id == trace[i].block_id) {
        found = true;
        break;
      }
    }
    if (!found) {
      ASSERT_TRUE(d.cold) << i;
      continue;
    }
    ASSERT_FALSE(d.cold) << i;
    std::unordered_map<BlockId, ByteCount> between;  // latest size of each distinct block
    for (std::size_t k = j + 1; k < i; ++k) between[trace[k].block_id] = trace[k].bytes;
    ByteCount bytes = trace[i].bytes;
    for (const auto& [b, size] : between) bytes += size;
    ASSERT_EQ(d.reuse_distance, between.size()) << i;
    ASSERT_EQ(d.byte_stack_distance, bytes) << i;
  }
}

// An LRU list simulated access by access. Byte capacity: a miss inserts at
// the front, then least-recent blocks are evicted until the total fits (the
// new block too, if it alone exceeds the capacity).
struct LruSim {
  std::uint64_t capacity;
  bool by_bytes;
  std::list<std::pair<BlockId, ByteCount>> order;  // front = most recent
  std::unordered_map<BlockId, std::list<std::pair<BlockId, ByteCount>>::iterator> where;
  ByteCount used = 0;
  std::uint64_t misses = 0;
  ByteCount missed_bytes = 0;

  void access(BlockId b, ByteCount bytes) {
    auto it = where.find(b);
    if (it != where.end()) {
      order.splice(order.begin(), order, it->second);
      return;
    }
    ++misses;
    missed_bytes += bytes;
    order.emplace_front(b, bytes);
    where[b] = order.begin();
    used += by_bytes ? bytes : 1;
    while (used > capacity) {
      const auto& victim = order.back();
      used -= by_bytes ? victim.second : 1;
      where.erase(victim.first);
      order.pop_back();
    }
  }
};

TEST(TraceStats, OnePassCurvesEqualSimulatedLruAtEverySize) {
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const auto trace = test::random_trace(8000, 250, seed, seed == 3 ? 1 : 5000);  // seed 3: uniform sizes
    std::unordered_map<BlockId, ByteCount> sizes;
    for (const auto& r : trace) sizes[r.block_id] = r.bytes;
    ByteCount footprint = 0;
    for (const auto& [b, s] : sizes) footprint += s;
    StatsOptions o;
    for (std::uint64_t c = 0; c <= sizes.size() + 2; ++c) o.capacity_blocks.push_back(c);
    for (std::uint64_t k = 0; k <= 60; ++k) o.capacity_bytes.push_back(footprint * k / 50);
    o.capacity_bytes.push_back(4999);  // below the largest block
    MemoryTraceSource src({}, trace);
    const TraceStats s = compute_stats(src, o);
    for (std::size_t k = 0; k < s.mrc_blocks.capacities.size(); ++k) {
      LruSim sim{s.mrc_blocks.capacities[k], false, {}, {}, 0, 0, 0};
      for (const auto& r : trace) sim.access(r.block_id, r.bytes);
      ASSERT_EQ(s.mrc_blocks.misses[k], sim.misses) << "capacity " << sim.capacity << " blocks";
      ASSERT_EQ(s.mrc_blocks.missed_bytes[k], sim.missed_bytes) << "capacity " << sim.capacity << " blocks";
    }
    for (std::size_t k = 0; k < s.mrc_bytes.capacities.size(); ++k) {
      LruSim sim{s.mrc_bytes.capacities[k], true, {}, {}, 0, 0, 0};
      for (const auto& r : trace) sim.access(r.block_id, r.bytes);
      ASSERT_EQ(s.mrc_bytes.misses[k], sim.misses) << "capacity " << sim.capacity << " bytes";
      ASSERT_EQ(s.mrc_bytes.missed_bytes[k], sim.missed_bytes) << "capacity " << sim.capacity << " bytes";
    }
    // Miss ratio never rises with capacity, and reaches the cold fraction.
    for (std::size_t k = 1; k < s.mrc_blocks.misses.size(); ++k) {
      EXPECT_LE(s.mrc_blocks.misses[k], s.mrc_blocks.misses[k - 1]);
    }
    EXPECT_EQ(s.mrc_blocks.misses.back(), sizes.size());
    EXPECT_EQ(s.mrc_bytes.misses.back(), sizes.size());
    if (seed == 3) {
      // All blocks 1 byte: capacity in bytes and in blocks mean the same.
      MemoryTraceSource again({}, trace);
      const TraceStats u = compute_stats(again, {o.capacity_blocks, o.capacity_blocks, 0});
      EXPECT_EQ(u.mrc_blocks.misses, u.mrc_bytes.misses);
      EXPECT_EQ(u.mrc_blocks.missed_bytes, u.mrc_bytes.missed_bytes);
    }
  }
}

TEST(TraceStats, ReportsNameTheirUnits) {
  MemoryTraceSource src({}, hand_trace());
  const TraceStats s = compute_stats(src, {{1, 3}, {350}, 0});
  const std::string text = format_stats_text(s);
  for (const char* part : {"records          8", "unique blocks    4", "footprint        750 B", "time span        70 ns",
                           "cold (first access)", "2-3", "capacity in blocks", "capacity in bytes",
                           "miss_ratio_by_access", "miss_ratio_by_byte"}) {
    EXPECT_NE(text.find(part), std::string::npos) << part << "\n" << text;
  }
  const std::string json = format_stats_json(s, -1);
  for (const char* part : {"\"records\":8", "\"footprint_bytes\":750", "\"capacity_unit\":\"blocks\"",
                           "\"capacity_unit\":\"bytes\"", "\"capacity\":350,\"misses\":5,\"missed_bytes\":850"}) {
    EXPECT_NE(json.find(part), std::string::npos) << part << "\n" << json;
  }
}

}  // namespace
}  // namespace flashsim
