// Hand-worked sequences for LRU, FIFO and CLOCK (unit-size blocks,
// capacity in blocks; 'A' = block 0). Lists are written front (newest) to
// back (evicted next).
#include <gtest/gtest.h>

#include "tests/policy/policy_test_util.h"

namespace flashsim::test {
namespace {

// LRU, capacity 3, A B C A D B E A:
//   A M [A]  B M [B A]  C M [C B A]  A H [A C B]
//   D M evict B [D A C]  B M evict C [B D A]  E M evict A [E B D]
//   A M evict D [A E B]
TEST(Lru, HandWorkedSequence) {
  const HandRun run = drive("lru", 3, letters("ABCADBEA"));
  EXPECT_EQ(run.outcome, "MMMHMMMM");
  EXPECT_EQ(run.counters.hits, 1u);
  EXPECT_EQ(run.counters.misses, 7u);
  EXPECT_EQ(victim_letters(run), "BCAD");
}

// LRU, capacity 3, A B A C D E A:
//   A M [A]  B M [B A]  A H [A B]  C M [C A B]  D M evict B [D C A]
//   E M evict A [E D C]  A M evict C [A E D]
TEST(Lru, RecencyNotFrequency) {
  const HandRun run = drive("lru", 3, letters("ABACDEA"));
  EXPECT_EQ(run.outcome, "MMHMMMM");
  EXPECT_EQ(victim_letters(run), "BAC");
}

// FIFO, capacity 3, A B C A D B E A:
//   A B C M [C B A]  A H (no change)  D M evict A [D C B]  B H
//   E M evict B [E D C]  A M evict C [A E D]
TEST(Fifo, HandWorkedSequence) {
  const HandRun run = drive("fifo", 3, letters("ABCADBEA"));
  EXPECT_EQ(run.outcome, "MMMHMHMM");
  EXPECT_EQ(run.counters.hits, 2u);
  EXPECT_EQ(run.counters.misses, 6u);
  EXPECT_EQ(victim_letters(run), "ABC");
}

// CLOCK (1 bit), capacity 3, A B A C D E A (ref bit after the name):
//   A M [A0]  B M [B0 A0]  A H -> A1  C M [C0 B0 A1]
//   D M: A1 -> A0 passed over [A0 C0 B0], B0 evicted; [D0 A0 C0]
//   E M: C0 evicted [E0 D0 A0]   A H -> A1
// LRU evicts A at E and misses the last A; CLOCK keeps it (second chance).
TEST(Clock, SecondChanceHandWorked) {
  const HandRun run = drive("clock", 3, letters("ABACDEA"));
  EXPECT_EQ(run.outcome, "MMHMMMH");
  EXPECT_EQ(run.counters.hits, 2u);
  EXPECT_EQ(run.counters.misses, 5u);
  EXPECT_EQ(victim_letters(run), "BC");
}

// CLOCK with 2 bits: a block hit twice survives two sweeps.
// Capacity 2, A A A B C D:
//   A M [A0]  A H A1  A H A2  B M [B0 A2]
//   C M: A2 -> A1 [A1 B0], B0 evicted; [C0 A1]
//   D M: A1 -> A0 [A0 C0], C0 evicted; [D0 A0]
// With 1 bit A saturates at 1 and is evicted at D instead:
//   C M: A1 -> A0 [A0 B0], B0 evicted [C0 A0];  D M: A0 evicted.
TEST(Clock, TwoBitCounter) {
  const HandRun two = drive("clock", 2, letters("AAABCD"), {{"bits", "2"}});
  EXPECT_EQ(two.outcome, "MHHMMM");
  EXPECT_EQ(victim_letters(two), "BC");
  const HandRun one = drive("clock", 2, letters("AAABCD"));
  EXPECT_EQ(victim_letters(one), "BA");
}

}  // namespace
}  // namespace flashsim::test
