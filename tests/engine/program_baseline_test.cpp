// The real-program suite's committed H200 baseline
// (validate/baselines/h200/programs/baseline.json): every captured trace is
// predicted again with the calibrated profile; the prediction must stay
// within 1% of the committed one (a model change updates the baseline and
// VALIDATION.md), and the programs marked within_target within 10% of the
// measured median.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/engine/program/program_executor.h"
#include "sim/scenario/hardware_loader.h"
#include "tests/support/shared_data.h"
#include "traces/stats/footprint.h"
#include "traces/trace_formats.h"

namespace flashsim {
namespace {

const std::string kDir = std::string(FLASHSIM_SOURCE_DIR) + "/validate/baselines/h200/programs/";

TEST(ProgramBaseline, PredictionsMatchTheCommittedBaselineAndTheTargets) {
  std::ifstream in(kDir + "baseline.json");
  ASSERT_TRUE(in) << kDir << "baseline.json";
  const nlohmann::json baseline = nlohmann::json::parse(in);
  const HardwareProfile hw =
      load_hardware_profile(std::string(FLASHSIM_SOURCE_DIR) + "/scenarios/hardware/h200-calibrated.yaml");
  ASSERT_TRUE(hw.execution.calibrated);
  const std::size_t default_skip = baseline.at("skip_steps").get<std::size_t>();
  int within = 0;
  for (const auto& [name, entry] : baseline.at("programs").items()) {
    SCOPED_TRACE(name);
    const std::size_t skip = entry.value("skip_steps", default_skip);
    auto source = open_trace(kDir + name + ".h5");
    const TraceMeta meta = source->meta();
    ASSERT_TRUE(meta.program) << "no program in the trace";
    const ProgramPrediction p = run_program(meta, read_all_records(*source), hw, ExecutorOptions{});
    ASSERT_GE(p.step_durations(skip).size(), 5u);
    const double predicted = p.median_step_ns(skip) / 1e6;
    const double committed = entry.at("predicted_ms").get<double>();
    EXPECT_NEAR(predicted, committed, 0.01 * committed) << "the model's prediction moved: update baseline.json";
    const double measured = entry.at("measured_ms").get<double>();
    if (entry.at("within_target").get<bool>()) {
      ++within;
      EXPECT_LE(std::abs(predicted - measured) / measured, 0.10) << "predicted " << predicted << " measured " << measured;
    }
  }
  EXPECT_EQ(within, 5);
}

// Fast-tier what-ifs of the run-ahead-8 replay, predicted from its no-cache
// capture and committed before the replay measured them (baseline.json
// "whatifs"): the prediction must stay where it was committed, and within
// 5% of the measurement (the target for the replay).
TEST(ProgramBaseline, TheReplaysFastTierWhatIfsStayWithinFivePercent) {
  std::ifstream in(kDir + "baseline.json");
  const nlohmann::json baseline = nlohmann::json::parse(in);
  const HardwareProfile hw =
      load_hardware_profile(std::string(FLASHSIM_SOURCE_DIR) + "/scenarios/hardware/h200-calibrated.yaml");
  int checked = 0;
  for (const auto& [name, w] : baseline.at("whatifs").items()) {
    if (name.front() == '_') continue;
    SCOPED_TRACE(name);
    auto source = open_trace(kDir + w.at("trace").get<std::string>() + ".h5");
    const TraceMeta meta = source->meta();
    ExecutorOptions o;
    o.as_recorded = false;
    o.cache.eviction.impl = w.at("policy").get<std::string>();
    o.cache.capacity_bytes = static_cast<ByteCount>(w.at("capacity_fraction").get<double>() *
                                                    static_cast<double>(measure_footprint(*source).bytes));
    const ProgramPrediction p = run_program(meta, read_all_records(*source), hw, o);
    const double predicted = p.median_step_ns(0) / 1e6;
    EXPECT_NEAR(predicted, w.at("predicted_ms").get<double>(), 0.01 * w.at("predicted_ms").get<double>());
    const double measured = w.at("measured_ms").get<double>();
    EXPECT_LE(std::abs(predicted - measured) / measured, 0.05) << "predicted " << predicted << " measured " << measured;
    ++checked;
  }
  EXPECT_EQ(checked, 2);
}

// The seed's own recording (../shared/traces/torch-offload-h200: accelerate
// cpu_offload, Llama 2048x22, a torch.profiler trace made by someone else):
// its program read from Kineto's runtime calls, predicted with the
// calibrated profile, against the recording's own per-token time (its
// summary: wall 2923.06 ms / 8 tokens = 365.38 ms).
TEST(ProgramBaseline, TheSeedsKinetoRecordingIsPredictedWithinTenPercent) {
  FLASHSIM_REQUIRE_SHARED(path, "traces/torch-offload-h200/llama-2048x22.trace.json.gz");
  const HardwareProfile hw =
      load_hardware_profile(std::string(FLASHSIM_SOURCE_DIR) + "/scenarios/hardware/h200-calibrated.yaml");
  auto source = open_trace(path);
  const TraceMeta meta = source->meta();
  ASSERT_TRUE(meta.program);
  EXPECT_EQ(meta.schema_version, 2);
  EXPECT_EQ(meta.program->thread_count, 1u);
  const ProgramPrediction p = run_program(meta, read_all_records(*source), hw, ExecutorOptions{});
  ASSERT_EQ(p.step_start_ns.size(), 8u);  // one mark per forward pass: the 8 generated tokens
  const double predicted = p.median_step_ns(0) / 1e6;
  EXPECT_NEAR(predicted, 373.13, 0.01 * 373.13) << "the model's prediction moved: update VALIDATION.md";
  EXPECT_LE(std::abs(predicted - 365.38) / 365.38, 0.10);
  EXPECT_EQ(p.copies, 1648u);  // every gpu_memcpy of the recording
}

}  // namespace
}  // namespace flashsim
