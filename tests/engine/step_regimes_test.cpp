// Step regimes (sim/engine/program/step_regimes.h): marks, change points, and the
// choice of regime, on hand-made step times.
#include <gtest/gtest.h>

#include "sim/core/errors.h"
#include "sim/engine/program/step_regimes.h"

namespace flashsim {
namespace {

std::vector<Nanoseconds> starts_of(const std::vector<Nanoseconds>& d) {
  std::vector<Nanoseconds> s = {0};
  for (const Nanoseconds x : d) s.push_back(s.back() + x);
  return s;
}

TEST(StepRegimes, AFlatSlowFirstCallIsItsOwnRegime) {
  // 6 steps at ~74 ms (the pinned allocator growing), then 10 at ~20 ms.
  std::vector<Nanoseconds> d = {74, 75, 73, 74, 76, 74, 20, 21, 20, 19, 20, 21, 20, 20, 19, 21};
  for (Nanoseconds& x : d) x *= 1'000'000;
  const RegimeSplit s = find_regimes(d, starts_of(d), {});
  EXPECT_EQ(s.rule, "change points");
  ASSERT_EQ(s.regimes.size(), 2u);
  EXPECT_EQ(s.regimes[0].first, 0u);
  EXPECT_EQ(s.regimes[0].end, 6u);
  EXPECT_EQ(s.regimes[1].end, 16u);
  EXPECT_DOUBLE_EQ(regime_median_ns(d, s.regimes[0]), 74e6);
  EXPECT_DOUBLE_EQ(regime_median_ns(d, s.regimes[1]), 20e6);
  EXPECT_DOUBLE_EQ(regime_median_ns(d, choose_regime(s, d.size(), "steady", "--regime")), 20e6);
  EXPECT_DOUBLE_EQ(regime_median_ns(d, choose_regime(s, d.size(), "first", "--regime")), 74e6);
  EXPECT_DOUBLE_EQ(regime_median_ns(d, choose_regime(s, d.size(), "all", "--regime")), 21e6);  // sorted 16: 8th and 9th are 21, 21
  EXPECT_EQ(choose_regime(s, d.size(), "0", "--regime").end, 6u);
}

TEST(StepRegimes, NoiseAndSmallShiftsStayOneRegime) {
  // Alternating +-4%: no split (shift under 10%); one 3x outlier: too short.
  const std::vector<Nanoseconds> d = {100, 104, 96, 104, 96, 104, 300, 96, 104, 96, 104, 100};
  const RegimeSplit s = find_regimes(d, starts_of(d), {});
  EXPECT_EQ(s.rule, "one regime");
  ASSERT_EQ(s.regimes.size(), 1u);
  EXPECT_EQ(s.regimes[0].end, d.size());
}

// 60,000 steps (a trace whose every op is a step mark: helper-2's hang)
// split into their two halves; the split is O(n log n) a level.
TEST(StepRegimes, ManyStepsSplitWhereTheSpeedChanges) {
  std::vector<Nanoseconds> d(60000, 50);
  for (std::size_t i = 20000; i < d.size(); ++i) d[i] = 10 + static_cast<Nanoseconds>(i % 3);
  const RegimeSplit s = find_regimes(d, starts_of(d), {});
  ASSERT_EQ(s.regimes.size(), 2u);
  EXPECT_EQ(s.regimes[0].end, 20000u);
}

TEST(StepRegimes, RepeatMarksMakeOneRegimeEach) {
  // Steps start at 0, 10, 20, ..., 80; repeats marked at 0 (before step 0), 25 and 55.
  const std::vector<Nanoseconds> d(8, 10);
  const RegimeSplit s = find_regimes(d, starts_of(d), {0, 25, 55});
  EXPECT_EQ(s.rule, "repeat marks");
  ASSERT_EQ(s.regimes.size(), 3u);
  EXPECT_EQ(s.regimes[0].end, 3u);  // steps starting 0, 10, 20
  EXPECT_EQ(s.regimes[1].end, 6u);  // 30, 40, 50
  EXPECT_EQ(s.regimes[2].end, 8u);  // 60, 70
  // Steps before the first mark are a regime of their own.
  const RegimeSplit t = find_regimes(d, starts_of(d), {35});
  ASSERT_EQ(t.regimes.size(), 2u);
  EXPECT_EQ(t.regimes[0].end, 4u);
}

TEST(StepRegimes, BadChoicesAreNamed) {
  const std::vector<Nanoseconds> d(4, 10);
  const RegimeSplit s = find_regimes(d, starts_of(d), {});
  for (const char* bad : {"2", "steadyy", "-1", "1x", ""}) {
    try {
      choose_regime(s, d.size(), bad, "--regime");
      ADD_FAILURE() << bad;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("--regime"), std::string::npos) << e.what();
    }
  }
  EXPECT_TRUE(find_regimes({}, {}, {}).regimes.empty());
  EXPECT_THROW(find_regimes(d, {0, 1}, {}), std::invalid_argument);
}

}  // namespace
}  // namespace flashsim
