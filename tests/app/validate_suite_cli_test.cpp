// The committed H200 validation suite passes against its committed baseline
// (the CI gate of a simulator change that drifts from the hardware), and the
// command's exit status says when a row is out of tolerance.
#include <gtest/gtest.h>

#include "tests/app/app_test_util.h"
#include "tests/support/temp_dir.h"

namespace flashsim {
namespace {

const std::string kSuite = std::string(FLASHSIM_SOURCE_DIR) + "/validate/h200.yaml";

TEST(ValidateSuiteCli, H200SuitePassesAgainstRecordedBaseline) {
  test::TempDir dir;
  const test::Outcome o = test::run_flashsim(dir.path(), "validate '" + kSuite + "' --hw recorded --jobs 2 --out out");
  EXPECT_EQ(o.code, 0) << o.out << o.err;
  EXPECT_NE(o.out.find("PASSED: 0 rows out of tolerance, 0 problems"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("time_per_token_ns   holdout"), std::string::npos) << o.out;
  EXPECT_TRUE(std::filesystem::exists(dir / "out" / "validation.json"));
}

TEST(ValidateSuiteCli, ExitsThreeAndNamesRowsOutOfTolerance) {
  test::TempDir dir;
  // Doubling the per-access cost moves every entry's time away from the hardware.
  const test::Outcome o = test::run_flashsim(
      dir.path(), "validate '" + kSuite + "' --hw recorded --jobs 2 --out out --only zipf-64KiB-lru-50 --set hardware.tiers.0.hit_latency=22us");
  EXPECT_EQ(o.code, 3) << o.out << o.err;
  EXPECT_NE(o.out.find("out of tolerance:\n  zipf-64KiB-lru-50 time_per_token_ns"), std::string::npos) << o.out;
}

TEST(ValidateSuiteCli, BadInputExitsTwoNamingIt) {
  test::TempDir dir;
  test::write_file(dir / "s.yaml", "name: s\nbaseline: b.json\nmetrics: {stal_ns: {kind: exact}}\nentries: []\n");
  const test::Outcome o = test::run_flashsim(dir.path(), "validate s.yaml --hw recorded");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("s.yaml:3:"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("did you mean 'stall_ns'"), std::string::npos) << o.err;
}

}  // namespace
}  // namespace flashsim
