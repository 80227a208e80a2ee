// Hand-worked sequences for LFU, ARC and 2Q (unit-size blocks, so bytes =
// blocks; 'A' = block 0). Lists are written front (newest) to back.
#include <gtest/gtest.h>

#include <random>

#include "tests/policy/policy_test_util.h"

namespace flashsim::test {
namespace {

// LFU, capacity 3, A A B C D C E B B F (count after the name):
//   A M A1  A H A2  B M B1  C M C1
//   D M: lowest count 1 = {B, C}, LRU of them B -> evict B;  {A2 C1 D1}
//   C H C2
//   E M: count 1 = {D} -> evict D;  {A2 C2 E1}
//   B M: count 1 = {E} -> evict E;  {A2 C2 B1}   (B's old count is forgotten)
//   B H B2
//   F M: all at 2; LRU among them: A (step 2) < C (6) < B (9) -> evict A
TEST(Lfu, HandWorkedWithLruTieBreak) {
  const HandRun run = drive("lfu", 3, letters("AABCDCEBBF"));
  EXPECT_EQ(run.outcome, "MHMMMHMMHM");
  EXPECT_EQ(run.counters.hits, 3u);
  EXPECT_EQ(run.counters.misses, 7u);
  EXPECT_EQ(victim_letters(run), "BDEA");
}

// ARC, c = 4 bytes (4 blocks), p = 0 at start. A B C D A B E F C G A D:
//   1-4  A B C D miss          T1 [D C B A]
//   5 A  hit, T1 -> T2         T1 [D C B]  T2 [A]
//   6 B  hit                   T1 [D C]    T2 [B A]
//   7 E  miss; REPLACE: |T1| = 2 > p = 0 -> C to B1     T1 [E D]  B1 [C]
//   8 F  miss; |T1| = 2 > 0 -> D to B1                  T1 [F E]  B1 [D C]
//   9 C  B1 hit: p += 1 * max(1, |B2|/|B1| = 0) = 1; REPLACE: |T1| = 2 > 1 -> E to B1;
//        C to T2                T1 [F]  T2 [C B A]  B1 [E D]
//  10 G  miss; |T1| = 1 > p = 1? no -> T2's LRU A to B2  T1 [G F]  T2 [C B]  B2 [A]
//  11 A  B2 hit: p -= 1 * max(1, |B1|/|B2| = 2) -> p = 0; |T1| = 2 > 0 -> F to B1;
//        A to T2                T1 [G]  T2 [A C B]  B1 [F E D]
//  12 D  B1 hit: p += max(1, 0/3) = 1; |T1| = 1 > 1? no, D not from B2 -> B to B2;
//        D to T2                T1 [G]  T2 [D A C]  B1 [F E]  B2 [B]
TEST(Arc, HandWorkedAdaptation) {
  const HandRun run = drive("arc", 4, letters("ABCDABEFCGAD"));
  EXPECT_EQ(run.outcome, "MMMMHHMMMMMM");
  EXPECT_EQ(run.counters.hits, 2u);
  EXPECT_EQ(victim_letters(run), "CDEAFB");
}

// ARC in bytes: same sequence with every block 1000 bytes and c = 4000
// bytes decides identically (p moves by the block's bytes).
TEST(Arc, ScalesWithUniformBlockBytes) {
  std::vector<Step> steps = letters("ABCDABEFCGAD");
  for (auto& s : steps) s.bytes = 1000;
  const HandRun run = drive("arc", 4000, steps);
  EXPECT_EQ(run.outcome, "MMMMHHMMMMMM");
  EXPECT_EQ(victim_letters(run), "CDEAFB");
}

// Blocks of 4 GiB and more keep their size apart from the 32-bit node
// field (ArcNode): at 2^30 bytes a unit (blocks of 5 units, so 5 GiB) ARC
// decides as at 1 byte a unit -- every size, p and c scale by a power of two.
TEST(Arc, BlocksOfFourGibAndMoreDecideAsSmallOnes) {
  std::vector<Step> small;
  std::mt19937 rng(3);
  for (int i = 0; i < 3000; ++i) {
    const auto b = static_cast<BlockIndex>(rng() % 40);
    small.push_back(Step{b, 1 + b % 7, i});  // the same block always has the same size
  }
  std::vector<Step> big = small;
  for (auto& s : big) s.bytes <<= 30;
  const HandRun a = drive("arc", 60, small);
  const HandRun b = drive("arc", ByteCount{60} << 30, big);
  EXPECT_EQ(a.outcome, b.outcome);
  EXPECT_EQ(a.victims, b.victims);
  EXPECT_GT(a.counters.hits, 300u);
  EXPECT_GT(a.victims.size(), 300u);
}

// 2Q, capacity 4: Kin = 25% = 1 block, Kout = 50% = 2 blocks.
// A B C D A E B A F B G C A H F G:
//   1-4  A1in [D C B A]
//   5 A  hit in A1in: nothing
//   6 E  |A1in| 4 > 1: A out to A1out [A]               A1in [E D C B]
//   7 B  hit in A1in: nothing
//   8 A  A1out hit: B out to A1out; A -> Am              A1out [B]  Am [A]  A1in [E D C]
//   9 F  C out                                            A1out [C B]  A1in [F E D]
//  10 B  A1out hit: D out, B -> Am                        A1out [D C]  Am [B A]  A1in [F E]
//  11 G  E out; A1out [E D C] > 2 drops C                 A1out [E D]  A1in [G F]
//  12 C  (C was dropped: plain miss) F out, drops D       A1out [F E]  A1in [C G]
//  13 A  hit in Am                                        Am [A B]
//  14 H  G out, drops E                                   A1out [G F]  A1in [H C]
//  15 F  A1out hit: C out; F -> Am                        A1out [C G]  Am [F A B]  A1in [H]
//  16 G  A1out hit: |A1in| = 1 is not > 1: Am's LRU B out (no ghost); G -> Am
TEST(TwoQ, HandWorkedFullVersion) {
  const HandRun run = drive("2q", 4, letters("ABCDAEBAFBGCAHFG"));
  EXPECT_EQ(run.outcome, "MMMMHMHMMMMMHMMM");
  EXPECT_EQ(run.counters.hits, 3u);
  EXPECT_EQ(run.counters.misses, 13u);
  EXPECT_EQ(victim_letters(run), "ABCDEFGCB");
}

// 2Q parameters: with kin = 1 (A1in may fill the cache) it never takes
// from Am before A1in is larger than the whole cache: A1in is plain FIFO.
TEST(TwoQ, KinParameter) {
  const HandRun run = drive("2q", 3, letters("ABCADBEA"), {{"kin", "1"}});
  // A1in never exceeds Kin = 3 bytes (the whole cache) and Am stays
  // empty, so every victim is A1in's tail: FIFO order, as in Fifo.HandWorkedSequence.
  EXPECT_EQ(run.outcome, "MMMHMHMM");
  EXPECT_EQ(victim_letters(run), "ABC");
}

}  // namespace
}  // namespace flashsim::test
