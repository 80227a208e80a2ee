// The flashsim binary: `run` prints tables and writes results; bad input
// exits 2 naming file:line:column and leaves no results; `policies` lists
// parameters; the embedded default scenario runs without a source tree.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <nlohmann/json.hpp>

#include "sim/scenario/embedded_files.h"
#include "sim/scenario/scenario_document.h"
#include "tests/app/app_test_util.h"
#include "tests/support/shared_data.h"
#include "tests/support/temp_dir.h"

namespace flashsim {
namespace {

using test::Outcome;
using test::run_flashsim;

TEST(Cli, RunPrintsTablesAndWritesResults) {
  test::TempDir dir;
  test::write_file(dir / "trace.csv", test::cyclic_csv(3, 4, 1000));
  test::write_file(dir / "s.yaml",
                   "name: cli\nworkload: {trace: trace.csv}\ncache: {capacity: 50%}\npolicies: [lru, belady]\n"
                   "sweep: {cache.capacity: [34%, 100%]}\n");
  const Outcome o = run_flashsim(dir.path(), "run s.yaml --jobs 2 --set seed=3");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("[point 1/2] cache.capacity=34%"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("hit/byte"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("results: flashsim-results/cli/results.h5"), std::string::npos) << o.out;
  const auto j = nlohmann::json::parse(test::read_file(dir / "flashsim-results/cli/summary.json"));
  ASSERT_EQ(j["runs"].size(), 4u);
  EXPECT_EQ(j["seed"], 3);
  EXPECT_EQ(j["runs"][3]["hits"], 9);  // everything fits: 3 cold misses of 12
  EXPECT_TRUE(std::filesystem::exists(dir / "flashsim-results/cli/results.h5"));
  // stderr is a pipe here: plain progress lines (the first at once, the last always), no terminal codes.
  EXPECT_EQ(o.err.find("\x1b["), std::string::npos) << o.err;
  EXPECT_THAT(o.err, ::testing::StartsWith("running 4 runs (2 sweep points) on 2 threads\n[1/4] "));
  EXPECT_THAT(o.err, ::testing::HasSubstr("\n[4/4] "));
}

// A statistic a component reports shows in the terminal too: the table
// says how many there are, --components prints them (numbers per policy in
// their unit, texts once when equal, series listed).
TEST(Cli, RunComponentsPrintsEveryComponentStatistic) {
  test::TempDir dir;
  const std::string trace =
      std::string(FLASHSIM_SOURCE_DIR) + "/validate/baselines/h200/programs/double_buffer_prefetch.h5";
  const std::string quick = "run --trace " + trace + " --engine program --hardware h200-calibrated --policies as_recorded --set engine.skip_steps=10 -q";
  const Outcome plain = run_flashsim(dir.path(), quick);
  ASSERT_EQ(plain.code, 0) << plain.err;
  const auto j = nlohmann::json::parse(test::read_file(dir / "flashsim-results/double_buffer_prefetch/summary.json"));
  const auto& run = j["runs"][0];
  const std::size_t n = run["components"].size() + run["component_texts"].size() + run["component_series"].size();
  EXPECT_NE(plain.out.find("the runs' components report " + std::to_string(n) + " more statistics (--components prints them)"),
            std::string::npos)
      << plain.out;
  EXPECT_EQ(plain.out.find("program.median_step_ns"), std::string::npos) << plain.out;
  // An error about the scenario --trace writes names the option, not a line of a file nobody wrote.
  const Outcome zero = run_flashsim(dir.path(), "run --trace " + trace + " --policies lru --capacity 0 -q");
  EXPECT_EQ(zero.code, 2);
  EXPECT_NE(zero.err.find("flashsim run: error: --capacity: capacity must be > 0"), std::string::npos) << zero.err;
  const Outcome full = run_flashsim(dir.path(), quick + " --force --components");
  ASSERT_EQ(full.code, 0) << full.err;
  EXPECT_NE(full.out.find("double_buffer_prefetch: components\n  component.name"), std::string::npos) << full.out;
  EXPECT_NE(full.out.find("  no fast tier (every policy as_recorded), program engine"), std::string::npos) << full.out;
  EXPECT_THAT(full.out, ::testing::ContainsRegex("\n  program\\.median_step_ns +9\\.8[0-9] ms\n"));
  EXPECT_THAT(full.out, ::testing::ContainsRegex("\n  program\\.copies +308\n"));
  EXPECT_NE(full.out.find("\n  program.step_rule: nvtx:flashsim.step\n"), std::string::npos) << full.out;
  EXPECT_NE(full.out.find("\n  program.regime_first_steps: 10\n"), std::string::npos) << full.out;
  EXPECT_THAT(full.out, ::testing::ContainsRegex("\n  program\\.step_ns: 9\\.[0-9]+ ms(, 9\\.[0-9]+ ms){7}\n"));
  // Every number, text and series of summary.json has its line.
  for (const char* list : {"components", "component_texts", "component_series"}) {
    for (const auto& c : run[list]) {
      const std::string key = "\n  " + c["component"].get<std::string>() + "." + c["name"].get<std::string>();
      EXPECT_NE(full.out.find(key), std::string::npos) << key;
    }
  }
}

// A captured program through the command line: trace stats shows it, predict
// gives the committed baseline's prediction, and a trace without one is named.
TEST(Cli, TraceStatsShowsTheProgramAndPredictRunsIt) {
  test::TempDir dir;
  const std::string trace =
      std::string(FLASHSIM_SOURCE_DIR) + "/validate/baselines/h200/programs/double_buffer_prefetch.h5";
  const Outcome stats = run_flashsim(dir.path(), "trace stats " + trace);
  ASSERT_EQ(stats.code, 0) << stats.err;
  EXPECT_NE(stats.out.find("schema           2"), std::string::npos) << stats.out;
  EXPECT_NE(stats.out.find("19 step marks (nvtx:flashsim.step)"), std::string::npos) << stats.out;
  const Outcome p = run_flashsim(dir.path(), "predict " + trace + " --skip-steps 10 --json p.json");
  ASSERT_EQ(p.code, 0) << p.err;
  // --json is the run's summary.json: the prediction is the program component's.
  const auto j = nlohmann::json::parse(test::read_file(dir / "p.json"));
  ASSERT_EQ(j["engine"], "program");
  double median = 0;
  for (const auto& c : j["runs"][0]["components"]) {
    if (c["component"] == "program" && c["name"] == "median_step_ns") median = c["value"].get<double>();
  }
  EXPECT_NEAR(median, 9.80e6, 0.01 * 9.80e6);
  const Outcome none = run_flashsim(dir.path(), "predict " + trace + " --skip-steps 18");
  EXPECT_EQ(none.code, 2);
  // In predict's words: the trace and its option, checked on the step marks before the simulation.
  EXPECT_NE(none.err.find("flashsim predict: error: " + trace +
                          ": --skip-steps 18: the capture has 19 step marks (rule 'nvtx:flashsim.step'), which "
                          "leaves no step to measure"),
            std::string::npos)
      << none.err;
  const Outcome regime = run_flashsim(dir.path(), "predict " + trace + " --skip-steps 10 --regime 3");
  EXPECT_EQ(regime.code, 2);
  EXPECT_NE(regime.err.find(": --regime 3: the program has 1 regime(s), numbered from 0"), std::string::npos)
      << regime.err;
  // Both spellings of the engine's fresh_pages choice.
  for (const char* fresh : {"per_copy", "per-copy"}) {
    const Outcome f = run_flashsim(dir.path(), "predict " + trace + " --skip-steps 10 --fresh-pages " + fresh);
    EXPECT_EQ(f.code, 0) << fresh << ": " << f.err;
  }
  const std::string v1 = std::string(FLASHSIM_SOURCE_DIR) + "/hw/capture/example/offload_stream.capture.h5";
  const Outcome old = run_flashsim(dir.path(), "predict " + v1);
  EXPECT_EQ(old.code, 2);
  EXPECT_NE(old.err.find("offload_stream.capture.h5: the trace has no program"), std::string::npos) << old.err;
}

TEST(Cli, OutOptionChoosesTheFolder) {
  test::TempDir dir;
  test::write_file(dir / "trace.csv", test::cyclic_csv(2, 2, 10));
  test::write_file(dir / "s.yaml", "workload: {trace: trace.csv}\ncache: {capacity: 10B}\npolicies: [lru]\n");
  const Outcome o = run_flashsim(dir.path(), "run s.yaml --out there");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_TRUE(std::filesystem::exists(dir / "there/results.h5"));
  EXPECT_TRUE(std::filesystem::exists(dir / "there/summary.json"));
}

TEST(Cli, AFolderRunsEveryScenarioInItIntoItsOwnResults) {
  test::TempDir dir;
  std::filesystem::create_directories(dir / "set");
  test::write_file(dir / "trace.csv", test::cyclic_csv(2, 2, 10));
  test::write_file(dir / "set/b.yaml", "name: bee\nworkload: {trace: ../trace.csv}\ncache: {capacity: 10B}\npolicies: [lru]\n");
  test::write_file(dir / "set/a.yaml", "name: ay\nworkload: {trace: ../trace.csv}\ncache: {capacity: 10B}\npolicies: [fifo]\n");
  test::write_file(dir / "set/notes.txt", "not a scenario");
  const Outcome o = run_flashsim(dir.path(), "run set --out all");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_LT(o.out.find("== set/a.yaml"), o.out.find("== set/b.yaml")) << o.out;  // sorted
  EXPECT_TRUE(std::filesystem::exists(dir / "all/ay/summary.json"));
  EXPECT_TRUE(std::filesystem::exists(dir / "all/bee/summary.json"));

  // A bad file anywhere in the folder stops everything before anything runs.
  test::write_file(dir / "set/c.yaml", "name: sea\nworkload: {trace: ../trace.csv}\ncache: {capacity: 10 parsecs}\n");
  const Outcome bad = run_flashsim(dir.path(), "run set --out again");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("c.yaml"), std::string::npos) << bad.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "again"));

  std::filesystem::create_directories(dir / "empty");
  const Outcome empty = run_flashsim(dir.path(), "run empty");
  EXPECT_EQ(empty.code, 2);
  EXPECT_NE(empty.err.find("holds no .yaml files"), std::string::npos) << empty.err;
}

TEST(Cli, AHugeOrBinaryScenarioIsRefusedWithoutReadingItAll) {
  test::TempDir dir;
  test::write_file(dir / "big.yaml", std::string((16u << 20) + 1, 'x'));
  const Outcome o = run_flashsim(dir.path(), "run big.yaml");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("big.yaml: larger than 16 MiB: not a scenario or profile file"), std::string::npos) << o.err;
}

TEST(Cli, BadInputExitsTwoAndWritesNothing) {
  test::TempDir dir;
  test::write_file(dir / "trace.csv", test::cyclic_csv(2, 2, 10));
  test::write_file(dir / "s.yaml", "workload: {trace: trace.csv}\ncache: {capacity: 10 bytes}\npolicies: [lru]\n");
  Outcome o = run_flashsim(dir.path(), "run s.yaml");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("s.yaml:2:19: key 'cache.capacity'"), std::string::npos) << o.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "flashsim-results"));

  o = run_flashsim(dir.path(), "run missing.yaml");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("missing.yaml: cannot open file"), std::string::npos) << o.err;
  o = run_flashsim(dir.path(), "run s.yaml --jobs many");
  EXPECT_EQ(o.code, 2);
  o = run_flashsim(dir.path(), "frobnicate");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("unknown command 'frobnicate'"), std::string::npos);
}

TEST(Cli, PrintScenarioShowsDefaults) {
  test::TempDir dir;
  test::write_file(dir / "trace.csv", test::cyclic_csv(2, 2, 10));
  test::write_file(dir / "s.yaml", "workload: {trace: trace.csv}\ncache: {capacity: 10B}\npolicies: [mlru]\n");
  const Outcome o = run_flashsim(dir.path(), "run s.yaml --print-scenario");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("miss_penalty: 142ns"), std::string::npos) << o.out;  // seed-defaults
  EXPECT_NE(o.out.find("age_window: 500ms"), std::string::npos) << o.out;
  EXPECT_FALSE(std::filesystem::exists(dir / "flashsim-results"));
}

TEST(Cli, PoliciesListsParams) {
  test::TempDir dir;
  const Outcome o = run_flashsim(dir.path(), "policies");
  ASSERT_EQ(o.code, 0) << o.err;
  for (const char* name : {"lru", "arc", "s3fifo", "belady", "mlru", "age_window", "reading"}) {
    EXPECT_NE(o.out.find(name), std::string::npos) << name;
  }
  const Outcome one = run_flashsim(dir.path(), "policies mlru --all");
  EXPECT_EQ(one.code, 0);
  EXPECT_EQ(one.out.find("  lru —"), std::string::npos);
  EXPECT_NE(one.out.find("slot allocators"), std::string::npos);
  EXPECT_EQ(run_flashsim(dir.path(), "policies nosuch").code, 2);
  const Outcome v = run_flashsim(dir.path(), "--version");
  EXPECT_EQ(v.code, 0);
  EXPECT_EQ(v.out.rfind("flashsim ", 0), 0u) << v.out;
}

TEST(Cli, EmbeddedDefaultScenario) {
  // The default scenario always parses; it runs when its trace was embedded
  // (scenarios/data/llama-2048x22.* at build time).
  const ScenarioDocument doc = ScenarioDocument::builtin_default();
  EXPECT_EQ(doc.points().size(), 3u);
  test::TempDir dir;
  const Outcome o = run_flashsim(dir.path(), "run");
  if (find_embedded_data("llama-2048x22") == nullptr) {
    EXPECT_EQ(o.code, 2);
    EXPECT_NE(o.err.find("no built-in trace 'llama-2048x22'"), std::string::npos) << o.err;
    // The default must be self-contained: in CI a missing trace is a defect.
    if (test::running_in_ci()) FAIL() << "scenarios/data/llama-2048x22.* was not embedded";
    GTEST_SKIP() << "scenarios/data/llama-2048x22.* not embedded in this build";
  }
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("embedded default scenario"), std::string::npos);
  EXPECT_NE(o.out.find("results: flashsim-results/default/results.h5"), std::string::npos) << o.out;
  // The cyclic scan's closed forms (see RunnerTest.RecordedH200TraceClosedForms).
  const auto j = nlohmann::json::parse(test::read_file(dir / "flashsim-results/default/summary.json"));
  for (const auto& run : j["runs"]) {
    const double f = run["capacity_bytes"].get<double>() / run["footprint_bytes"].get<double>();
    if (run["policy"] == "lru") {
      EXPECT_EQ(run["hits"], 0) << f;
    }
    if (run["policy"] == "belady") {
      EXPECT_NEAR(run["hit_ratio_by_byte"].get<double>(), f * 7 / 8, 0.03) << f;
    }
  }
}

}  // namespace
}  // namespace flashsim

namespace flashsim {
namespace {

TEST(Cli, BadNumbersAndOutputFoldersFailBeforeSimulating) {
  test::TempDir dir;
  test::write_file(dir / "trace.csv", test::cyclic_csv(2, 2, 10));
  test::write_file(dir / "s.yaml", "workload: {trace: trace.csv}\ncache: {capacity: 10B}\npolicies: [lru]\n");
  test::write_file(dir / "a-file", "");
  Outcome o = run_flashsim(dir.path(), "run s.yaml --jobs -1");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("--jobs -1"), std::string::npos) << o.err;
  o = run_flashsim(dir.path(), "run s.yaml --out a-file");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("results folder 'a-file'"), std::string::npos) << o.err;
  EXPECT_EQ(o.out.find("hit/acc"), std::string::npos) << "no table: the folder is checked first";
  o = run_flashsim(dir.path(), "trace stats trace.csv --mrc-points -3");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("--mrc-points -3"), std::string::npos) << o.err;
}

}  // namespace
}  // namespace flashsim
