// Bounds on the optimal hit ratio (sim/bound/optimal_bound.h): hand-worked
// flows, the uniform-size case where FOO's bounds meet Belady with bypassing
// exactly, and the property that no registered policy ever hits more than the
// upper bound on random variable-size traces (run through run_cache_only,
// the simulator's own path). PFOO-L and the segmented lower bound bracket FOO.
#ifdef FLASHSIM_HAVE_LEMON
#include <gtest/gtest.h>

#include "sim/bound/optimal_bound.h"
#include "sim/cache/cache_only.h"
#include "sim/core/errors.h"
#include "tests/policy/policy_test_util.h"

namespace flashsim::test {
namespace {

std::vector<AccessRecord> records_of(const std::vector<Step>& steps) {
  MemoryTraceSource t = as_trace(steps);
  return read_all_records(t);
}

HitBound bound(const std::vector<Step>& steps, ByteCount capacity, BoundOptions o = {}) {
  return optimal_hit_bounds(records_of(steps), {capacity}, o).front();
}

TEST(OptimalBound, OneReuseThatFitsIsAHit) {
  // A B A, 100 B each, 100 B tier: A's interval fits (B is compulsory, never reused).
  const HitBound b = bound({{0, 100}, {1, 100}, {0, 100}}, 100);
  EXPECT_EQ(b.method, "FOO");
  EXPECT_EQ(b.intervals, 1u);
  EXPECT_DOUBLE_EQ(b.hit_ratio_by_access_upper, 1.0 / 3);
  EXPECT_DOUBLE_EQ(b.hit_ratio_by_access_lower, 1.0 / 3);
  EXPECT_DOUBLE_EQ(b.hit_ratio_by_byte_upper, 100.0 / 300);
  EXPECT_DOUBLE_EQ(b.hit_ratio_by_byte_lower, 100.0 / 300);
}

TEST(OptimalBound, TwoOverlappingIntervalsShareTheTierFractionally) {
  // A B A B, 60 B each, 100 B tier: between accesses 1 and 2 both intervals
  // are open (120 B): 20 B must bypass. LP: 2 - 20/60 = 5/3 hits of 4; an
  // integral schedule keeps one of them: 1 hit.
  const HitBound b = bound({{0, 60}, {1, 60}, {0, 60}, {1, 60}}, 100);
  EXPECT_NEAR(b.hit_ratio_by_access_upper, (5.0 / 3) / 4, 1e-12);
  EXPECT_DOUBLE_EQ(b.hit_ratio_by_access_lower, 0.25);
  EXPECT_NEAR(b.hit_ratio_by_byte_upper, 100.0 / 240, 1e-12);
  EXPECT_DOUBLE_EQ(b.hit_ratio_by_byte_lower, 60.0 / 240);
}

TEST(OptimalBound, ByAccessPrefersManySmallBlocksByBytePrefersTheBigOne) {
  // Big (100 B) and two small (50 B) blocks, each reused once, all open at
  // once; 100 B tier: by access keep the two small (2 hits), by byte either
  // choice keeps 100 B.
  const std::vector<Step> s = {{0, 100}, {1, 50}, {2, 50}, {0, 100}, {1, 50}, {2, 50}};
  const HitBound b = bound(s, 100);
  EXPECT_NEAR(b.hit_ratio_by_access_upper, 2.0 / 6, 1e-12);
  EXPECT_DOUBLE_EQ(b.hit_ratio_by_access_lower, 2.0 / 6);
  EXPECT_NEAR(b.hit_ratio_by_byte_upper, 100.0 / 400, 1e-12);
  EXPECT_DOUBLE_EQ(b.hit_ratio_by_byte_lower, 100.0 / 400);
}

TEST(OptimalBound, ASizeChangeIsACompulsoryMissAndBadInputIsNamed) {
  const HitBound b = bound({{0, 100}, {0, 200}, {0, 200}}, 1000);
  EXPECT_EQ(b.intervals, 1u);  // only 200 -> 200
  EXPECT_DOUBLE_EQ(b.hit_ratio_by_access_upper, 1.0 / 3);
  EXPECT_THROW(optimal_hit_bounds({}, {100}), InputError);
  EXPECT_THROW(optimal_hit_bounds(records_of({{0, 1}}), {0}), InputError);
}

TEST(OptimalBound, UniformSizesMeetBeladyWithBypassExactly) {
  for (std::uint32_t seed = 1; seed <= 12; ++seed) {
    const std::vector<Step> s = first_appearance_order(random_steps(seed, 600, 40, 1));
    for (const ByteCount capacity : {ByteCount{3}, ByteCount{8}, ByteCount{20}}) {
      const HitBound b = bound(s, capacity);
      EXPECT_NEAR(b.hit_ratio_by_access_upper, b.hit_ratio_by_access_lower, 1e-9) << seed << " " << capacity;
      MemoryTraceSource t = as_trace(s, true);
      const RunMetrics m = run_cache_only(t, cache_config("belady_bypass", capacity));
      EXPECT_NEAR(m.total.hit_ratio_by_access(), b.hit_ratio_by_access_lower, 1e-9) << seed << " " << capacity;
      EXPECT_NEAR(m.total.hit_ratio_by_byte(), b.hit_ratio_by_byte_upper, 1e-9) << seed << " " << capacity;
    }
  }
}

TEST(OptimalBound, NoPolicyEverHitsMoreThanTheUpperBound) {
  for (std::uint32_t seed = 1; seed <= 6; ++seed) {
    const std::vector<Step> s = first_appearance_order(random_steps(seed, 800, 60, 1000));
    for (const ByteCount capacity : {ByteCount{2000}, ByteCount{10000}}) {
      const HitBound b = bound(s, capacity);
      EXPECT_LE(b.hit_ratio_by_access_lower, b.hit_ratio_by_access_upper);
      EXPECT_LE(b.hit_ratio_by_byte_lower, b.hit_ratio_by_byte_upper);
      for (const std::string& p : all_policy_names()) {
        MemoryTraceSource t = as_model_trace(s, true);
        const RunMetrics m = run_cache_only(t, cache_config(p, capacity));
        EXPECT_LE(m.total.hit_ratio_by_access(), b.hit_ratio_by_access_upper + 1e-9) << p << " seed " << seed;
        EXPECT_LE(m.total.hit_ratio_by_byte(), b.hit_ratio_by_byte_upper + 1e-9) << p << " seed " << seed;
      }
    }
  }
}

TEST(OptimalBound, PfooAndSegmentsBracketFoo) {
  const std::vector<Step> s = first_appearance_order(random_steps(7, 3000, 200, 500));
  const HitBound foo = bound(s, 5000);
  BoundOptions o;
  o.exact_max_accesses = 1000;  // the trace is longer: PFOO-L and segments of 500
  o.segment_accesses = 500;
  const HitBound p = bound(s, 5000, o);
  EXPECT_EQ(p.method, "PFOO-L / segmented FOO-U");
  EXPECT_GE(p.hit_ratio_by_access_upper + 1e-12, foo.hit_ratio_by_access_upper);
  EXPECT_GE(p.hit_ratio_by_byte_upper + 1e-12, foo.hit_ratio_by_byte_upper);
  EXPECT_LE(p.hit_ratio_by_access_lower, foo.hit_ratio_by_access_upper + 1e-12);
  EXPECT_LE(p.hit_ratio_by_byte_lower, foo.hit_ratio_by_byte_upper + 1e-12);
  EXPECT_GT(p.hit_ratio_by_access_lower, 0.0);
}

}  // namespace
}  // namespace flashsim::test
#endif  // FLASHSIM_HAVE_LEMON
