// Belady/OPT: the classic example, ties, and optimality against every other
// registered policy on random traces (uniform sizes).
#include <gtest/gtest.h>

#include "tests/policy/policy_test_util.h"

namespace flashsim::test {
namespace {

// The textbook reference string 1 2 3 4 1 2 5 1 2 3 4 5 with 3 frames: OPT
// has 7 faults. As letters A B C D A B E A B C D E (next use in brackets):
//   A B C M
//   D M: A[4] B[5] C[9] -> evict C
//   A H  B H
//   E M: A[7] B[8] D[10] -> evict D
//   A H  B H
//   C M: A never, B never, E[11]; among blocks never used again the one
//        that became so last goes first: B (after its access 9; A after 8)
//   D M: A never, C never, E[11] -> C (never again since access 10)
//   E H
TEST(Belady, ClassicReferenceString) {
  const HandRun run = drive("belady", 3, letters("ABCDABEABCDE"));
  EXPECT_EQ(run.outcome, "MMMMHHMHHMMH");
  EXPECT_EQ(run.counters.misses, 7u);
  EXPECT_EQ(victim_letters(run), "CDBC");
}

TEST(Belady, DeclaresNeedForNextUse) {
  EXPECT_TRUE(make_policy("belady", 10)->needs_next_use());
  EXPECT_FALSE(make_policy("lru", 10)->needs_next_use());
}

// OPT never misses more than any other policy at the same capacity, for
// uniform sizes: belady among the policies that cache every miss (as MIN
// assumes), belady_bypass among all (bypassing is one more choice), and so
// never more than belady either.
TEST(Belady, NeverWorseThanAnyPolicyOnRandomTraces) {
  const std::vector<std::string> names = all_policy_names();
  for (std::uint32_t seed = 1; seed <= 25; ++seed) {
    const std::vector<Step> steps = random_steps(seed, 3000, 60);
    for (ByteCount capacity : {2u, 5u, 10u, 20u, 40u}) {
      const std::uint64_t opt = drive("belady", capacity, steps).counters.misses;
      const std::uint64_t opt_bypass = drive("belady_bypass", capacity, steps).counters.misses;
      for (const std::string& name : names) {
        const std::uint64_t other = drive(name, capacity, steps).counters.misses;
        if (name != "belady_bypass") {
          EXPECT_LE(opt, other) << name << " seed " << seed << " capacity " << capacity;
        }
        EXPECT_LE(opt_bypass, other) << name << " seed " << seed << " capacity " << capacity;
      }
    }
  }
}

// Admission by hand: capacity 1, A B A. belady keeps B (forced admission)
// and misses A again; belady_bypass does not cache B (used never again)
// and hits A.
TEST(Belady, BypassKeepsTheBlockUsedSoonerByHand) {
  EXPECT_EQ(drive("belady", 1, letters("ABA")).outcome, "MMM");
  EXPECT_EQ(drive("belady_bypass", 1, letters("ABA")).outcome, "MBH");
  // A B C B A, capacity 2: at C, A (next at 4) and B (next at 3) are held and
  // C is never used again: bypass. Then B and A hit.
  EXPECT_EQ(drive("belady_bypass", 2, letters("ABCBA")).outcome, "MMBHH");
  EXPECT_EQ(drive("belady", 2, letters("ABCBA")).outcome, "MMMHM");
}

// Through run_cache_only: next use computed in memory (trace without it)
// and precomputed in the trace give the same result as the hand driver.
TEST(Belady, NextUseComputedOrPrecomputed) {
  const std::vector<Step> steps = first_appearance_order(random_steps(7, 5000, 200));
  const HandRun hand = drive("belady", 30, steps);
  MemoryTraceSource without = as_trace(steps, false);
  MemoryTraceSource with = as_trace(steps, true);
  const RunMetrics a = run_cache_only(without, cache_config("belady", 30));
  const RunMetrics b = run_cache_only(with, cache_config("belady", 30));
  EXPECT_EQ(a.total.misses, hand.counters.misses);
  EXPECT_EQ(b.total.misses, hand.counters.misses);
  EXPECT_EQ(a.total.evictions, hand.counters.evictions);
}

// Variable sizes: evict furthest-next-use blocks until the new one fits.
// Capacity 10 bytes, A B C of 4 bytes each, then A, B:
//   A M  B M (8 bytes)  C M: 12 > 10, A[3] B[4] -> evict B
//   A H  B M: 12 > 10, A and C never used again; A became so last (access 3,
//        C at access 2) -> evict A
TEST(Belady, VariableSizesEvictUntilFits) {
  const std::vector<Step> steps = {{0, 4, 0}, {1, 4, 1}, {2, 4, 2}, {0, 4, 3}, {1, 4, 4}};
  const HandRun run = drive("belady", 10, steps);
  EXPECT_EQ(run.outcome, "MMMHM");
  EXPECT_EQ(victim_letters(run), "BA");
}

}  // namespace
}  // namespace flashsim::test

namespace flashsim::test {
namespace {

// A next use of 2^63 - 1 or more that is not "never" (a CSV writing
// libCacheSim's INT64_MAX for never) stays evictable: hand-worked, capacity
// 2, A(next 2^63-1) B(3) C(4) B C: C evicts A, then B and C hit = 2 of 5.
TEST(Belady, ANextUseBeyond63BitsStaysEvictable) {
  std::vector<AccessRecord> records(5);
  const BlockId ids[5] = {100, 200, 300, 200, 300};
  const std::uint64_t next[5] = {(std::uint64_t{1} << 63) - 1, 3, 4, kNeverAccessedAgain, kNeverAccessedAgain};
  for (int i = 0; i < 5; ++i) {
    records[i].time_ns = i;
    records[i].block_id = ids[i];
    records[i].bytes = 1;
    records[i].next_use_index = next[i];
  }
  TraceMeta meta;
  meta.source = "test";
  meta.has_next_use = true;
  for (const char* policy : {"belady", "belady_bypass"}) {
    MemoryTraceSource trace(meta, records);
    EXPECT_EQ(run_cache_only(trace, cache_config(policy, 2)).total.hits, 2u) << policy;
  }
}

}  // namespace
}  // namespace flashsim::test
