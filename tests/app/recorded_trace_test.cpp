// The recorded H200 offload trace (../shared/traces/torch-offload-h200) as a
// finding users should see: it is a cyclic scan, 8 forward passes over the
// same 201 weight blocks (footprint F = 2,200,096,768 B, the model's bf16
// bytes), so
//  * LRU at any capacity C < F never hits: every block's reuse distance is
//    the whole model (by access and by byte: exactly 0);
//  * no policy can beat a closed-form bound. All blocks hit in pass p were
//    resident continuously since their access in pass p-1, and every such
//    interval contains the boundary between the two passes, so they were
//    all resident together: per pass after the first, hit bytes <= C and
//    hit count <= k(C), the most blocks that fit in C (smallest first).
//    Hence hit ratio by byte <= 7/8 * C/F and by access <= 7 * k(C) / 1608;
//  * Belady/OPT reaches the byte bound to within a point: it keeps about
//    the cached fraction after the cold first pass.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "sim/diagnose/registered_policies.h"
#include "sim/engine/engine.h"
#ifdef FLASHSIM_HAVE_LEMON
#include "sim/bound/optimal_bound.h"
#endif
#include "sim/scenario/hardware_loader.h"
#include "tests/support/shared_data.h"
#include "traces/trace_formats.h"

namespace flashsim {
namespace {

constexpr ByteCount kFootprint = 2'200'096'768;
constexpr std::uint64_t kAccesses = 1608;  // 8 passes x 201 weight blocks
constexpr std::uint64_t kPasses = 8;

// Block sizes of one pass (traces/README.md): embedding and LM head, and per
// layer 3 MLP, 2 attention q/o, 2 k/v and 2 norm tensors, plus the final norm.
std::vector<ByteCount> pass_block_sizes() {
  std::vector<ByteCount> sizes(2, 131'072'000);
  for (int layer = 0; layer < 22; ++layer) {
    sizes.insert(sizes.end(), {23'068'672, 23'068'672, 23'068'672, 8'388'608, 8'388'608, 1'048'576, 1'048'576,
                               4'096, 4'096});
  }
  sizes.push_back(4'096);
  return sizes;
}

std::uint64_t most_blocks_fitting(ByteCount capacity) {
  auto sizes = pass_block_sizes();
  std::sort(sizes.begin(), sizes.end());
  std::uint64_t k = 0;
  ByteCount used = 0;
  for (ByteCount s : sizes) {
    if (used + s > capacity) break;
    used += s;
    ++k;
  }
  return k;
}

TEST(RecordedH200Trace, PassShapeMatchesTheModel) {
  const auto sizes = pass_block_sizes();
  EXPECT_EQ(sizes.size(), kAccesses / kPasses);
  ByteCount total = 0;
  for (ByteCount s : sizes) total += s;
  EXPECT_EQ(total, kFootprint);
}

TEST(RecordedH200Trace, ClosedFormsHoldForEveryPolicyAndBothEngines) {
  FLASHSIM_REQUIRE_SHARED(path, "traces/torch-offload-h200/llama-2048x22.trace.json.gz");
  auto trace = open_trace(path, "kineto");
  EngineConfig engine;
  engine.hardware = load_hardware_profile("h200");
  for (const double fraction : {0.25, 0.5, 0.75}) {
    const auto capacity = static_cast<ByteCount>(fraction * static_cast<double>(kFootprint));
    const double byte_bound = double(kPasses - 1) / double(kPasses) * double(capacity) / double(kFootprint);
    const double access_bound = double((kPasses - 1) * most_blocks_fitting(capacity)) / double(kAccesses);
    // Every registered policy that runs on this trace (the expert cache and
    // resident_first need experts and layers a Kineto import has not).
    for (const std::string& name : diagnose::registered_policy_names(&trace->meta())) {
      const char* policy = name.c_str();
      SCOPED_TRACE(std::string(policy) + " at " + std::to_string(fraction));
      CacheConfig cache;
      cache.capacity_bytes = capacity;
      cache.eviction.impl = policy;
      trace->rewind();
      const RunMetrics only = run_cache_only(*trace, cache);
      EXPECT_EQ(only.total.accesses, kAccesses);
      EXPECT_EQ(only.total.bytes_accessed, kPasses * kFootprint);
      EXPECT_LE(only.total.hit_ratio_by_byte(), byte_bound + 1e-12);
      EXPECT_LE(only.total.hit_ratio_by_access(), access_bound + 1e-12);
      if (std::string(policy) == "lru") {
        EXPECT_EQ(only.total.hits, 0u);
        EXPECT_EQ(only.total.bytes_hit, 0u);
        EXPECT_EQ(only.total.bytes_fetched, kPasses * kFootprint);
      }
      if (std::string(policy) == "belady") {
        EXPECT_NEAR(only.total.hit_ratio_by_byte(), byte_bound, 0.01);
      }
      // The event engine makes the same decisions: one stream, closed loop,
      // policies see trace time under both engines.
      trace->rewind();
      engine.cache = cache;
      const EngineResult full = run_engine(*trace, engine);
      EXPECT_EQ(full.metrics.total.hits, only.total.hits);
      EXPECT_EQ(full.metrics.total.bytes_hit, only.total.bytes_hit);
      EXPECT_EQ(full.metrics.total.evictions, only.total.evictions);
      EXPECT_EQ(full.metrics.total.delayed_hits, 0u);
    }
  }
}

#ifdef FLASHSIM_HAVE_LEMON
// The flow bound (FOO, `flashsim trace bound`) finds the closed form by
// itself: its upper bound by byte is 7/8 · C/F at every capacity (to the
// byte of C's rounding), its schedule never exceeds the access closed form, and
// Belady with forced admission falls far below it at small tiers (0% at 8%)
// while belady_bypass reaches the lower bound.
TEST(RecordedH200Trace, FlowBoundEqualsTheClosedFormAndBeladyIsNoBound) {
  auto trace = open_trace(std::string(FLASHSIM_SOURCE_DIR) + "/scenarios/data/llama-2048x22.csv");
  const std::vector<AccessRecord> records = read_all_records(*trace);
  ASSERT_EQ(records.size(), kAccesses);
  std::vector<ByteCount> capacities;
  for (const double f : {0.05, 0.08, 0.25, 0.5, 0.75}) capacities.push_back(static_cast<ByteCount>(f * double(kFootprint)));
  const std::vector<HitBound> bounds = optimal_hit_bounds(records, capacities);
  for (std::size_t i = 0; i < bounds.size(); ++i) {
    const ByteCount capacity = capacities[i];
    SCOPED_TRACE(capacity);
    const double byte_bound = double(kPasses - 1) / double(kPasses) * double(capacity) / double(kFootprint);
    const double access_bound = double((kPasses - 1) * most_blocks_fitting(capacity)) / double(kAccesses);
    EXPECT_EQ(bounds[i].method, "FOO");
    EXPECT_NEAR(bounds[i].hit_ratio_by_byte_upper, byte_bound, 1e-9);
    // By access the closed form is integral and the flow's upper bound fractional (it may keep part of a
    // block), so only the flow's integral schedule must stay under it.
    EXPECT_LE(bounds[i].hit_ratio_by_access_lower, access_bound + 1e-12);
    // No policy above the upper bound, by byte or by access.
    for (const std::string& name : diagnose::registered_policy_names(&trace->meta())) {
      const char* policy = name.c_str();
      CacheConfig cache;
      cache.capacity_bytes = capacity;
      cache.eviction.impl = policy;
      trace->rewind();
      const RunMetrics m = run_cache_only(*trace, cache);
      EXPECT_LE(m.total.hit_ratio_by_byte(), bounds[i].hit_ratio_by_byte_upper + 1e-12) << policy;
      EXPECT_LE(m.total.hit_ratio_by_access(), bounds[i].hit_ratio_by_access_upper + 1e-12) << policy;
      if (std::string(policy) == "belady_bypass") {
        EXPECT_GE(m.total.hit_ratio_by_byte(), bounds[i].hit_ratio_by_byte_lower - 1e-12);
      }
      if (std::string(policy) == "belady" && i == 1) {
        EXPECT_EQ(m.total.bytes_hit, 0u);  // 8%: flushes everything
      }
    }
  }
}
#endif

}  // namespace
}  // namespace flashsim
