// Two implementations of LRU must agree: the simulated policy (run_cache_only
// with `lru`) and the one-pass stack-distance miss-ratio curve
// (traces/stats). At every capacity, by access and by byte, with variable
// block sizes (each block keeps its size), including blocks larger than
// some capacities (a bypass in the simulator, a miss in the curve).
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "sim/engine/engine.h"
#include "traces/stats/trace_stats.h"

namespace flashsim {
namespace {

MemoryTraceSource random_trace(unsigned seed, bool unit_sizes) {
  std::mt19937_64 rng(seed);
  std::vector<ByteCount> size(200);
  for (auto& s : size) s = unit_sizes ? 1 : 1 + rng() % 5000;
  std::vector<AccessRecord> records(5000);
  std::geometric_distribution<int> skew(0.02);
  for (std::size_t i = 0; i < records.size(); ++i) {
    const auto b = static_cast<std::size_t>(skew(rng)) % size.size();
    records[i].time_ns = static_cast<Nanoseconds>(i);
    records[i].block_id = b;
    records[i].bytes = size[b];
  }
  return MemoryTraceSource(TraceMeta{}, std::move(records));
}

TEST(LruVsStackDistance, SameMissesAtEveryByteCapacity) {
  for (unsigned seed : {1u, 2u, 3u, 4u}) {
    MemoryTraceSource trace = random_trace(seed, false);
    StatsOptions options;
    for (ByteCount c = 1000; c <= 400'000; c += 7'919) options.capacity_bytes.push_back(c);
    ByteCount largest = 0;
    for (const AccessRecord& r : trace.records()) largest = std::max(largest, r.bytes);
    const TraceStats stats = compute_stats(trace, options);
    const MissRatioCurve& curve = stats.mrc_bytes;
    ASSERT_EQ(curve.capacities.size(), options.capacity_bytes.size());
    for (std::size_t i = 0; i < curve.capacities.size(); ++i) {
      trace.rewind();
      CacheConfig cache;
      cache.capacity_bytes = curve.capacities[i];
      const RunMetrics m = run_cache_only(trace, cache);
      if (curve.capacities[i] < largest) {
        EXPECT_GT(m.total.bypasses, 0u);
        EXPECT_LE(m.total.misses, curve.misses[i]) << "seed " << seed << " capacity " << curve.capacities[i];
        continue;
      }
      ASSERT_EQ(m.total.misses, curve.misses[i]) << "seed " << seed << " capacity " << curve.capacities[i];
      ASSERT_EQ(m.total.bytes_accessed - m.total.bytes_hit, curve.missed_bytes[i]);
      EXPECT_NEAR(m.total.miss_ratio_by_access(), curve.miss_ratio_by_access[i], 1e-12);
    }
  }
}

TEST(LruVsStackDistance, UnitSizesMatchTheBlockCurve) {
  MemoryTraceSource trace = random_trace(9, true);
  StatsOptions options;
  for (std::uint64_t c = 1; c <= 200; c += 3) options.capacity_blocks.push_back(c);
  const TraceStats stats = compute_stats(trace, options);
  for (std::size_t i = 0; i < stats.mrc_blocks.capacities.size(); ++i) {
    trace.rewind();
    CacheConfig cache;
    cache.capacity_bytes = stats.mrc_blocks.capacities[i];  // 1 B per block
    ASSERT_EQ(run_cache_only(trace, cache).total.misses, stats.mrc_blocks.misses[i]) << stats.mrc_blocks.capacities[i];
  }
}

}  // namespace
}  // namespace flashsim
