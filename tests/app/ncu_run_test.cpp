// `diagnose --counters` under a stand-in ncu (a shell script that writes
// what Nsight Compute writes to its --log-file): progress, the timeout,
// and each way it can end named by its real cause.
#include "sim/diagnose/ncu_run.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <regex>
#include <sstream>

#include "sim/core/errors.h"
#include "tests/support/temp_dir.h"

namespace flashsim::diagnose {
namespace {

// The stand-in. The run (`--export R`): RUN with $log and $rep set (it
// makes the report "$rep.ncu-rep" when it profiled). The print
// (`--import R --csv`): the CSV of two kernels into $log.
std::string fake_ncu(const test::TempDir& dir, const std::string& run) {
  const std::filesystem::path p = dir / "ncu";
  std::ofstream(p)
      << "#!/bin/sh\n"
         "import=\n"
         "while [ $# -gt 0 ]; do\n"
         "  case $1 in --log-file) log=$2;; --export) rep=$2;; --import) import=$2;; esac; shift\n"
         "done\n"
         "if [ -n \"$import\" ]; then\n"
         "  [ -f \"$import\" ] || exit 9\n"
         "  printf '\"ID\",\"Kernel Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\\n' > $log\n"
         "  printf '\"0\",\"ampere_sgemm\",\"lts__t_sectors_srcunit_tex_lookup_hit.sum\",\"sector\",\"300\"\\n' >> $log\n"
         "  printf '\"0\",\"ampere_sgemm\",\"lts__t_sectors_srcunit_tex_lookup_miss.sum\",\"sector\",\"100\"\\n' >> $log\n"
         "  printf '\"1\",\"elementwise\",\"lts__t_sectors_srcunit_tex_lookup_hit.sum\",\"sector\",\"5\"\\n' >> $log\n"
         "  printf '\"1\",\"elementwise\",\"lts__t_sectors_srcunit_tex_lookup_miss.sum\",\"sector\",\"5\"\\n' >> $log\n"
         "  exit 0\n"
         "fi\n"
      << run << "\n";
  chmod(p.c_str(), 0755);
  return p.string();
}

std::string error_of(const std::string& ncu, const test::TempDir& dir, double timeout_s, std::string* progress = nullptr) {
  NcuRunOptions o;
  o.ncu = ncu;
  o.launches = 40;
  o.timeout_s = timeout_s;
  o.weight_kernels = "gemm";
  std::ostringstream out;
  try {
    run_ncu_l2({"python3", "prog.py"}, o, dir.path(), std::regex("gemm", std::regex::extended), out, false);
  } catch (const Error& e) {
    if (progress) *progress = out.str();
    return e.what();
  }
  if (progress) *progress = out.str();
  return "";
}

TEST(NcuRun, ReadsTheResultAndSaysHowFarItGot) {
  test::TempDir dir;
  const std::string ncu = fake_ncu(dir, "echo '==PROF== Connected to process 1' > $log\n"
                                        "for k in 1 2 3; do echo \"==PROF== Profiling \\\"ampere_sgemm\\\" - $k: 0%....100% - 9 "
                                        "passes\" >> $log; done\n"
                                        "touch $rep.ncu-rep\n");
  NcuRunOptions o;
  o.ncu = ncu;
  o.launches = 40;
  o.weight_kernels = "gemm";
  std::ostringstream out;
  const NcuL2 l2 = run_ncu_l2({"python3", "prog.py"}, o, dir.path(), std::regex("gemm", std::regex::extended), out, false);
  EXPECT_EQ(l2.kernels.size(), 2u);
  EXPECT_EQ(l2.matched, 1u);
  EXPECT_DOUBLE_EQ(l2.hit_rate(), 0.75);  // 300 / (300 + 100), the elementwise kernel left out
  EXPECT_NE(out.str().find("profiled 3 of at most 40 launches (--ncu-launches)"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find(": done"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("at most 40 launches, --counters-timeout 300 s"), std::string::npos) << out.str();
}

TEST(NcuRun, ATimeoutEndsNcuAndItsChildrenAndSaysWhatToLower) {
  test::TempDir dir;
  // A launch profiled at once, one 1.5 s later, then a child that would
  // run for a minute.
  const std::string ncu = fake_ncu(dir, "echo '==PROF== Profiling \"gemm\" - 0: 0%' > $log\n"
                                        "sleep 1.5\n"
                                        "echo '==PROF== Profiling \"gemm\" - 1: 0%' >> $log\n"
                                        "sleep 60 & echo $! > " + (dir / "child.pid").string() + "\nwait\n");
  std::string progress;
  const std::string e = error_of(ncu, dir, 3.0, &progress);
  EXPECT_NE(e.find("Nsight Compute timed out after 3 s (--counters-timeout 3 s), having profiled 2 of at most 40 "
                   "launches"),
            std::string::npos) << e;
  // The cost per launch counts from the first launch seen (the tick at 1 s), not from the start.
  std::smatch m;
  ASSERT_TRUE(std::regex_search(e, m, std::regex("lower --ncu-launches \\(about ([0-9.]+) s per launch"))) << e;
  EXPECT_NEAR(std::stod(m[1].str()), 2.0, 0.6) << e;  // (3 s - 1 s) / 1 launch, ticks of 1 s apart
  EXPECT_NE(e.find(" s per launch here after 1 s of start-up: --ncu-launches 1 fits)"), std::string::npos) << e;
  EXPECT_EQ(e.find("installed"), std::string::npos) << e;
  long child = 0;
  std::ifstream(dir / "child.pid") >> child;
  ASSERT_GT(child, 0);
  // Gone, or a zombie its new parent has not reaped yet (a container's
  // init may never reap): either way no longer running.
  std::string state = "gone";
  std::ifstream stat("/proc/" + std::to_string(child) + "/stat");
  if (stat) {
    std::string pid, comm;
    stat >> pid >> comm >> state;
  }
  EXPECT_TRUE(state == "gone" || state == "Z") << "the program under ncu (pid " << child << ") is still "
                                                << state << " after the timeout";
}

TEST(NcuRun, ASignalFromOutsideIsNotBlamedOnTheInstall) {
  test::TempDir dir;
  const std::string ncu = fake_ncu(dir, "echo '==PROF== Profiling \"gemm\": 0%' > $log\nkill -9 $$\n");
  const std::string e = error_of(ncu, dir, 0);
  EXPECT_NE(e.find("was killed by signal 9 (Killed) after"), std::string::npos) << e;
  EXPECT_NE(e.find("having profiled 1 of at most 40 launches: ended from outside flashsim"), std::string::npos) << e;
  EXPECT_EQ(e.find("installed"), std::string::npos) << e;
}

TEST(NcuRun, ItsOwnErrorLinesAreQuoted) {
  test::TempDir dir;
  const std::string ncu = fake_ncu(dir, "echo '==ERROR== ERR_NVGPUCTRPERM - The user does not have permission' > $log\n"
                                        "exit 1\n");
  const std::string e = error_of(ncu, dir, 0);
  EXPECT_NE(e.find("exited with status 1"), std::string::npos) << e;
  EXPECT_NE(e.find("ncu said:\n  ==ERROR== ERR_NVGPUCTRPERM"), std::string::npos) << e;
  const std::string quiet = fake_ncu(dir, "exit 3\n");
  EXPECT_NE(error_of(quiet, dir, 0).find("the program under it failed"), std::string::npos);
}

TEST(NcuRun, NoReportBecauseNothingMatchedSaysSo) {
  test::TempDir dir;
  const std::string ncu = fake_ncu(dir, "echo '==PROF== Connected to process 1' > $log\n");
  const std::string e = error_of(ncu, dir, 0);
  EXPECT_NE(e.find("ended well but wrote no report"), std::string::npos) << e;
  EXPECT_NE(e.find("do any kernels match --weight-kernels 'gemm'?"), std::string::npos) << e;
}

TEST(NcuRun, AMissingNcuAsksWhetherItIsInstalled) {
  test::TempDir dir;
  const std::string e = error_of((dir / "no-such-ncu").string(), dir, 0);
  EXPECT_NE(e.find("could not be started"), std::string::npos) << e;
  EXPECT_NE(e.find("is Nsight Compute installed? --ncu PATH"), std::string::npos) << e;
}

TEST(NcuLogFollower, CountsLinesAsTheyArriveIncludingOneSplitAcrossReads) {
  test::TempDir dir;
  const auto log = dir / "ncu.csv";
  NcuLogFollower f(log);
  EXPECT_EQ(f.poll(), 0u);  // not there yet
  std::ofstream out(log);
  out << "==PROF== Connected\n==PROF== Profiling \"a\"\n==PROF== Prof" << std::flush;
  EXPECT_EQ(f.poll(), 1u);
  out << "iling \"b\"\n==ERROR== bad\n" << std::flush;
  EXPECT_EQ(f.poll(), 2u);
  ASSERT_EQ(f.errors().size(), 1u);
  EXPECT_EQ(f.errors()[0], "==ERROR== bad");
}

}  // namespace
}  // namespace flashsim::diagnose
