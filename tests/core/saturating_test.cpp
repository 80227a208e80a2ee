// Sums that stop at the top instead of wrapping (issue 29): a stall total
// past 2^63 ns stays the largest value, never a negative time.
#include <gtest/gtest.h>

#include <cstdint>

#include "sim/core/saturating.h"
#include "sim/metrics/metrics.h"

namespace flashsim {
namespace {

TEST(Saturating, DurationSumsStopAtTheTop) {
  EXPECT_EQ(saturating_add_nonnegative(3, 4), 7);
  EXPECT_EQ(saturating_add_nonnegative(INT64_MAX - 5, 5), INT64_MAX);
  EXPECT_EQ(saturating_add_nonnegative(INT64_MAX - 5, 6), INT64_MAX);
  EXPECT_EQ(saturating_add_nonnegative(INT64_MAX, INT64_MAX), INT64_MAX);
  EXPECT_EQ(saturating_add(UINT64_MAX - 1, 1), UINT64_MAX);
  EXPECT_EQ(saturating_mul(1ull << 32, 1ull << 32), UINT64_MAX);
}

TEST(Saturating, MergedStallTotalsOfHugeRunsDoNotTurnNegative) {
  // 10^9 accesses stalled 10 s each: 10^19 ns, past INT64_MAX (9.22e18).
  AccessCounters a, b;
  a.stall_ns = 5'000'000'000'000'000'000;
  b.stall_ns = 5'000'000'000'000'000'000;
  a.merge(b);
  EXPECT_EQ(a.stall_ns, INT64_MAX);
  b.stall_ns = 1;
  a.merge(b);
  EXPECT_EQ(a.stall_ns, INT64_MAX);
}

}  // namespace
}  // namespace flashsim
