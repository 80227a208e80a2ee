// Failures of the results pair beyond the stage hook of results_test.cpp:
// a full disk while results.h5 is flushed and closed (its descriptor
// pointed at /dev/full, tests/support/disk_full.h; forked child, whose clean
// exit is checked: HDF5 1.10 crashed at exit on a file whose close had
// failed), and a summary.json that cannot be renamed after results.h5 was.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <hdf5.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "sim/results/results_writer.h"
#include "tests/app/app_test_util.h"
#include "tests/support/disk_full.h"
#include "tests/support/temp_dir.h"

namespace flashsim {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

ScenarioResults small_results(const std::string& name) {
  ScenarioResults r;
  r.scenario_name = name;
  r.scenario_source = name + ".yaml";
  r.input_text = "name: " + name + "\n";
  r.resolved_texts = {r.input_text};
  r.point_labels = {""};
  r.tool_version = "test-version";
  RunResult run;
  run.policy = "lru";
  run.policy_label = "lru";
  run.engine = "event";
  run.decision_clock = "trace";
  run.capacity_text = "50%";
  run.result.metrics.total.accesses = 10;
  run.result.metrics.total.hits = 4;
  run.result.metrics.total.misses = 6;
  run.result.metrics.window_ns = 1000;
  run.result.metrics.simulated_ns = 3000;
  for (int w = 0; w < 3; ++w) {
    MetricsWindow win;
    win.start_ns = w * 1000;
    win.counters.accesses = 3;
    run.result.metrics.windows.push_back(win);
  }
  r.runs.push_back(run);
  r.host.hostname = "host";
  return r;
}

int count_temp_files(const std::filesystem::path& dir) {
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().filename().string().find(".tmp-") != std::string::npos) ++n;
  }
  return n;
}

// Child: 0 if write_results failed with a one-line "No space left on
// device" error naming the temp file, and left no temp file nor open HDF5 object.
int write_results_on_full_disk(const std::filesystem::path& out) {
  ResultsWriteOptions options;
  int redirected = 0;
  options.after_stage = [&](std::string_view stage) {
    if (stage == "host") redirected = test::make_disk_full_for((out / "results.h5.tmp-").string());
  };
  std::string message;
  try {
    write_results(out, small_results("full"), options);
    return 10;
  } catch (const Error& e) {
    message = e.what();
  }
  if (redirected == 0) return 11;
  if (message.find('\n') != std::string::npos) return 12;
  if (message.find((out / "results.h5.tmp-").string()) == std::string::npos) return 13;
  if (message.find("No space left on device") == std::string::npos) return 14;
  if (H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL) != 0) return 15;
  if (count_temp_files(out) != 0) return 16;
  return 0;
}

TEST(ResultsPairFailure, FullDiskAtCloseFailsCleanlyAndTheProcessExitsCleanly) {
  test::TempDir dir;
  const std::filesystem::path out = dir.path() / "out";
  EXPECT_EXIT(std::exit(write_results_on_full_disk(out)), ::testing::ExitedWithCode(0), Not(HasSubstr("HDF5")));
  EXPECT_FALSE(std::filesystem::exists(out / "results.h5"));
  EXPECT_FALSE(std::filesystem::exists(out / "summary.json"));
  EXPECT_EQ(count_temp_files(out), 0);
}

TEST(ResultsPairFailure, SummaryRenameFailingAfterResultsSaysWhichFileIsStale) {
  test::TempDir dir;
  const std::filesystem::path out = dir.path() / "out";
  const ResultsPaths old = write_results(out, small_results("old"));
  const std::string old_h5 = test::read_file(old.h5);
  // After both temp files are written, summary.json becomes a non-empty
  // folder: renaming onto it fails (EISDIR), renaming results.h5 does not.
  ResultsWriteOptions options;
  options.after_stage = [&](std::string_view stage) {
    if (stage != "json") return;
    std::filesystem::remove(old.json);
    std::filesystem::create_directory(old.json);
    test::write_file(old.json / "keep", "x");
  };
  std::string message;
  try {
    write_results(out, small_results("new"), options);
  } catch (const Error& e) {
    message = e.what();
  }
  EXPECT_THAT(message, HasSubstr("'" + old.h5.string() + "' is new"));
  EXPECT_THAT(message, HasSubstr("'" + old.json.string() + "' is stale"));
  EXPECT_THAT(message, HasSubstr("Is a directory"));
  EXPECT_NE(test::read_file(old.h5), old_h5);  // results.h5 was replaced
  EXPECT_EQ(count_temp_files(out), 0);
}

}  // namespace
}  // namespace flashsim
