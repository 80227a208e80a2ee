// Hand-worked sequences for S3-FIFO and SIEVE, built step by step from the
// algorithms as the papers state them (S3-FIFO: SOSP'23 Algorithm 1 with
// the artifact's choices, see s3fifo.cpp; SIEVE: NSDI'24 Algorithm 1).
// Unit-size blocks; 'A' = block 0; queues written front (head) to back (tail).
#include <gtest/gtest.h>

#include "tests/policy/policy_test_util.h"

namespace flashsim::test {
namespace {

// S3-FIFO, capacity 4, small_ratio 0.5: S target 2, M share 2, G bound
// 0.9 * 4 = 3 (bytes, floored). Threshold 2 (freq > 1 moves to M).
// A B A A C D B E A F B E E G H A I (freq after the name):
//   1 A M S[A]   2 B M S[B A]   3,4 A H A2   5 C M S[C B A]   6 D M S[D C B A]
//   7 B H B1
//   8 E M: |M| 0 <= 2 -> evict S: tail A2 -> M[A0]; tail B1 -> victim B, G[B]
//          S[E D C]
//   9 A H A1
//  10 F M: evict S: tail C0 -> victim C, G[C B]              S[F E D]
//  11 B M: B in G -> to M.  evict S: tail D0 -> victim D, G[D C]; M[B0 A1]  S[F E]
//  12,13 E H E2
//  14 G M: |M| 2 <= 2 -> S: tail E2 -> M[E0 B0 A1]; tail F0 -> victim F, G[F D C]   S[G]
//  15 H M: |M| 3 > 2 -> evict M: tail A1 -> A0 reinserted M[A0 E0 B0]; tail B0 -> victim B
//          (main victims do not enter G)                    S[H G]  M[A0 E0]
//  16 A H A1
//  17 I M: |M| 2 <= 2 -> S: tail G0 -> victim G, G[G F D C] > 3 drops C
TEST(S3Fifo, HandWorkedSmallMainGhost) {
  const HandRun run =
      drive("s3fifo", 4, letters("ABAACDBEAFBEEGHAI"), {{"small_ratio", "0.5"}});
  EXPECT_EQ(run.outcome, "MMHHMMHMHMMHHMMHM");
  EXPECT_EQ(run.counters.hits, 7u);
  EXPECT_EQ(run.counters.misses, 10u);
  EXPECT_EQ(victim_letters(run), "BCDFBG");
}

// Default parameters, capacity 10 (S target 1, M share 9): one-hit wonders
// leave through S quickly; a block hit twice in S moves to M; a ghost hit
// goes straight to M.
//   A..J M (all in S, S[J..A])   K.. see below
//   11 A H A1   12,13 B H B2
//   14 K M: |M| 0 <= 9 -> S: tail A1 (< 2) -> victim A, G[A]
//   15 L M: tail B2 -> M[B0]; tail C0 -> victim C, G[C A]
//   16 A M: A in G -> M; S: tail D0 -> victim D, G[D C]      M[A0 B0]
//   17 B H
TEST(S3Fifo, DefaultsQuickDemotion) {
  const HandRun run = drive("s3fifo", 10, letters("ABCDEFGHIJABBKLAB"));
  EXPECT_EQ(run.outcome, "MMMMMMMMMMHHHMMMH");
  EXPECT_EQ(victim_letters(run), "ACD");
}

// SIEVE, capacity 4. A B C D A B E D F G (visited bit after the name):
//   1-4 Q[D0 C0 B0 A0]   5 A H A1   6 B H B1
//   7 E M: hand starts at the tail A1 -> A0, moves toward the head: B1 -> B0;
//          C0 -> victim C; hand on D                         Q[E0 D0 B0 A0]
//   8 D H D1
//   9 F M: hand D1 -> D0, moves to E0 -> victim E; E was the head: hand resets
//          Q[F0 D0 B0 A0]
//  10 G M: hand at the tail: A0 -> victim A                   Q[G0 F0 D0 B0]
// LRU on the same sequence evicts C, A, B: SIEVE keeps retained blocks in
// place and evicts the newer E.
TEST(Sieve, HandWorkedHand) {
  const HandRun run = drive("sieve", 4, letters("ABCDABEDFG"));
  EXPECT_EQ(run.outcome, "MMMMHHMHMM");
  EXPECT_EQ(run.counters.hits, 3u);
  EXPECT_EQ(victim_letters(run), "CEA");
  EXPECT_EQ(victim_letters(drive("lru", 4, letters("ABCDABEDFG"))), "CAB");
}

// SIEVE keeps a popular pair (A, B) while one-hit blocks churn past them:
// after the first sweep clears A and B, each new miss evicts the block the
// hand rests on, the newest one, until the hand wraps.
//   Q[D C B A], A H, B H, E M evicts C (hand -> D), F evicts D (hand -> E),
//   A H, B H, G evicts E (hand -> F), H evicts F (hand -> G)
TEST(Sieve, RetainedBlocksStay) {
  const HandRun run = drive("sieve", 4, letters("ABCDABEFABGH"));
  EXPECT_EQ(run.outcome, "MMMMHHMMHHMM");
  EXPECT_EQ(victim_letters(run), "CDEF");
}

}  // namespace
}  // namespace flashsim::test
