// Engines as registered components (sim/engine/engine_registry.h): a new
// engine is one class and one registration line (the test's own below);
// every optional scenario key is read by its engine or refused, naming the
// engines that read it; the old spellings still resolve, with a note.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "sim/core/warnings.h"
#include "sim/engine/engine_registry.h"
#include "sim/results/metric_schema.h"
#include "sim/results/results_writer.h"
#include "sim/run/scenario_runner.h"
#include "sim/scenario/engine_section.h"
#include "tests/app/app_test_util.h"
#include "tests/app/h5_dump.h"
#include "tests/support/temp_dir.h"

namespace flashsim {
namespace {

// A tiny engine: reports the hits its parameter says, reads nothing
// optional; states its run index as a component of each kind (a number, a
// text, a series) and, given a results folder, writes a file there.
class ConstantEngine final : public IEngine {
 public:
  ConstantEngine(std::uint64_t hits, EngineContext context) : hits_(hits), context_(std::move(context)) {}
  EngineResult run(ITraceSource&, const EngineConfig&) override {
    EngineResult r;
    r.metrics.total.hits = hits_;
    const std::string run = std::to_string(context_.run_index);
    r.components.add("constant", "run", "count", static_cast<double>(context_.run_index));
    r.components.add_text("constant", "label", "run " + run);
    r.components.add_series("constant", "ramp", "ns", {0.0, static_cast<double>(context_.run_index)});
    if (!context_.artifacts_dir.empty()) {
      std::filesystem::create_directories(context_.artifacts_dir);
      test::write_file(context_.artifacts_dir / ("constant_" + run + ".txt"), run);
    }
    return r;
  }

 private:
  std::uint64_t hits_;
  EngineContext context_;
};

FLASHSIM_REGISTER(EngineRegistry,
                  (EngineRegistry::Entry{"test_constant", "a test's engine: a constant hit count",
                                         {{"hits", ParamType::integer, "0", "hits to report", 0, 1e12, {}}},
                                         [](const ParamValues& v, const EngineContext& c) -> std::unique_ptr<IEngine> {
                                           return std::make_unique<ConstantEngine>(static_cast<std::uint64_t>(v.integer("hits")), c);
                                         },
                                         {}}));

using test::resolve_error;

// Where each optional key goes in the scenario below, and a value that asks for something.
struct Snippet {
  std::string top, workload, cache, policies = "lru";
};
const std::map<std::string, Snippet>& snippets() {
  static const std::map<std::string, Snippet> s = {
      {"hardware", {"hardware: {profile: seed-defaults}\n", "", ""}},
      {"hardware.l2", {"hardware: {profile: seed-defaults, l2: {capacity: 2KiB, line_size: 128B}}\n", "", ""}},
      {"hardware.tlb", {"hardware: {profile: seed-defaults, tlb: {entries: 2, page_size: 1KiB, miss_penalty: 1us}}\n", "", ""}},
      {"hardware.contention", {"hardware: {profile: seed-defaults, contention: {ns_per_mib: 1000000}}\n", "", ""}},
      {"hardware.miss_penalty", {"hardware: {profile: seed-defaults, miss_penalty: 5us}\n", "", ""}},
      {"hardware.execution", {"hardware: {profile: seed-defaults, execution: {api_launch: 3us}}\n", "", ""}},
      {"workload.issue", {"", ", issue: timestamp", ""}},
      {"workload.gap", {"", ", gap: 1us", ""}},
      {"decision_clock", {"decision_clock: engine\n", "", ""}},
      {"prefetch", {"prefetch: [lookahead]\n", "", ""}},
      {"policies.prefetch", {"", "", "", "{impl: lru, prefetch: [lookahead]}"}},
      {"policies.admission", {"", "", "", "{impl: lru, admission: doorkeeper}"}},
      {"policies.as_recorded", {"", "", "", "as_recorded"}},
      {"bandwidth.segment_shares", {"bandwidth: {segment_shares: {decoder: 50%}}\n", "", ""}},
      {"bandwidth.reservation", {"bandwidth: {reservation: {enabled: true}}\n", "", ""}},
      {"serving.kv_resident", {"serving: {kv_resident: true}\n", "", ""}},
      {"serving.occupancy_window", {"serving: {occupancy_window: 1ms}\n", "", ""}},
      {"outputs.window", {"outputs: {window: 1ms}\n", "", ""}},
      {"cache.granularity", {"", "", ", granularity: 512B"}},
      {"cache.allocator", {"", "", ", allocator: bytes"}},
      {"cache.pin", {"", "", ", pin: {blocks: [0]}"}},
      {"cache.size_change", {"", "", ", size_change: hit"}},
      {"cache.ignore_sizes", {"", "", ", ignore_sizes: true"}},
  };
  return s;
}

std::string scenario(const std::string& engine, const Snippet& s) {
  return "name: t\nengine: {impl: " + engine + "}\n" + s.top + "workload: {trace: trace.csv" + s.workload +
         "}\ncache: {capacity: 50%" + s.cache + "}\npolicies: [" + s.policies + "]\n";
}

bool declares(const EngineRegistry::Entry& e, const std::string& key) {
  for (const auto& u : e.traits.uses) {
    if (u == key) return true;
  }
  return false;
}

TEST(EngineRegistry, EveryOptionalKeyIsReadByItsEngineOrRefusedNamingTheEnginesThatReadIt) {
  test::TempDir dir;
  ASSERT_EQ(snippets().size(), scenario_feature_keys().size());
  for (const std::string& key : scenario_feature_keys()) {
    ASSERT_TRUE(snippets().count(key)) << key;
    std::string readers;
    for (const auto* e : EngineRegistry::instance().entries()) {
      if (declares(*e, key)) readers += (readers.empty() ? "" : ", ") + e->name;
    }
    EXPECT_FALSE(readers.empty()) << key << " is read by no engine";
    for (const auto* e : EngineRegistry::instance().entries()) {
      const std::string error = resolve_error(dir.path(), scenario(e->name, snippets().at(key)));
      const std::string refusal = "engine '" + e->name + "' does not use";
      if (declares(*e, key)) {
        EXPECT_EQ(error.find(refusal), std::string::npos) << e->name << " reads " << key << ": " << error;
      } else {
        EXPECT_NE(error.find(refusal), std::string::npos) << e->name << " and " << key << ": " << error;
        EXPECT_NE(error.find("(used by: " + readers + ")"), std::string::npos) << error;
        EXPECT_NE(error.find("s.yaml:"), std::string::npos) << error;  // file and line
      }
    }
  }
}

// A trace where each optional key can show: reuse at several distances,
// a block whose size changes, gaps between accesses, three requests interleaved.
std::string varied_csv() {
  std::string text = "time_ns,block_id,bytes,stream_id,request_id,token_index,phase\n";
  const int blocks[] = {0, 1, 0, 2, 0, 3, 1, 4, 0, 5, 2, 0, 6, 1, 0, 7, 3, 0, 1, 2};
  long long t = 0;
  for (int round = 0; round < 3; ++round) {
    for (const int b : blocks) {
      const int bytes = b == 0 && round == 2 ? 3072 : 1024;
      text += std::to_string(t) + "," + std::to_string(b) + "," + std::to_string(bytes) + ",0," +
              std::to_string(b % 3 + 1) + "," + std::to_string(round) + (round == 0 ? ",prefill\n" : ",decode\n");
      t += 200000;
    }
  }
  return text;
}

// The run's summary.json entry without what varies between identical runs.
nlohmann::json run_outcome(const std::filesystem::path& dir, const std::string& text) {
  test::write_file(dir / "s.yaml", text);
  const std::filesystem::path out = dir / "out";
  std::filesystem::remove_all(out);
  write_results(out, run_scenario(ScenarioDocument::from_file(dir / "s.yaml", {}), RunnerOptions{}));
  nlohmann::json run = nlohmann::json::parse(test::read_file(out / "summary.json")).at("runs").at(0);
  for (const char* k : {"wall_seconds", "accesses_per_second", "events_per_second"}) run.erase(k);
  nlohmann::json h5 = nlohmann::json::object();  // the time series, occupancy and requests too
  for (const auto& [path, value] : test::dump_h5((out / "results.h5").string(), "/host")) {
    if (path.rfind("/scenario", 0) != 0) h5[path] = value;  // the resolved text names every key given
  }
  return {{"summary", run}, {"h5", h5}};
}

// Each optional key an engine reads changes what its run reports (no
// silent acceptance: a key read but without effect would pass the refusal
// test above). On the engines that run a plain trace; the program engine's
// keys are checked on a captured program (tests/app/program_engine_test.cpp).
TEST(EngineRegistry, EveryKeyAnEngineReadsChangesItsResult) {
  test::TempDir dir;
  test::write_file(dir / "trace.csv", varied_csv());
  // What asks for an effect on this trace where the refusal test's snippet would not.
  std::map<std::string, Snippet> s = snippets();
  s["hardware"] = {"hardware: {profile: h200}\n", "", ""};
  s["cache.allocator"] = {"", "", ", allocator: first_fit"};
  s["policies.admission"] = {"", "", "", "{impl: lru, admission: {impl: doorkeeper}}"};
  s["serving.occupancy_window"] = {"serving: {occupancy_window: 1us}\n", "", ""};
  s["outputs.window"] = {"outputs: {window: 100us}\n", "", ""};
  s["bandwidth.reservation"] = {"bandwidth: {reservation: {enabled: true, base_bandwidth: 10TB/s}}\n", "", ""};
  for (const std::string engine : {"event", "cache_only"}) {
    const auto& entry = EngineRegistry::instance().find(engine);
    const nlohmann::json base = run_outcome(dir.path(), scenario(engine, Snippet{}));
    for (const std::string& key : entry.traits.uses) {
      if (key == "hardware" && engine == "cache_only") continue;  // only for a generated workload's roofline
      // This trace has no catalog: a segment share or KV pages held for
      // their request would change nothing, so the run refuses them (their
      // effect on a catalog: SegmentLocking and the KV tests in
      // tests/engine/serving_engine_test.cpp).
      if (key == "bandwidth.segment_shares" || key == "serving.kv_resident") {
        const std::string error = test::error_of<InputError>([&] { run_outcome(dir.path(), scenario(engine, s.at(key))); });
        EXPECT_NE(error.find(key == "serving.kv_resident" ? "serving.kv_resident: trace"
                                                          : "bandwidth.segment_shares.decoder: no block of trace"),
                  std::string::npos)
            << error;
        continue;
      }
      const nlohmann::json with = run_outcome(dir.path(), scenario(engine, s.at(key)));
      nlohmann::json diff = nlohmann::json::diff(base, with);
      EXPECT_FALSE(diff.empty()) << engine << " reads " << key << " but reports the same run with it";
    }
  }
}

TEST(EngineRegistry, ATestEngineIsOneRegistrationAndTakesItsOwnParameters) {
  test::TempDir dir;
  test::write_file(dir / "trace.csv", test::cyclic_csv(3, 2, 1024));
  test::write_file(dir / "s.yaml", "name: t\nengine: {impl: test_constant, hits: 7}\nworkload: {trace: trace.csv}\n"
                                   "cache: {capacity: 50%}\npolicies: [lru, fifo]\n");
  const ScenarioResults r = run_scenario(ScenarioDocument::from_file(dir / "s.yaml", {}), RunnerOptions{});
  ASSERT_EQ(r.runs.size(), 2u);
  EXPECT_EQ(r.runs[1].engine, "test_constant");
  EXPECT_EQ(r.runs[1].result.metrics.total.hits, 7u);
  EXPECT_NE(r.resolved_texts[0].find("hits: 7"), std::string::npos) << r.resolved_texts[0];
  EXPECT_NE(resolve_error(dir.path(), "name: t\nengine: {impl: test_constant, hit: 7}\nworkload: {trace: trace.csv}\n"
                                      "cache: {capacity: 50%}\npolicies: [lru]\n")
                .find("did you mean 'hits'"),
            std::string::npos);
}

// What an engine reports beyond the metric schema reaches every printer:
// numbers and texts in summary.json, all three kinds in results.h5; the run
// index and the results folder reach the engine.
TEST(EngineRegistry, AnEnginesComponentsOfEveryKindAreWrittenAndItsFilesGoInTheResultsFolder) {
  test::TempDir dir;
  test::write_file(dir / "trace.csv", test::cyclic_csv(3, 2, 1024));
  test::write_file(dir / "s.yaml", "name: t\nengine: {impl: test_constant}\nworkload: {trace: trace.csv}\n"
                                   "cache: {capacity: 50%}\npolicies: [lru, fifo]\n");
  RunnerOptions options;
  options.artifacts_dir = dir / "out";
  const ScenarioResults r = run_scenario(ScenarioDocument::from_file(dir / "s.yaml", {}), options);
  write_results(dir / "out", r);
  EXPECT_EQ(test::read_file(dir / "out" / "constant_0.txt"), "0");
  EXPECT_EQ(test::read_file(dir / "out" / "constant_1.txt"), "1");
  const nlohmann::json summary = nlohmann::json::parse(test::read_file(dir / "out" / "summary.json"));
  const nlohmann::json& run1 = summary.at("runs").at(1);
  EXPECT_EQ(run1.at("components").at(0).at("value"), 1.0);
  EXPECT_EQ(run1.at("component_texts"),
            nlohmann::json::parse(R"([{"component": "constant", "name": "label", "text": "run 1"}])"));
  const auto h5 = test::dump_h5((dir / "out" / "results.h5").string());
  const auto text = h5.find("/timeseries/run_001/components/texts/text");
  ASSERT_NE(text, h5.end());
  EXPECT_NE(text->second.find("run 1"), std::string::npos) << text->second;
  const auto ramp = h5.find("/timeseries/run_001/components/series/constant.ramp");
  ASSERT_NE(ramp, h5.end());
  EXPECT_NE(ramp->second.find("@unit="), std::string::npos) << ramp->second;
}

// Engines without texts write summaries as before: no component_texts key.
TEST(EngineRegistry, ASimulatorRunHasNoComponentTexts) {
  test::TempDir dir;
  test::write_file(dir / "trace.csv", test::cyclic_csv(3, 2, 1024));
  test::write_file(dir / "s.yaml", "name: t\nworkload: {trace: trace.csv}\ncache: {capacity: 50%}\npolicies: [lru]\n");
  write_results(dir / "out", run_scenario(ScenarioDocument::from_file(dir / "s.yaml", {}), RunnerOptions{}));
  const nlohmann::json summary = nlohmann::json::parse(test::read_file(dir / "out" / "summary.json"));
  EXPECT_FALSE(summary.at("runs").at(0).contains("component_texts"));
  EXPECT_FALSE(summary.at("runs").at(0).at("components").empty());  // the event engine's own
}

TEST(EngineRegistry, OldSpellingsResolveWithANote) {
  test::TempDir dir;
  std::string notes;
  const WarningSink previous = set_warning_sink([&](const std::string& m) { notes += m + "\n"; });
  EXPECT_EQ(resolve_error(dir.path(), "name: t\nengine: cache_only\nworkload: {trace: trace.csv}\ncache: {capacity: 50%}\n"
                                      "policies: [lru]\n"),
            "");
  EXPECT_NE(notes.find("`engine: cache_only` is the old spelling; write `engine: {impl: cache_only}`"), std::string::npos)
      << notes;
  // workload.skip_steps moved under engine: read from its old place, or refused when given twice.
  EXPECT_EQ(resolve_error(dir.path(), "name: t\nengine: program\nworkload: {trace: trace.csv, skip_steps: 2}\n"
                                      "cache: {capacity: 50%}\npolicies: [lru]\n"),
            "");
  EXPECT_NE(notes.find("key 'workload.skip_steps' moved under its engine; write `engine: {impl: program, skip_steps: 2}`"),
            std::string::npos)
      << notes;
  EXPECT_NE(resolve_error(dir.path(), "name: t\nengine: {impl: program, skip_steps: 1}\nworkload: {trace: trace.csv, "
                                      "skip_steps: 2}\ncache: {capacity: 50%}\npolicies: [lru]\n")
                .find("given twice"),
            std::string::npos);
  set_warning_sink(previous);
}

TEST(EngineRegistry, DeclaredStatisticsAreMetricsOfTheSchema) {
  for (const auto* e : EngineRegistry::instance().entries()) {
    for (const auto& s : e->traits.statistics) EXPECT_NO_THROW((void)metric_spec(s)) << e->name << ": " << s;
  }
}

}  // namespace
}  // namespace flashsim
