// Running a program under capture without a GPU: the launcher
// (traces/importers/capture_launch.h) and `flashsim capture` end to end, with
// shell scripts standing in for CUDA programs (one writes a raw capture file
// where the injection library would).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "sim/core/errors.h"
#include "tests/support/temp_dir.h"
#include "tests/traces/trace_test_util.h"
#include "traces/hdf5_trace.h"
#include "traces/importers/capture_launch.h"
#include "traces/importers/cupti_raw.h"

namespace flashsim::capture {
namespace {

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(CaptureLaunch, PassesTheInjectionEnvironmentAndReportsTheExit) {
  test::TempDir dir;
  const LaunchResult ok = run_with_capture(
      {"/bin/sh", "-c", "printf '%s|%s' \"$CUDA_INJECTION64_PATH\" \"$FLASHSIM_CAPTURE_DIR\" > \"$FLASHSIM_CAPTURE_DIR/env\""},
      "/opt/lib/libx.so", dir.path());
  EXPECT_TRUE(ok.ok()) << ok.describe();
  EXPECT_EQ(slurp(dir / "env"), "/opt/lib/libx.so|" + dir.path().string());

  const LaunchResult three = run_with_capture({"/bin/sh", "-c", "exit 3"}, "/x.so", dir.path());
  EXPECT_EQ(three.exit_code, 3);
  EXPECT_EQ(three.describe(), "exited with status 3");

  const LaunchResult killed = run_with_capture({"/bin/sh", "-c", "kill -9 $$"}, "/x.so", dir.path());
  EXPECT_EQ(killed.signal, 9);
  EXPECT_EQ(killed.exit_code, 137);

  const LaunchResult missing = run_with_capture({"/no/such/program"}, "/x.so", dir.path());
  EXPECT_EQ(missing.exit_code, 127);
  EXPECT_NE(missing.describe().find("could not be started: '/no/such/program': No such file"), std::string::npos)
      << missing.describe();
  EXPECT_THROW(run_with_capture({}, "/x.so", dir.path()), InputError);
}

TEST(CaptureLaunch, FindsTheLibraryBesideTheExecutable) {
  test::TempDir dir;
  std::filesystem::create_directories(dir / "bin");
  EXPECT_THROW(find_capture_library(dir / "bin"), InputError);
  { std::ofstream(dir / "bin" / kCaptureLibraryName) << "x"; }
  EXPECT_EQ(find_capture_library(dir / "bin"), dir / "bin" / kCaptureLibraryName);
}

#ifdef FLASHSIM_BINARY

struct CliRun {
  int exit_code = -1;
  std::string output;
};

CliRun flashsim(const std::string& args) {
  CliRun r;
  FILE* pipe = popen((std::string(FLASHSIM_BINARY) + " " + args + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return r;
  char buf[4096];
  while (std::size_t n = std::fread(buf, 1, sizeof(buf), pipe)) r.output.append(buf, n);
  const int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

std::string q(const std::filesystem::path& p) { return "'" + p.string() + "'"; }

/// A raw capture: two passes of one pinned 1 MiB weight copy and a kernel.
void write_raw(const std::filesystem::path& path, bool complete) {
  std::ofstream out(path);
  out << "flashsim-capture-raw 1 77\n"
         "M 1 1 2 0x200000000 1048576 10 0 1 0\n"
         "C 100 11 1 2 3 1048576 1000 1100 0 1 7\n"
         "K 101 1100 1400 0 1 7 8 1 1 256 1 1 void scale(float*, int)\n"
         "C 102 12 1 2 3 1048576 2000 2100 0 1 7\n"
         "K 103 2100 2300 0 1 7 8 1 1 256 1 1 void scale(float*, int)\n"
         "X 11 R 41 copy 0x7f0000000000 0x200000000 1048576 900\n"
         "X 12 R 41 copy 0x7f0000000000 0x200000000 1048576 1900\n";
  if (complete) out << "E 2 0 2 1 2 0 0 0\n";
}

std::vector<std::string> names_in(const std::filesystem::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(dir)) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

class CaptureCli : public ::testing::Test {
 protected:
  void SetUp() override {
    { std::ofstream(dir_ / "lib") << "not a library"; }  // never loaded by /bin/sh
    write_raw(dir_ / "good.raw", true);
    write_raw(dir_ / "short.raw", false);
  }
  std::string run(const std::string& options, const std::string& script) {
    last_ = flashsim("capture --library " + q(dir_ / "lib") + " " + options + " -- /bin/sh -c " + q(script));
    return last_.output;
  }
  test::TempDir dir_;
  CliRun last_;
};

TEST_F(CaptureCli, ConvertsWhatTheProgramRecorded) {
  run("--out " + q(dir_ / "t.h5") + " --events " + q(dir_ / "e.csv"),
      "cp " + (dir_ / "good.raw").string() + " \"$FLASHSIM_CAPTURE_DIR/capture-77.raw\"");
  ASSERT_EQ(last_.exit_code, 0) << last_.output;
  EXPECT_NE(last_.output.find("2 accesses of 1 blocks"), std::string::npos) << last_.output;
  EXPECT_NE(last_.output.find("2 passes"), std::string::npos) << last_.output;
  Hdf5TraceSource t(dir_ / "t.h5");
  const auto records = test::read_all(t);
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[1].time_ns, 1000);
  EXPECT_EQ(records[0].compute_ns, 300);
  EXPECT_EQ(records[1].compute_ns, 200);
  EXPECT_EQ(records[1].token_index, 1);
  ASSERT_EQ(t.meta().catalog.size(), 1u);
  EXPECT_EQ(t.meta().catalog[0].name, "pinned.0+0x0:1048576");
  EXPECT_NE(slurp(dir_ / "e.csv").find("kernel,0,0,100,400,0,,,,,,,,\"void scale(float*, int)\",8x1x1,256x1x1,"),
            std::string::npos)
      << slurp(dir_ / "e.csv");
  // The temporary raw folder is gone; only inputs and outputs remain.
  EXPECT_EQ(names_in(dir_.path()), (std::vector<std::string>{"e.csv", "good.raw", "lib", "short.raw", "t.h5"}));
}

TEST_F(CaptureCli, AFailingCommandGivesItsExitCodeAndNoTrace) {
  run("--out " + q(dir_ / "t.h5"), "cp " + (dir_ / "good.raw").string() + " \"$FLASHSIM_CAPTURE_DIR/c-1.raw\"; exit 5");
  EXPECT_EQ(last_.exit_code, 5) << last_.output;
  EXPECT_NE(last_.output.find("exited with status 5"), std::string::npos) << last_.output;
  EXPECT_NE(last_.output.find("no trace written"), std::string::npos) << last_.output;
  EXPECT_FALSE(std::filesystem::exists(dir_ / "t.h5"));
  EXPECT_EQ(names_in(dir_.path()), (std::vector<std::string>{"good.raw", "lib", "short.raw"}));
}

TEST_F(CaptureCli, NoCudaCallsIsAnErrorSayingSo) {
  run("--out " + q(dir_ / "t.h5"), "true");
  EXPECT_EQ(last_.exit_code, 1) << last_.output;
  EXPECT_NE(last_.output.find("made no CUDA calls"), std::string::npos) << last_.output;
  EXPECT_FALSE(std::filesystem::exists(dir_ / "t.h5"));
}

TEST_F(CaptureCli, ACutShortCaptureLeavesNoTrace) {
  run("--out " + q(dir_ / "t.h5"), "cp " + (dir_ / "short.raw").string() + " \"$FLASHSIM_CAPTURE_DIR/capture-9.raw\"");
  EXPECT_EQ(last_.exit_code, 2) << last_.output;
  EXPECT_NE(last_.output.find("cut short"), std::string::npos) << last_.output;
  EXPECT_EQ(names_in(dir_.path()), (std::vector<std::string>{"good.raw", "lib", "short.raw"}));
}

TEST_F(CaptureCli, KeepRawLeavesTheRecordsForTheCuptiFormat) {
  run("--out " + q(dir_ / "t.csv") + " --keep-raw " + q(dir_ / "raw") + " --block-bytes 512KiB",
      "cp " + (dir_ / "good.raw").string() + " \"$FLASHSIM_CAPTURE_DIR/capture-77.raw\"");
  ASSERT_EQ(last_.exit_code, 0) << last_.output;
  EXPECT_TRUE(std::filesystem::exists(dir_ / "raw" / "capture-77.raw"));
  EXPECT_NE(last_.output.find("4 accesses of 2 blocks"), std::string::npos) << last_.output;
  const CliRun imp = flashsim("trace import cupti " + q(dir_ / "raw") + " " + q(dir_ / "again.h5"));
  EXPECT_EQ(imp.exit_code, 0) << imp.output;
  // Bad options are refused before the command runs.
  run("--out " + q(dir_ / "t.txt"), "touch " + (dir_ / "ran").string());
  EXPECT_EQ(last_.exit_code, 2);
  EXPECT_FALSE(std::filesystem::exists(dir_ / "ran"));
  run("--directions up", "touch " + (dir_ / "ran").string());
  EXPECT_EQ(last_.exit_code, 2);
  EXPECT_FALSE(std::filesystem::exists(dir_ / "ran"));
}

#endif  // FLASHSIM_BINARY

}  // namespace
}  // namespace flashsim::capture
