// `flashsim run --trace FILE --policies ... --capacity ...`: a trace run
// without YAML (the scenario written from the flags), and a trace given
// where a scenario is expected says how to run it.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>

#include "tests/app/app_test_util.h"
#include "tests/support/temp_dir.h"

namespace flashsim {
namespace {

const std::string kTrace = std::string(FLASHSIM_SOURCE_DIR) + "/scenarios/data/llama-2048x22.csv";

TEST(QuickRunCli, ATraceWithPoliciesAndCapacitiesIsASweep) {
  test::TempDir dir;
  const auto o = test::run_flashsim(
      dir.path(), "run --trace " + kTrace + " --policies lru,belady_bypass --capacity 10% --capacity 50% --out r --no-progress");
  ASSERT_EQ(o.code, 0) << o.err;
  const nlohmann::json j = nlohmann::json::parse(test::read_file(dir / "r/summary.json"));
  ASSERT_EQ(j["runs"].size(), 4u);  // 2 capacities x 2 policies
  EXPECT_EQ(j["engine"], "cache_only");
  std::map<std::string, double> by_byte;
  for (const auto& r : j["runs"]) by_byte[r["policy_label"].get<std::string>() + "@" + r["capacity_text"].get<std::string>()] = r["hit_ratio_by_byte"];
  // The recorded trace is a cyclic scan: LRU never hits; belady_bypass reaches
  // FOO's upper bound 7/8 · C/F (docs/policies.md: 8.7% at 10%, 43.7% at 50%).
  EXPECT_EQ(by_byte.at("lru@10%"), 0.0);
  EXPECT_EQ(by_byte.at("lru@50%"), 0.0);
  EXPECT_NEAR(by_byte.at("belady_bypass@10%"), 0.0875, 0.001);
  EXPECT_NEAR(by_byte.at("belady_bypass@50%"), 0.4375, 0.001);
}

TEST(QuickRunCli, MistakesAreNamed) {
  test::TempDir dir;
  auto err = [&](const std::string& args) {
    const auto o = test::run_flashsim(dir.path(), args);
    EXPECT_EQ(o.code, 2) << args << ": " << o.err;
    return o.err;
  };
  EXPECT_NE(err("run " + kTrace).find("looks like a trace, not a scenario: run it with `flashsim run --trace"),
            std::string::npos);
  EXPECT_NE(err("run --trace " + kTrace + " --capacity 5%").find("--trace needs --policies"), std::string::npos);
  EXPECT_NE(err("run --trace " + kTrace + " --policies lru").find("--trace needs --capacity"), std::string::npos);
  EXPECT_NE(err("run --trace " + kTrace + " --policies lru,,arc --capacity 5%").find("an empty item"), std::string::npos);
  EXPECT_NE(err("run --policies lru").find("--policies goes with --trace"), std::string::npos);
  EXPECT_NE(err("run --trace " + kTrace + " --policies lru --capacity 5% --engine fast").find("--engine 'fast'"),
            std::string::npos);
  EXPECT_NE(err("run --trace nothing-here.csv --policies lru --capacity 5%").find("trace file not found"), std::string::npos);
  EXPECT_NE(err("run --trace " + kTrace + " --policies nope --capacity 5%").find("unknown policy 'nope'"), std::string::npos);
  EXPECT_NE(err("run scenarios.yaml --trace " + kTrace + " --policies lru --capacity 5%").find("not both"),
            std::string::npos);
}

}  // namespace
}  // namespace flashsim
