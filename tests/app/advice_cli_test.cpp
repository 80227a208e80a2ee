// Advice that works (issue 30): a results folder or its JSON given where a
// scenario goes is named as what it is, with commands that read it; an
// override's error names the override, also when a check of its whole
// section fails or when it left list elements empty.
#include <gtest/gtest.h>

#include "tests/app/app_test_util.h"
#include "tests/support/temp_dir.h"

namespace flashsim {
namespace {

TEST(AdviceCli, ResultsGivenAsAScenarioAreNamedWithCommandsThatWork) {
  test::TempDir dir;
  test::write_file(dir / "t.csv", test::cyclic_csv(8, 4, 4096));
  auto o = test::run_flashsim(dir.path(), "run --trace t.csv --policies lru --capacity 50% --out r --no-progress");
  ASSERT_EQ(o.code, 0) << o.err;
  o = test::run_flashsim(dir.path(), "run r/summary.json");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("'r/summary.json' is the summary a `flashsim run` wrote (results folder r), not a scenario"),
            std::string::npos)
      << o.err;
  EXPECT_EQ(o.err.find("--trace r/summary.json"), std::string::npos) << o.err;  // the old advice that failed
  // The commands it names work on it.
  EXPECT_EQ(test::run_flashsim(dir.path(), "report r/summary.json --no-plots --no-bound --out p.html").code, 0);
  EXPECT_EQ(test::run_flashsim(dir.path(), "results export r --format csv --out x").code, 0);
  o = test::run_flashsim(dir.path(), "run r");
  EXPECT_NE(o.err.find("'r' is a results folder of `flashsim run`, not a scenario: `flashsim report r/summary.json`"), std::string::npos) << o.err;
  o = test::run_flashsim(dir.path(), "run r/sweep.json");
  EXPECT_NE(o.err.find("'r/sweep.json' is in a results folder of `flashsim run`, not a scenario: `flashsim report "
                       "r/summary.json`"),
            std::string::npos)
      << o.err;
  o = test::run_flashsim(dir.path(), "run r/results.h5");  // was: run it with --trace, which fails
  EXPECT_NE(o.err.find("'r/results.h5' is in a results folder"), std::string::npos) << o.err;
  o = test::run_flashsim(dir.path(), "run missing.json");  // was: "looks like a trace"
  EXPECT_NE(o.err.find("missing.json: cannot open file: no such file"), std::string::npos) << o.err;
  // Shards alone: nothing to report yet; merging is what works.
  std::filesystem::create_directories(dir / "shards");
  std::filesystem::copy_file(dir / "r/sweep.json", dir / "shards/sweep.json");
  o = test::run_flashsim(dir.path(), "run shards");
  EXPECT_NE(o.err.find("not merged yet: `flashsim sweep merge shards`"), std::string::npos) << o.err;
  o = test::run_flashsim(dir.path(), "run ''");
  EXPECT_NE(o.err.find("error: an empty scenario path ('')"), std::string::npos) << o.err;
}

TEST(AdviceCli, ASectionCheckNamesTheOverrideThatBrokeIt) {
  test::TempDir dir;
  auto o = test::run_flashsim(dir.path(), "run --set hardware.l2.line_size=7 --print-scenario");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("error: --set hardware.l2.line_size=7 (over "), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("h200.yaml:"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("line_size (7 B) must be a multiple of sector_size"), std::string::npos) << o.err;
}

TEST(AdviceCli, AHardwareOverrideOfAScenarioWithoutHardwareOverridesTheDefaultProfile) {
  test::TempDir dir;
  test::write_file(dir / "s.yaml", "name: s\nworkload: {trace: builtin:llama-2048x22}\ncache: {capacity: 50%}\npolicies: [lru]\n");
  // Before: "key 'hardware': missing key 'tiers'" for any value.
  auto o = test::run_flashsim(dir.path(), "run s.yaml --set hardware.l2.line_size=64B --print-scenario");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("name: seed-defaults"), std::string::npos) << o.out.substr(0, 400);
  EXPECT_NE(o.out.find("line_size: 64B"), std::string::npos);
  o = test::run_flashsim(dir.path(), "run s.yaml --set hardware.l2.line_size=7 --print-scenario");
  EXPECT_NE(o.err.find("--set hardware.l2.line_size=7"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("line_size (7 B) must be a multiple of sector_size"), std::string::npos) << o.err;
}

TEST(AdviceCli, ListElementsAnOverrideLeftEmptyNameIt) {
  test::TempDir dir;
  test::write_file(dir / "s.yaml", "name: s\nworkload: {trace: builtin:llama-2048x22}\ncache: {capacity: 50%}\n");
  auto o = test::run_flashsim(dir.path(), "run s.yaml --set policies.2=lru --print-scenario");
  EXPECT_NE(o.err.find("error: --set policies.2=lru: key 'policies.0'"), std::string::npos) << o.err;
  test::write_file(dir / "w.yaml", "name: w\nworkload: {trace: builtin:llama-2048x22}\ncache: {capacity: 50%}\n"
                                   "sweep:\n  policies.1: [lru, arc]\n");
  o = test::run_flashsim(dir.path(), "run w.yaml --print-scenario");
  EXPECT_NE(o.err.find("error: w.yaml:5:3: key 'policies.0'"), std::string::npos) << o.err;
}

TEST(AdviceCli, AScenarioTextThatIsNotUtf8IsRefusedWhereItWasWritten) {
  test::TempDir dir;
  test::write_file(dir / "t\xFF.csv", test::cyclic_csv(8, 4, 4096));
  // Before: the quick form's name was refused as YAML text the user never
  // wrote; a scenario's workload.trace went into results.h5 as is, which
  // h5py cannot decode.
  auto o = test::run_flashsim(dir.path(), "run --trace \"$(printf 't\\377.csv')\" --policies lru --capacity 50%");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("--trace 't\xEF\xBF\xBD.csv': the file name is not valid UTF-8 (byte 1)"), std::string::npos)
      << o.err;
  EXPECT_NE(o.err.find("ln -s"), std::string::npos) << o.err;
  test::write_file(dir / "s.yaml", "name: s\npolicies: [lru]\ncache: {capacity: 50%}\nworkload: {trace: \"t\xFF.csv\"}\n");
  o = test::run_flashsim(dir.path(), "run s.yaml --out r");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("s.yaml:4:19: key 'workload.trace': 't\xEF\xBF\xBD.csv' is not valid UTF-8 (byte 1)"),
            std::string::npos)
      << o.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "r/results.h5"));
}

}  // namespace
}  // namespace flashsim

namespace flashsim {
namespace {

TEST(AdviceCli, ANegativeValueOfAnUnsignedOptionIsRefusedNotWrapped) {
  test::TempDir dir;
  // Before: --run -1 said "no run 18446744073709551615", --max-points -1
  // meant no limit, --shards -1 printed 2^64-1.
  for (const char* args : {"timeline r --run -1 --out t.json", "timeline r --max-events -1 --out t.json",
                           "run --max-points -1 --print-scenario", "sweep plan s.yaml --emit parallel --shards -1"}) {
    const auto o = test::run_flashsim(dir.path(), args);
    EXPECT_EQ(o.code, 2) << args;
    EXPECT_NE(o.err.find("expects a whole number >= 0, not -1"), std::string::npos) << args << ": " << o.err;
    EXPECT_EQ(o.err.find("18446744073709551615"), std::string::npos) << o.err;
  }
}

TEST(AdviceCli, AnEmptyOrOversizedNumberIsRefusedNotReadAsZeroOrClamped) {
  test::TempDir dir;
  // Before: --counters-timeout '' was 0 (no limit, silently), and
  // --ncu-launches 99999999999999999999 became 2^63-1.
  for (const char* args : {"diagnose r --counters-timeout ''", "diagnose r --ncu-launches ''",
                           "timeline r --max-events '' --out t.json"}) {
    const auto o = test::run_flashsim(dir.path(), args);
    EXPECT_EQ(o.code, 2) << args;
    EXPECT_NE(o.err.find("expects a number, not an empty value"), std::string::npos) << args << ": " << o.err;
  }
  for (const char* args : {"diagnose r --ncu-launches 99999999999999999999",
                           "timeline r --run 99999999999999999999 --out t.json"}) {
    const auto o = test::run_flashsim(dir.path(), args);
    EXPECT_EQ(o.code, 2) << args;
    EXPECT_NE(o.err.find("expects a whole number of at most 64 bits, not 99999999999999999999"), std::string::npos)
        << args << ": " << o.err;
  }
}

TEST(AdviceCli, TheQuickFormRefusesAHardwareProfileItWouldIgnore) {
  test::TempDir dir;
  test::write_file(dir / "t.csv", test::cyclic_csv(8, 4, 4096));
  auto o = test::run_flashsim(dir.path(), "run --trace t.csv --policies lru --capacity 50% --hardware nope");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("--hardware nope: --engine cache_only has no hardware"), std::string::npos) << o.err;
  o = test::run_flashsim(dir.path(), "run --trace t.csv --policies lru --capacity 50% --engine event --hardware nope");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("hardware profile 'nope' not found"), std::string::npos) << o.err;
}

}  // namespace
}  // namespace flashsim
