#include "sim/engine/event/event_queue.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

namespace flashsim {
namespace {

TEST(EventQueue, TiesInTimePopInSchedulingOrder) {
  EventQueue q;
  q.push(10, 1);
  q.push(5, 2);
  q.push(10, 3);
  q.push(5, 4);
  q.push(0, 5);
  std::vector<std::uint32_t> kinds;
  while (!q.empty()) kinds.push_back(q.pop().kind);
  EXPECT_EQ(kinds, (std::vector<std::uint32_t>{5, 2, 4, 1, 3}));
}

TEST(EventQueue, MatchesAStableSortOfManyEvents) {
  EventQueue q;
  std::mt19937_64 rng(42);
  std::vector<std::pair<Nanoseconds, std::uint32_t>> expect;
  for (std::uint32_t i = 0; i < 5000; ++i) {
    const Nanoseconds t = static_cast<Nanoseconds>(rng() % 100);  // many ties
    q.push(t, 0, i);
    expect.emplace_back(t, i);
    if (i % 7 == 3) {  // interleave pops
      std::stable_sort(expect.begin(), expect.end(),
                       [](const auto& x, const auto& y) { return x.first < y.first; });
      const Event e = q.pop();
      EXPECT_EQ(e.time_ns, expect.front().first);
      EXPECT_EQ(e.a, expect.front().second);
      expect.erase(expect.begin());
    }
  }
  std::stable_sort(expect.begin(), expect.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  for (const auto& [t, i] : expect) {
    const Event e = q.pop();
    EXPECT_EQ(e.time_ns, t);
    EXPECT_EQ(e.a, i);
  }
  EXPECT_TRUE(q.empty());
}

}  // namespace
}  // namespace flashsim
