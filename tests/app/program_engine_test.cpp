// `engine: program` through the scenario runner on the committed capture of
// the double-buffered prefetch program
// (validate/programs/scenarios/double_buffer_whatif.yaml).
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "sim/metrics/component_stats.h"

#include "sim/core/errors.h"
#include "sim/run/scenario_runner.h"
#include "sim/scenario/scenario_document.h"
#include "tests/support/temp_dir.h"

namespace flashsim {
namespace {

const std::string kScenario = std::string(FLASHSIM_SOURCE_DIR) + "/validate/programs/scenarios/double_buffer_whatif.yaml";

TEST(ProgramEngine, ScenarioSweepsPoliciesAndHostMemoryOverACapturedProgram) {
  RunnerOptions options;
  options.jobs = 1;
  const ScenarioResults r = run_scenario(ScenarioDocument::from_file(kScenario), options);
  ASSERT_EQ(r.runs.size(), 6u);  // 2 points x (as_recorded, lru, belady)
  auto tpot = [&](std::size_t i) { return r.runs[i].result.metrics.serving.tpot_p50_ns; };
  for (const RunResult& run : r.runs) EXPECT_EQ(run.engine, "program");
  // as_recorded = the committed baseline prediction (baseline.json: 9.80 ms).
  EXPECT_NEAR(tpot(0), 9.80e6, 0.01 * 9.80e6);
  // as_recorded: every access a miss served by the program's own copy.
  const AccessCounters& rec = r.runs[0].result.metrics.total;
  EXPECT_EQ(rec.hits, 0u);
  EXPECT_EQ(rec.misses, rec.accesses);
  // LRU never hits, so it fetches what the program copied H2D, plus its D2H
  // writes (147,456 B of outputs, allocated in the tier as write misses).
  EXPECT_EQ(rec.bytes_fetched + 147456, r.runs[1].result.metrics.total.bytes_fetched);
  // A cyclic scan of 16 equal weights at half the footprint: LRU never hits,
  // so it is the program as recorded; Belady keeps part of the cycle and
  // never loses (fewer bytes to copy, never a longer step).
  EXPECT_EQ(r.runs[1].result.metrics.total.hits, 0u);
  EXPECT_NEAR(tpot(1), tpot(0), 0.001 * tpot(0));
  EXPECT_GT(r.runs[2].result.metrics.total.hits, 0u);
  EXPECT_LT(tpot(2), tpot(0));
  // Pageable weights: every copy staged and blocking, several times slower
  // (the committed what-if prediction: 77.9 ms).
  EXPECT_NEAR(tpot(3), 77.9e6, 0.01 * 77.9e6);
  EXPECT_LE(tpot(5), tpot(3));
}

TEST(ProgramEngine, AsRecordedNeedsTheProgramEngineAndAProgram) {
  test::TempDir dir;
  auto write = [&](const std::string& text) {
    std::ofstream(dir / "s.yaml") << text;
    return dir / "s.yaml";
  };
  const std::string trace = std::string(FLASHSIM_SOURCE_DIR) + "/validate/baselines/h200/programs/double_buffer_prefetch.h5";
  try {
    ScenarioDocument::from_file(write("name: x\nhardware: {profile: h200-calibrated}\nworkload: {trace: " + trace +
                                      "}\ncache: {capacity: 1GiB}\npolicies: [as_recorded]\n"))
        .resolve(ScenarioDocument::from_file(dir / "s.yaml").points().front());
    ADD_FAILURE() << "as_recorded accepted with the event engine";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("key 'policies.0': engine 'event' does not use the policy as_recorded (used by: program)"), std::string::npos) << e.what();
  }
  // The program engine's workload keys are refused elsewhere, not ignored.
  try {
    ScenarioDocument::from_file(write("name: x\nhardware: {profile: h200-calibrated}\nworkload: {trace: " + trace +
                                      ", host_memory: pinned}\ncache: {capacity: 1GiB}\npolicies: [lru]\n"))
        .resolve(ScenarioDocument::from_file(dir / "s.yaml").points().front());
    ADD_FAILURE() << "workload.host_memory accepted with the event engine";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("key 'workload.host_memory': engine 'event' has no parameter host_memory (a parameter of engine program"), std::string::npos) << e.what();
  }
  // A schema-1 trace has no program: the run names the trace.
  const std::string v1 = std::string(FLASHSIM_SOURCE_DIR) + "/hw/capture/example/offload_stream.capture.h5";
  RunnerOptions options;
  options.jobs = 1;
  // as_recorded alone keeps no fast tier: a capacity would be read by no run.
  try {
    (void)resolve_points(ScenarioDocument::from_file(write("name: x\nengine: {impl: program}\nhardware: {profile: "
                                                          "h200-calibrated}\nworkload: {trace: " + v1 +
                                                          "}\ncache: {capacity: 1GiB}\npolicies: [as_recorded]\n")));
    ADD_FAILURE() << "cache.capacity accepted with as_recorded alone";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("s.yaml:5:19: key 'cache.capacity': every policy is as_recorded"),
              std::string::npos) << e.what();
  }
  // A sweep whose other point keeps a tier reads it there: accepted.
  EXPECT_EQ(resolve_points(ScenarioDocument::from_file(write("name: x\nengine: {impl: program}\nhardware: {profile: "
                                                             "h200-calibrated}\nworkload: {trace: " + v1 +
                                                             "}\ncache: {capacity: 1GiB}\npolicies: [as_recorded]\n"
                                                             "sweep: {policies: [[as_recorded], [as_recorded, lru]]}\n")))
                .size(),
            2u);
  try {
    run_scenario(ScenarioDocument::from_file(write("name: x\nengine: {impl: program}\nhardware: {profile: h200-calibrated}\n"
                                                   "workload: {trace: " + v1 + "}\n"
                                                   "policies: [as_recorded]\n")),
                 options);
    ADD_FAILURE() << "a trace without a program ran";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("has no program"), std::string::npos) << e.what();
  }
}

// Each of the program engine's parameters changes what a run reports (the
// program component's numbers or texts), so none is accepted and ignored;
// as_recorded alone needs no cache.capacity.
TEST(ProgramEngine, EveryParameterChangesThePrediction) {
  test::TempDir dir;
  RunnerOptions options;
  options.jobs = 1;
  auto run = [&](const std::string& params, const std::string& program = "double_buffer_prefetch",
                 const std::string& hardware = "") {
    const std::string trace =
        std::string(FLASHSIM_SOURCE_DIR) + "/validate/baselines/h200/programs/" + program + ".h5";
    const std::string text = std::string("name: x\nengine: {impl: program") + (params.find("skip_steps") == std::string::npos ? ", skip_steps: 1" : "") + params +
                             "}\nhardware: {profile: h200-calibrated" + hardware + "}\nworkload: {trace: " + trace +
                             "}\npolicies: [as_recorded]\n";
    const ScenarioResults r = run_scenario(ScenarioDocument::from_text(text, "t.yaml", dir.path()), options);
    return r.runs.at(0).result.components;
  };
  auto figures = [](const ComponentStats& c) {
    std::string out;
    for (const ComponentStat& s : c.rows) out += s.name + "=" + std::to_string(s.value) + " ";
    for (const ComponentText& t : c.texts) {
      if (t.name != "regime") out += t.name + "=" + t.text + " ";  // that one only echoes the parameter
    }
    return out;
  };
  const ComponentStats base = run("");
  ASSERT_NE(base.find("program", "median_step_ns"), nullptr);
  EXPECT_NEAR(base.find("program", "copies")->value, 308, 0);
  for (const std::string p : {", host_memory: pageable", ", skip_steps: 3", ", host_time: recorded",
                              ", capture_gap: 20us", ", copy_curves: fit", ", fresh_pages: all",
                              ", recorded_copy_time: true", ", static_placement: 1GiB", ", prefetch_distance: 2"}) {
    const ComponentStats with = run(p);
    EXPECT_NE(figures(with), figures(base)) << p << " changes nothing";
  }
  // hardware.execution is the engine's part of a profile written inline.
  EXPECT_NE(figures(run("", "double_buffer_prefetch", ", execution: {api_launch: 30us}")), figures(base));
  // Static placement removes copies; the same bytes resident as predict --static-placement.
  EXPECT_GT(run(", static_placement: 1GiB").find("program", "copies_removed")->value, 0);
  // This capture has one regime; the accelerate offload's first steps run slower than the rest.
  const std::string two = "accel_cpu_offload_llama";
  EXPECT_GT(run(", regime: first", two).find("program", "recorded_median_step_ns")->value,
            run(", regime: steady", two).find("program", "recorded_median_step_ns")->value);
  // A regime that is not there, and text that is no regime, are named.
  EXPECT_THROW(run(", regime: 7"), InputError);
  EXPECT_THROW(run(", regime: warm"), InputError);
  EXPECT_THROW(run(", capture_gap: soon"), InputError);
}

// The scenario keys the program engine declares change its runs on a
// captured program (the refusal of the others: engine_registry_test.cpp).
// cache.size_change is read by the same access protocol but no committed
// capture has a block whose size changes; cache.granularity is refused (pieces
// would renumber the records the program's copies name).
TEST(ProgramEngine, TheScenarioKeysItReadsChangeItsRuns) {
  test::TempDir dir;
  RunnerOptions options;
  options.jobs = 1;
  auto run = [&](const std::string& program, const std::string& cache, const std::string& policy) {
    const std::string trace = std::string(FLASHSIM_SOURCE_DIR) + "/validate/baselines/h200/programs/" + program + ".h5";
    const std::string text = "name: x\nengine: {impl: program, skip_steps: 1}\nhardware: {profile: h200-calibrated}\n"
                             "workload: {trace: " + trace + "}\ncache: {capacity: 30%" + cache + "}\npolicies: [" +
                             policy + "]\n";
    return run_scenario(ScenarioDocument::from_text(text, "t.yaml", dir.path()), options).runs.at(0).result.metrics.total;
  };
  const std::string kv = "transformers_kv_offload";
  const AccessCounters base = run(kv, "", "lru");
  EXPECT_NE(run(kv, ", allocator: first_fit", "lru").bytes_fetched, base.bytes_fetched);
  EXPECT_NE(run(kv, ", pin: {blocks: [0, 1, 2, 3]}", "lru").bytes_fetched, base.bytes_fetched);
  EXPECT_NE(run(kv, "", "{impl: lru, admission: {impl: doorkeeper}}").bytes_fetched, base.bytes_fetched);
  try {
    run(kv, ", granularity: 1MiB", "lru");
    ADD_FAILURE() << "cache.granularity accepted by the program engine";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("key 'cache.granularity': engine 'program' does not use it"), std::string::npos)
        << e.what();
  }
}

// skip_steps and a regime number are checked against the capture for every
// point of a sweep before its first run, not when the point comes.
TEST(ProgramEngine, StepsBeyondTheCaptureFailTheSweepBeforeAnyRun) {
  test::TempDir dir;
  std::ofstream(dir / "s.yaml") << "name: x\nengine: {impl: program}\nhardware: {profile: h200-calibrated}\n"
                                   "workload: {trace: " << FLASHSIM_SOURCE_DIR
                                << "/validate/baselines/h200/programs/double_buffer_prefetch.h5}\n"
                                   "policies: [as_recorded]\nsweep: {engine.skip_steps: [0, 500]}\n";
  std::size_t runs = 0;
  RunnerOptions options;
  options.jobs = 1;
  options.on_point_done = [&](std::size_t, const std::vector<RunResult>&) { ++runs; };
  try {
    (void)run_scenario(ScenarioDocument::from_file(dir / "s.yaml"), options);
    ADD_FAILURE() << "skip_steps 500 of 19 step marks ran";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("s.yaml [point engine.skip_steps=500]: engine.skip_steps 500: the capture has "
                                         "19 step marks"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(runs, 0u);  // not even the first point
}

// The engine's text parameters have rules of their own (ParamSpec::check):
// a bad value is refused when the scenario is read, at its line, not when
// the run starts.
TEST(ProgramEngine, TextParametersAreCheckedWhereTheyAreWritten) {
  test::TempDir dir;
  const std::string trace = std::string(FLASHSIM_SOURCE_DIR) + "/validate/baselines/h200/programs/double_buffer_prefetch.h5";
  auto error = [&](const std::string& params) {
    std::ofstream(dir / "s.yaml") << "name: x\nengine: {impl: program, " << params
                                  << "}\nhardware: {profile: h200-calibrated}\nworkload: {trace: " << trace
                                  << "}\npolicies: [as_recorded]\n";
    try {
      const ScenarioDocument d = ScenarioDocument::from_file(dir / "s.yaml");
      (void)d.resolve(d.points().front());
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(error("capture_gap: 2xx").find("s.yaml:2:38: key 'engine.capture_gap': '2xx' is neither measured nor a "
                                           "duration (e.g. 2us)"),
            std::string::npos)
      << error("capture_gap: 2xx");
  EXPECT_NE(error("regime: fast").find("s.yaml:2:33: key 'engine.regime': 'fast': expected steady, first, all or a "
                                       "regime number"),
            std::string::npos)
      << error("regime: fast");
  EXPECT_EQ(error("capture_gap: 2us, regime: 0"), "");
  EXPECT_NE(error("regime: 99999999999999999999999").find("key 'engine.regime': regime 99999999999999999999999: more "
                                                           "than 100000000"),
            std::string::npos)
      << error("regime: 99999999999999999999999");
  // A sweep value is checked as well, at its own line.
  std::ofstream(dir / "s.yaml") << "name: x\nengine: {impl: program}\nhardware: {profile: h200-calibrated}\n"
                                   "workload: {trace: " << trace << "}\npolicies: [as_recorded]\n"
                                   "sweep:\n  engine.capture_gap: [measured, 1 parsec]\n";
  try {
    (void)resolve_points(ScenarioDocument::from_file(dir / "s.yaml"));
    ADD_FAILURE() << "a bad swept capture_gap was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("'1 parsec' is neither measured nor a duration"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace flashsim
