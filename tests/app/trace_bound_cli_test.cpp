// `flashsim trace bound` on the command line: the JSON fields the issue
// names, the recorded trace's closed form through the CLI, and bad input.
#ifdef FLASHSIM_HAVE_LEMON
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/app/app_test_util.h"
#include "tests/support/temp_dir.h"

namespace flashsim {
namespace {

const std::string kTrace = std::string(FLASHSIM_SOURCE_DIR) + "/scenarios/data/llama-2048x22.csv";

TEST(TraceBoundCli, JsonFieldsAndTheClosedForm) {
  test::TempDir dir;
  const auto o = test::run_flashsim(dir.path(), "trace bound " + kTrace + " -c 25% -c 1100048384 --json");
  ASSERT_EQ(o.code, 0) << o.err;
  const nlohmann::json j = nlohmann::json::parse(o.out);
  ASSERT_EQ(j["bounds"].size(), 2u);
  for (const auto& b : j["bounds"]) {
    for (const char* k : {"capacity_bytes", "hit_ratio_by_byte_upper", "hit_ratio_by_byte_lower",
                          "hit_ratio_by_access_upper", "hit_ratio_by_access_lower"}) {
      ASSERT_TRUE(b.contains(k)) << k;
    }
    EXPECT_LE(b["hit_ratio_by_byte_lower"].get<double>(), b["hit_ratio_by_byte_upper"].get<double>());
    EXPECT_EQ(b["method"], "FOO");
    // A cyclic scan of 8 passes: 7/8 of C/F by byte (F = 2,200,096,768 B).
    EXPECT_NEAR(b["hit_ratio_by_byte_upper"].get<double>(), 7.0 / 8 * b["capacity_bytes"].get<double>() / 2200096768.0,
                1e-9);
  }
  EXPECT_EQ(j["bounds"][0]["capacity_bytes"], 550024192);  // floor(25% of the footprint)
}

TEST(TraceBoundCli, BadInputIsNamed) {
  test::TempDir dir;
  auto err = [&](const std::string& args) {
    const auto o = test::run_flashsim(dir.path(), "trace bound " + args);
    EXPECT_EQ(o.code, 2) << args << ": " << o.err;
    return o.err;
  };
  EXPECT_NE(err(kTrace).find("--capacity"), std::string::npos);  // required
  EXPECT_NE(err(kTrace + " -c 0%").find("--capacity"), std::string::npos);
  EXPECT_NE(err(kTrace + " -c lots").find("--capacity"), std::string::npos);
  EXPECT_NE(err(kTrace + " -c 5% --segment 1").find("--segment"), std::string::npos);
  EXPECT_NE(err("/nonexistent.h5 -c 5%").find("nonexistent"), std::string::npos);
}

}  // namespace
}  // namespace flashsim
#endif  // FLASHSIM_HAVE_LEMON
