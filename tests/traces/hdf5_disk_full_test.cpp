// An HDF5 trace written onto a full disk (its descriptor pointed at
// /dev/full: tests/support/disk_full.h) fails with a one-line error, leaves
// no temp file and no open HDF5 object, and the process then exits cleanly:
// HDF5 1.10 crashed at exit on a file whose close had failed, and printed
// "HDF5: infinite loop closing library" after a failed chunk write. Each case
// runs in a forked child process (a death test), whose exit is checked.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <hdf5.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "sim/core/errors.h"
#include "tests/support/disk_full.h"
#include "tests/support/temp_dir.h"
#include "tests/traces/trace_test_util.h"
#include "traces/hdf5_trace.h"

namespace flashsim {
namespace {

using ::testing::ExitedWithCode;
using ::testing::HasSubstr;
using ::testing::Not;

bool has_temp_files(const std::filesystem::path& dir) {
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().filename().string().find(".tmp-") != std::string::npos) return true;
  }
  return false;
}

// Exit codes of the child: 0 all well, else the first check that failed.
enum Outcome : int { kOk = 0, kNoDescriptor = 10, kNoError, kMessage, kOpenObjects, kTempLeft };

// The error must be one line, name the target and give the system's reason.
int check_error(const std::string& message, const std::filesystem::path& target) {
  if (message.find('\n') != std::string::npos) return kMessage;
  if (message.find(target.string()) == std::string::npos) return kMessage;
  if (message.find("No space left on device") == std::string::npos) return kMessage;
  return kOk;
}

int check_aftermath(const std::filesystem::path& dir) {
  if (H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL) != 0) return kOpenObjects;
  if (has_temp_files(dir)) return kTempLeft;
  return kOk;
}

// finish() flushes the last chunk and the metadata: the flush fails.
int finish_on_full_disk(const std::filesystem::path& dir) {
  const std::filesystem::path target = dir / "out.h5";
  int outcome = kNoError;
  {
    Hdf5TraceWriter writer(target, TraceMeta{});
    writer.write(test::random_trace(1000, 50, 1));
    if (test::make_disk_full_for(target.string() + ".tmp-") == 0) return kNoDescriptor;
    try {
      writer.finish();
    } catch (const Error& e) {
      outcome = check_error(e.what(), target);
    }
  }
  return outcome != kOk ? outcome : check_aftermath(dir);
}

// Chunks larger than HDF5's chunk cache (1 MiB) are written by H5Dwrite
// itself: write() fails, and the writer is dropped unfinished.
int write_on_full_disk(const std::filesystem::path& dir) {
  const std::filesystem::path target = dir / "out.h5";
  Hdf5WriteOptions options;
  options.chunk_records = 200'000;  // 1.6 MB per 8-byte field
  options.deflate_level = 0;        // unfiltered: HDF5 1.10.8 leaks a buffer when such a write fails
  int outcome = kNoError;
  {
    Hdf5TraceWriter writer(target, TraceMeta{}, options);
    if (test::make_disk_full_for(target.string() + ".tmp-") == 0) return kNoDescriptor;
    try {
      writer.write(test::random_trace(options.chunk_records, 1000, 2));
    } catch (const Error& e) {
      outcome = check_error(e.what(), target);
    }
  }
  return outcome != kOk ? outcome : check_aftermath(dir);
}

TEST(Hdf5DiskFull, FinishFailsCleanlyAndTheProcessExitsCleanly) {
  test::TempDir dir;
  EXPECT_EXIT(std::exit(finish_on_full_disk(dir.path())), ExitedWithCode(kOk), Not(HasSubstr("HDF5")));
  EXPECT_FALSE(std::filesystem::exists(dir / "out.h5"));
  EXPECT_FALSE(has_temp_files(dir.path()));
}

TEST(Hdf5DiskFull, WriteFailsCleanlyAndTheProcessExitsCleanly) {
  test::TempDir dir;
  EXPECT_EXIT(std::exit(write_on_full_disk(dir.path())), ExitedWithCode(kOk), Not(HasSubstr("HDF5")));
  EXPECT_FALSE(std::filesystem::exists(dir / "out.h5"));
  EXPECT_FALSE(has_temp_files(dir.path()));
}

}  // namespace
}  // namespace flashsim
