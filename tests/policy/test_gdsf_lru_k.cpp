// GDSF and LRU-K by hand (victim order worked out in the comments), and
// LRU-K with K = 1 against LRU on random traces (the same policy).
#include <gtest/gtest.h>

#include "tests/policy/policy_test_util.h"

namespace flashsim::test {
namespace {

TEST(Gdsf, EvictsTheLowestFrequencyPerByteWithInflationByHand) {
  // Capacity 3. A(1) B(2) A C(1) B D(1):
  //   A M: H=0+1/1=1; B M: H=0+1/2=0.5; A H: H=0+2/1=2;
  //   C M: full (3): evict B (0.5), L=0.5; C: H=0.5+1=1.5;
  //   B M: needs 2, free 1: evict C (1.5), L=1.5; B: H=1.5+1/2=2.0;
  //   D M: full: A (2, accessed at step 2) and B (2.0, step 4) tie: the
  //   older access goes, A; D: H=2+1=3.
  const std::vector<Step> s = {{0, 1}, {1, 2}, {0, 1}, {2, 1}, {1, 2}, {3, 1}};
  const HandRun run = drive("gdsf", 3, s);
  EXPECT_EQ(run.outcome, "MMHMMM");
  EXPECT_EQ(victim_letters(run), "BCA");
}

TEST(Gdsf, PrefersManySmallBlocksOverOneLargeOfTheSameFrequency) {
  // Capacity 4: L(4) then S1(1) S2(1): L goes (1/4 < 1/1) and both small stay.
  const HandRun run = drive("gdsf", 4, {{0, 4}, {1, 1}, {2, 1}, {1, 1}, {2, 1}});
  EXPECT_EQ(run.outcome, "MMMHH");
  EXPECT_EQ(victim_letters(run), "A");
}

TEST(LruK, BackwardKDistanceWithRetainedHistoryByHand) {
  // Capacity 2, K = 2. A A B C B D:
  //   A M (t0), A H (t1): A's 2nd most recent access t0; B M (t2): one access;
  //   C M (t3): B has fewer than K accesses: B goes;
  //   B M (t4): C (one access) goes; B's retained history t2, t4: K-th = t2;
  //   D M (t5): A (K-th t0) is older than B (t2): A goes.
  EXPECT_EQ(victim_letters(drive("lru_k", 2, letters("AABCBD"))), "BCA");
  // Without the retained history B counts one access again and goes at D.
  EXPECT_EQ(victim_letters(drive("lru_k", 2, letters("AABCBD"), {{"retain", "false"}})), "BCB");
}

TEST(LruK, WithKOneIsLru) {
  for (std::uint32_t seed = 1; seed <= 10; ++seed) {
    const std::vector<Step> steps = random_steps(seed, 2000, 50, 8);
    for (ByteCount capacity : {ByteCount{10}, ByteCount{40}, ByteCount{100}}) {
      const HandRun lru = drive("lru", capacity, steps);
      const HandRun k1 = drive("lru_k", capacity, steps, {{"k", "1"}});
      EXPECT_EQ(k1.outcome, lru.outcome) << "seed " << seed << " capacity " << capacity;
      EXPECT_EQ(k1.victims, lru.victims) << "seed " << seed << " capacity " << capacity;
    }
  }
}

}  // namespace
}  // namespace flashsim::test

namespace flashsim::test {
namespace {

// LeCaR with its learning switched off is one of its experts: LRU with
// w_lru = 1, LFU with w_lru = 0 (flashsim's LFU: in-cache counts, ties LRU).
TEST(Lecar, WithoutLearningIsItsExpert) {
  for (std::uint32_t seed = 1; seed <= 8; ++seed) {
    const std::vector<Step> steps = random_steps(seed, 2000, 50, 8);
    for (ByteCount capacity : {ByteCount{10}, ByteCount{60}}) {
      const HandRun lru = drive("lru", capacity, steps);
      const HandRun as_lru =
          drive("lecar", capacity, steps, {{"learning_rate", "0"}, {"initial_lru_weight", "1"}});
      EXPECT_EQ(as_lru.victims, lru.victims) << "seed " << seed << " capacity " << capacity;
      const HandRun lfu = drive("lfu", capacity, steps);
      const HandRun as_lfu =
          drive("lecar", capacity, steps, {{"learning_rate", "0"}, {"initial_lru_weight", "0"}});
      EXPECT_EQ(as_lfu.victims, lfu.victims) << "seed " << seed << " capacity " << capacity;
    }
  }
}

// Learning: each round reads a hot block A twice, then three new blocks;
// capacity 3. LRU evicts A at the third new block of every round (one hit
// a round: 60); LFU keeps A, whose count is 2 or more (119). Each time LRU's
// choice evicted A, A's next miss finds it in LRU's history and LRU loses
// weight (x0.64 a time): LeCaR soon follows LFU.
TEST(Lecar, LearnsAwayFromLruWhenScansFlushAHotBlock) {
  std::vector<Step> s;
  BlockIndex next = 1;
  for (int round = 0; round < 60; ++round) {
    s.push_back({0, 1, static_cast<Nanoseconds>(s.size())});
    s.push_back({0, 1, static_cast<Nanoseconds>(s.size())});
    for (int k = 0; k < 3; ++k) s.push_back({next++, 1, static_cast<Nanoseconds>(s.size())});
  }
  EXPECT_EQ(drive("lru", 3, s).counters.hits, 60u);
  EXPECT_EQ(drive("lfu", 3, s).counters.hits, 119u);
  EXPECT_GT(drive("lecar", 3, s).counters.hits, 100u);
}

}  // namespace
}  // namespace flashsim::test
