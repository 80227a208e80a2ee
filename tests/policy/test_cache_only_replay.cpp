// run_cache_only (sim/cache/cache_only_replay.cpp): same counters as driving
// each policy by hand; variable sizes, bypass, size changes, pinning by id,
// layer and kind; errors.
#include <gtest/gtest.h>

#include "sim/core/errors.h"
#include "tests/policy/policy_test_util.h"

namespace flashsim::test {
namespace {

void expect_same_counters(const AccessCounters& a, const AccessCounters& b, const std::string& what) {
  EXPECT_EQ(a.accesses, b.accesses) << what;
  EXPECT_EQ(a.hits, b.hits) << what;
  EXPECT_EQ(a.misses, b.misses) << what;
  EXPECT_EQ(a.bypasses, b.bypasses) << what;
  EXPECT_EQ(a.bytes_accessed, b.bytes_accessed) << what;
  EXPECT_EQ(a.bytes_hit, b.bytes_hit) << what;
  EXPECT_EQ(a.bytes_fetched, b.bytes_fetched) << what;
  EXPECT_EQ(a.evictions, b.evictions) << what;
  EXPECT_EQ(a.bytes_evicted, b.bytes_evicted) << what;
}

// Every policy, variable sizes up to 60 bytes with capacity 50 (so some
// blocks bypass): run_cache_only == the hand driver of policy_test_util.h.
// Blocks are numbered in order of first appearance, as run_cache_only does.
TEST(CacheOnlyReplay, SameCountersAsDrivingByHand) {
  for (const std::string& name : all_policy_names()) {
    for (std::uint32_t seed = 1; seed <= 3; ++seed) {
      const std::vector<Step> steps = first_appearance_order(random_steps(seed, 5000, 150, 60));
      for (ByteCount capacity : {50u, 400u}) {
        const HandRun hand = drive(name, capacity, steps);
        MemoryTraceSource trace = as_model_trace(steps);
        const RunMetrics m = run_cache_only(trace, cache_config(name, capacity));
        expect_same_counters(m.total, hand.counters, name + " capacity " + std::to_string(capacity));
        EXPECT_TRUE(m.windows.empty());
        EXPECT_EQ(m.simulated_ns, 0);
        EXPECT_EQ(m.latency.count(), 0u);
      }
    }
  }
}

// Capacity 10 bytes: A(3) B(3) C(3) then D(8): three evictions until it fits.
TEST(CacheOnlyReplay, EvictsUntilTheBlockFits) {
  const std::vector<Step> steps = {{0, 3, 0}, {1, 3, 1}, {2, 3, 2}, {3, 8, 3}};
  MemoryTraceSource trace = as_trace(steps);
  const RunMetrics m = run_cache_only(trace, cache_config("lru", 10));
  EXPECT_EQ(m.total.misses, 4u);
  EXPECT_EQ(m.total.evictions, 3u);
  EXPECT_EQ(m.total.bytes_evicted, 9u);
  EXPECT_EQ(m.total.bytes_fetched, 17u);
}

// A block larger than the capacity is a bypass: served, counted in
// bytes_fetched, not cached (its next access misses again), nothing evicted.
TEST(CacheOnlyReplay, OversizedBlockBypasses) {
  const std::vector<Step> steps = {{0, 4, 0}, {1, 11, 1}, {1, 11, 2}, {0, 4, 3}};
  MemoryTraceSource trace = as_trace(steps);
  const RunMetrics m = run_cache_only(trace, cache_config("lru", 10));
  EXPECT_EQ(m.total.hits, 1u);
  EXPECT_EQ(m.total.misses, 3u);
  EXPECT_EQ(m.total.bypasses, 2u);
  EXPECT_EQ(m.total.evictions, 0u);
  EXPECT_EQ(m.total.bytes_fetched, 26u);
  EXPECT_EQ(m.total.bytes_hit, 4u);
  EXPECT_DOUBLE_EQ(m.total.hit_ratio_by_byte(), 4.0 / 30.0);
}

// A resident block accessed with another size: the old copy is dropped
// (not an eviction) and the access is a miss of the new size.
TEST(CacheOnlyReplay, SizeChangeIsAMiss) {
  const std::vector<Step> steps = {{0, 2, 0}, {0, 3, 1}, {0, 3, 2}};
  MemoryTraceSource trace = as_trace(steps);
  const RunMetrics m = run_cache_only(trace, cache_config("lru", 10));
  EXPECT_EQ(m.total.misses, 2u);
  EXPECT_EQ(m.total.hits, 1u);
  EXPECT_EQ(m.total.evictions, 0u);
  EXPECT_EQ(m.total.bytes_fetched, 5u);
}

// Capacity 3, LRU, P (block 15) pinned: P A B C D P.
//   pinned:   P M, A M, B M (full), C M evicts A, D M evicts B, P H
//   unpinned: C evicts P, D evicts A, P misses (evicts B)
TEST(CacheOnlyReplay, PinnedBlockIsNeverEvicted) {
  const std::vector<Step> steps = {{15, 1, 0}, {0, 1, 1}, {1, 1, 2}, {2, 1, 3}, {3, 1, 4}, {15, 1, 5}};
  CacheConfig pinned = cache_config("lru", 3);
  pinned.pinned.blocks = {15};
  MemoryTraceSource t1 = as_trace(steps);
  const RunMetrics with = run_cache_only(t1, pinned);
  EXPECT_EQ(with.total.hits, 1u);
  EXPECT_EQ(with.total.evictions, 2u);
  MemoryTraceSource t2 = as_trace(steps);
  const RunMetrics without = run_cache_only(t2, cache_config("lru", 3));
  EXPECT_EQ(without.total.hits, 0u);
  EXPECT_EQ(without.total.evictions, 3u);
}

MemoryTraceSource trace_with_catalog(const std::vector<Step>& steps) {
  std::vector<AccessRecord> records;
  for (const Step& s : steps) {
    AccessRecord r;
    r.time_ns = s.now_ns;
    r.block_id = s.block;
    r.bytes = s.bytes;
    records.push_back(r);
  }
  TraceMeta meta;
  meta.source = "catalog test";
  for (BlockId id = 0; id < 10; ++id) {
    BlockCatalogEntry e;
    e.id = id;
    e.bytes = 1;
    e.layer = static_cast<std::int32_t>(id);
    e.kind = (id == 8) ? "embedding" : "weight";
    meta.catalog.push_back(e);
  }
  return MemoryTraceSource(meta, std::move(records));
}

// Pinning by layer (block 7 is layer 7) and by kind (block 8 is the
// embedding) through the catalog. Capacity 4, FIFO: 7 8 0 1 2 3 7 8.
//   7 M 8 M (pinned, 2 bytes), 0 M 1 M (full), 2 M evicts 0, 3 M evicts 1, 7 H 8 H
TEST(CacheOnlyReplay, PinByLayerAndKindThroughCatalog) {
  const std::vector<Step> steps = {{7, 1, 0}, {8, 1, 1}, {0, 1, 2}, {1, 1, 3},
                                   {2, 1, 4}, {3, 1, 5}, {7, 1, 6}, {8, 1, 7}};
  CacheConfig config = cache_config("fifo", 4);
  config.pinned.layers = {7};
  config.pinned.kinds = {"embedding"};
  MemoryTraceSource trace = trace_with_catalog(steps);
  const RunMetrics m = run_cache_only(trace, config);
  EXPECT_EQ(m.total.hits, 2u);
  EXPECT_EQ(m.total.evictions, 2u);
}

TEST(CacheOnlyReplay, PinningErrors) {
  const std::vector<Step> steps = {{0, 1, 0}};
  CacheConfig by_layer = cache_config("lru", 4);
  by_layer.pinned.layers = {1};
  MemoryTraceSource no_catalog = as_trace(steps);
  EXPECT_THROW(run_cache_only(no_catalog, by_layer), InputError);

  CacheConfig too_much = cache_config("lru", 2);
  too_much.pinned.kinds = {"weight"};  // 9 blocks of 1 byte
  MemoryTraceSource with_catalog = trace_with_catalog(steps);
  EXPECT_THROW(run_cache_only(with_catalog, too_much), InputError);
}

TEST(CacheOnlyReplay, ConfigurationAndRecordErrors) {
  const std::vector<Step> steps = {{0, 1, 0}, {1, 1, 1}, {2, 0, 2}};
  MemoryTraceSource t1 = as_trace(steps);
  EXPECT_THROW(run_cache_only(t1, cache_config("lru", 0)), InputError);
  MemoryTraceSource t2 = as_trace(steps);
  EXPECT_THROW(run_cache_only(t2, cache_config("no-such-policy", 10)), UnknownNameError);
  MemoryTraceSource t3 = as_trace(steps);
  try {
    run_cache_only(t3, cache_config("lru", 10));
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("record 2"), std::string::npos) << e.what();
  }
}

// The trace source is rewound: a second run over the same source gives the
// same result (Belady reads it twice: next use, then replay).
TEST(CacheOnlyReplay, RewindsTheSource) {
  const std::vector<Step> steps = first_appearance_order(random_steps(3, 2000, 100));
  MemoryTraceSource trace = as_trace(steps);
  const RunMetrics a = run_cache_only(trace, cache_config("belady", 20));
  const RunMetrics b = run_cache_only(trace, cache_config("belady", 20));
  expect_same_counters(a.total, b.total, "second run");
  EXPECT_EQ(a.total.misses, drive("belady", 20, steps).counters.misses);
}

}  // namespace
}  // namespace flashsim::test
