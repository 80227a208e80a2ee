// `flashsim compare A B`: runs matched by point and policy, deltas by hand
// on the recorded trace (belady_bypass at 10% and 50% of the footprint), and
// bad inputs named.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

#include "tests/app/app_test_util.h"
#include "tests/support/temp_dir.h"

namespace flashsim {
namespace {

const std::string kTrace = std::string(FLASHSIM_SOURCE_DIR) + "/scenarios/data/llama-2048x22.csv";

TEST(CompareCli, DeltasOfMatchedRuns) {
  test::TempDir dir;
  for (const char* c : {"10%", "50%"}) {
    const auto o = test::run_flashsim(dir.path(), "run --trace " + kTrace + " --policies lru,belady_bypass --capacity " +
                                                      std::string(c) + " --out r" + std::string(c, 2) + " --no-progress");
    ASSERT_EQ(o.code, 0) << o.err;
  }
  const auto o = test::run_flashsim(dir.path(), "compare r10 r50");
  ASSERT_EQ(o.code, 0) << o.err;
  // belady_bypass by byte: about 7/8 · C/F, 8.7% at 10% and 43.7% at 50%
  // (docs/policies.md) -> +35.0x pt (35.03: the bound's 35.00 within a block).
  const std::size_t at = o.out.find("\nbelady_bypass\n");
  ASSERT_NE(at, std::string::npos) << o.out;
  const std::string block = o.out.substr(at, o.out.find("\n\n", at + 1) - at);
  EXPECT_NE(block.find("hit_ratio_by_byte"), std::string::npos) << block;
  EXPECT_NE(block.find("+35.0"), std::string::npos) << block;
  EXPECT_NE(block.find(" pt\n"), std::string::npos) << block;  // ratios in percentage points
  // LRU never hits a cyclic scan at either size: nothing of its hits differs.
  const std::size_t lru = o.out.find("\nlru\n");
  ASSERT_NE(lru, std::string::npos);
  const std::string lru_block = o.out.substr(lru, o.out.find("\n\n", lru + 1) - lru);
  EXPECT_EQ(lru_block.find("hit_ratio_by_access"), std::string::npos) << lru_block;
  // The same results twice: every metric equal.
  const auto same = test::run_flashsim(dir.path(), "compare r10 r10/summary.json");
  EXPECT_NE(same.out.find("(every metric equal)"), std::string::npos) << same.out;
}

TEST(CompareCli, ASingleRunPairsWithTheSweepPointThatRanTheSameScenario) {
  test::TempDir dir;
  auto o = test::run_flashsim(dir.path(), "run --trace " + kTrace + " --policies lru --capacity 50% --out one --no-progress");
  ASSERT_EQ(o.code, 0) << o.err;
  o = test::run_flashsim(dir.path(), "run --trace " + kTrace + " --policies lru --capacity 10%,50% --out sweep --no-progress");
  ASSERT_EQ(o.code, 0) << o.err;
  // Before: "only in A: lru", both sweep runs only in B, and an error.
  o = test::run_flashsim(dir.path(), "compare one sweep");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("\nlru  vs  lru @ cache.capacity=50%\n  metric"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("(every metric equal)"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("only in B: lru @ cache.capacity=10%"), std::string::npos) << o.out;
  EXPECT_EQ(o.out.find("only in A"), std::string::npos) << o.out;
}

// The components' numbers are compared too, in their units: a program
// run's prediction is its component's median step.
TEST(CompareCli, ComponentNumbersAreComparedInTheirUnits) {
  test::TempDir dir;
  const std::string capture = std::string(FLASHSIM_SOURCE_DIR) + "/validate/baselines/h200/programs/double_buffer_prefetch.h5";
  for (const char* memory : {"as_recorded", "pageable"}) {
    const auto o = test::run_flashsim(dir.path(), "run --trace " + capture + " --engine program --hardware h200-calibrated "
                                                  "--policies as_recorded --set engine.skip_steps=10 --set engine.host_memory=" +
                                                      memory + " --out " + memory + " --no-progress");
    ASSERT_EQ(o.code, 0) << o.err;
  }
  const auto o = test::run_flashsim(dir.path(), "compare as_recorded pageable");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_THAT(o.out, ::testing::ContainsRegex("\n  program\\.median_step_ns +9\\.80 ms +77\\.9 ms  \\+68\\.1 ms"));
  EXPECT_THAT(o.out, ::testing::ContainsRegex("\n  program\\.h2d_pinned_copies +289 +0  -289 \\(-100\\.0%\\)"));
}

TEST(CompareCli, BadInputIsNamed) {
  test::TempDir dir;
  std::ofstream(dir / "not.json") << "{ nope";
  std::ofstream(dir / "other.json") << "{\"x\": 1}";
  auto err = [&](const std::string& args) {
    const auto o = test::run_flashsim(dir.path(), "compare " + args);
    EXPECT_EQ(o.code, 2) << args << ": " << o.err;
    return o.err;
  };
  EXPECT_NE(err("missing other.json").find("cannot read 'missing"), std::string::npos);
  EXPECT_NE(err("not.json other.json").find("'not.json' is not JSON"), std::string::npos);
  EXPECT_NE(err("other.json other.json").find("not a flashsim summary.json"), std::string::npos);
  EXPECT_NE(err("other.json").find("B"), std::string::npos);  // a required argument
}

}  // namespace
}  // namespace flashsim
