// Two implementations of the same replay must agree: the event engine
// (FastTier, links, time) and the cache-only path (its own tight loop). With
// one stream in closed loop no access finds its block in flight, so hits,
// evictions, bypasses and bytes must be equal for every policy, on random
// traces with variable block sizes.
#include <gtest/gtest.h>

#include <random>

#include "sim/core/errors.h"
#include "sim/engine/engine.h"
#include "sim/policy/i_eviction_policy.h"

namespace flashsim {
namespace {

MemoryTraceSource random_trace(unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> block(0, 59);
  std::vector<ByteCount> size(60);
  for (auto& s : size) s = 256 * (1 + rng() % 16);  // 256 B .. 4 KiB
  std::vector<AccessRecord> records(3000);
  Nanoseconds t = 0;
  for (auto& r : records) {
    // Skewed: half the accesses go to the first 10 blocks.
    const int b = (rng() % 2) ? block(rng) % 10 : block(rng);
    r.block_id = static_cast<BlockId>(b);
    r.bytes = size[static_cast<std::size_t>(b)];
    r.time_ns = (t += 100 + static_cast<Nanoseconds>(rng() % 1000));
  }
  // A catalog naming layers and experts, so that the model-aware policies
  // run here too: block k is expert k % 4 of layer k / 4.
  TraceMeta meta;
  for (BlockId k = 0; k < 60; ++k) {
    BlockCatalogEntry e;
    e.id = k;
    e.bytes = size[k];
    e.layer = static_cast<std::int32_t>(k / 4);
    e.kind = "expert";
    e.name = "layers." + std::to_string(k / 4) + ".experts." + std::to_string(k % 4) + ".w";
    meta.catalog.push_back(e);
  }
  return MemoryTraceSource(meta, std::move(records));
}

HardwareProfile two_tiers() {
  HardwareProfile hw;
  hw.tiers.resize(2);
  hw.tiers[0].name = "hbm";
  hw.tiers[0].hit_latency_ns = 300;
  hw.tiers[1].name = "host";
  hw.tiers[1].link_to_faster.latency_ns = 4500;
  hw.tiers[1].link_to_faster.bandwidth = 55e9;
  hw.miss_penalty_ns = 142;
  return hw;
}

TEST(EngineVsCacheOnly, SameDecisionsForEveryPolicy) {
  for (const auto* entry : PolicyRegistry::instance().entries()) {
    for (unsigned seed : {1u, 2u, 3u}) {
      for (ByteCount capacity : {4096u, 16384u, 65536u}) {
        SCOPED_TRACE(entry->name + " seed " + std::to_string(seed) + " capacity " + std::to_string(capacity));
        MemoryTraceSource trace = random_trace(seed);
        CacheConfig cache;
        cache.capacity_bytes = capacity;
        cache.eviction.impl = entry->name;
        const RunMetrics only = run_cache_only(trace, cache);
        trace.rewind();
        EngineConfig config;
        config.hardware = two_tiers();
        config.cache = cache;
        const EngineResult full = run_engine(trace, config);
        const AccessCounters& a = only.total;
        const AccessCounters& b = full.metrics.total;
        EXPECT_EQ(b.accesses, a.accesses);
        EXPECT_EQ(b.hits, a.hits);
        EXPECT_EQ(b.delayed_hits, 0u);
        EXPECT_EQ(b.misses, a.misses);
        EXPECT_EQ(b.bypasses, a.bypasses);
        EXPECT_EQ(b.bytes_hit, a.bytes_hit);
        EXPECT_EQ(b.bytes_fetched, a.bytes_fetched);
        EXPECT_EQ(b.evictions, a.evictions);
        EXPECT_EQ(b.bytes_evicted, a.bytes_evicted);
        EXPECT_GT(a.hits, 0u);  // the trace has reuse at every capacity
      }
    }
  }
}

}  // namespace
}  // namespace flashsim

namespace flashsim {
namespace {

TEST(EngineWindows, TooManyWindowsIsAnInputErrorNotARunawayAllocation) {
  // Two accesses 2 ms apart in open loop with 1 ns windows: 2,000,000 windows.
  std::vector<AccessRecord> records(2);
  records[0].block_id = 1;
  records[0].bytes = 64;
  records[1] = records[0];
  records[1].time_ns = 2'000'000;
  MemoryTraceSource trace(TraceMeta{}, records);
  EngineConfig config;
  config.hardware = two_tiers();
  config.cache.capacity_bytes = 1024;
  config.issue = IssueMode::timestamp;
  config.window_ns = 1;
  try {
    run_engine(trace, config);
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("outputs.window"), std::string::npos) << e.what();
  }
  trace.rewind();
  config.window_ns = 1'000;  // 2,001 windows: fine
  EXPECT_EQ(run_engine(trace, config).metrics.windows.size(), 2001u);
}

}  // namespace
}  // namespace flashsim

namespace flashsim {
namespace {

TEST(Pinning, ALayerOrKindThatPinsNothingIsAnError) {
  TraceMeta meta;
  meta.source = "t";
  meta.catalog = {{1, "w", 64, kNoAddress, kNoAddress, 0, "weight"}, {2, "e", 64, kNoAddress, kNoAddress, -1, "embedding"}};
  std::vector<AccessRecord> records(1);
  records[0].block_id = 1;
  records[0].bytes = 64;
  MemoryTraceSource trace(meta, records);
  CacheConfig cache;
  cache.capacity_bytes = 1024;
  cache.pinned.kinds = {"wieght"};
  try {
    run_cache_only(trace, cache);
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("kinds there: 'weight', 'embedding'"), std::string::npos) << e.what();
  }
  cache.pinned.kinds = {"embedding"};
  cache.pinned.layers = {7};
  trace.rewind();
  EXPECT_THROW(run_cache_only(trace, cache), InputError);
  cache.pinned.layers = {0};
  trace.rewind();
  EXPECT_EQ(run_cache_only(trace, cache).total.accesses, 1u);
}

}  // namespace
}  // namespace flashsim
