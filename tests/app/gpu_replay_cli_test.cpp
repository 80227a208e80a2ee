// The gpu_replay engine seen from the command line (registered by hw/ in
// builds with CUDA; these tests skip on a binary without it): its
// parameters resolve with their defaults, a key it does not read is
// refused, and without a GPU the run says so instead of running anything.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "tests/app/app_test_util.h"
#include "tests/support/temp_dir.h"

namespace flashsim {
namespace {

#ifdef FLASHSIM_BINARY
bool binary_has_gpu_replay(const std::filesystem::path& dir) {
  return test::run_flashsim(dir, "policies --all").out.find("gpu_replay —") != std::string::npos;
}

TEST(GpuReplayCli, ParametersResolveWithDefaultsAndAnUnusedKeyIsRefused) {
  test::TempDir dir;
  if (!binary_has_gpu_replay(dir.path())) GTEST_SKIP() << "this flashsim has no gpu_replay (built without CUDA)";
  const test::Outcome resolved =
      test::run_flashsim(dir.path(), "run --set 'engine={impl: gpu_replay, run_ahead: 16}' --print-scenario");
  ASSERT_EQ(resolved.code, 0) << resolved.err;
  for (const char* line : {"impl: gpu_replay", "run_ahead: 16", "backing: pinned", "copy_streams: 1", "access_log: true"}) {
    EXPECT_NE(resolved.out.find(line), std::string::npos) << line << "\n" << resolved.out;
  }
  const test::Outcome refused = test::run_flashsim(
      dir.path(), "run --set 'engine={impl: gpu_replay}' --set 'bandwidth={reservation: {enabled: true}}' --print-scenario");
  EXPECT_EQ(refused.code, 2);
  EXPECT_NE(refused.err.find("key 'bandwidth.reservation': engine 'gpu_replay' does not use it (used by: event)"), std::string::npos)
      << refused.err;
  // The replay holds KV pages for their request but samples no occupancy by kind.
  const test::Outcome sampled = test::run_flashsim(
      dir.path(), "run --set 'engine={impl: gpu_replay}' --set 'serving={occupancy_window: 1ms}' --print-scenario");
  EXPECT_EQ(sampled.code, 2);
  EXPECT_NE(sampled.err.find("key 'serving.occupancy_window': engine 'gpu_replay' does not use it (used by: event)"),
            std::string::npos)
      << sampled.err;
  const test::Outcome range = test::run_flashsim(dir.path(), "run --set 'engine={impl: gpu_replay, run_ahead: 0}' --print-scenario");
  EXPECT_EQ(range.code, 2);
  EXPECT_NE(range.err.find("run_ahead"), std::string::npos) << range.err;
}

TEST(GpuReplayCli, WithoutAGpuTheRunAndTheReplaySaySo) {
  test::TempDir dir;
  if (!binary_has_gpu_replay(dir.path())) GTEST_SKIP() << "this flashsim has no gpu_replay (built without CUDA)";
  if (std::system("nvidia-smi -L > /dev/null 2>&1") == 0) GTEST_SKIP() << "a GPU is present: tests/gpu runs the replay";
  const test::Outcome run = test::run_flashsim(dir.path(), "run --set 'engine={impl: gpu_replay}' --out o -q");
  EXPECT_EQ(run.code, 1);
  EXPECT_NE(run.err.find("engine gpu_replay: no CUDA device visible"), std::string::npos) << run.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "o" / "summary.json"));
  const test::Outcome replay = test::run_flashsim(dir.path(), "replay --out r");
  EXPECT_EQ(replay.code, 1);
  EXPECT_NE(replay.err.find("no CUDA device visible"), std::string::npos) << replay.err;
}
#endif

}  // namespace
}  // namespace flashsim
