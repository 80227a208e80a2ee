// Sweeps that survive and scale (docs/sweeps.md): every point written as it
// finishes and skipped by a rerun; a killed run resumed, a run by shards
// (by hand, GNU parallel, a Slurm array) merged: results equal an
// uninterrupted run's; stale temp files removed; the replace rule; the
// plans' text; progress lines while long runs are in flight.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "sim/results/results_writer.h"
#include "sim/results/sweep_store.h"
#include "sim/run/progress.h"
#include "sim/run/scenario_runner.h"
#include "tests/app/app_test_util.h"
#include "tests/app/h5_dump.h"
#include "tests/support/temp_dir.h"

namespace flashsim {
namespace {

namespace fs = std::filesystem;

const std::string kTrace = std::string(FLASHSIM_SOURCE_DIR) + "/scenarios/data/llama-2048x22.csv";

// 4 sweep points x 2 policies on the recorded trace (a cyclic scan).
std::string scenario_yaml() {
  return "name: tiny\n"
         "workload:\n  trace: " + kTrace + "\n"
         "engine: {impl: cache_only}\n"
         "cache:\n  capacity: 10%\n"
         "policies:\n  - impl: lru\n  - impl: belady_bypass\n"
         "sweep:\n  cache.capacity: [10%, 20%, 30%, 50%]\n";
}

// summary.json without its host section.
nlohmann::json simulated_json(const fs::path& dir) {
  nlohmann::json j = nlohmann::json::parse(test::read_file(dir / "summary.json"));
  j.erase("host");
  return j;
}

std::size_t count_with_extension(const fs::path& dir, const std::string& ext) {
  std::size_t n = 0;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) n += it->path().extension() == ext;
  return n;
}

// A pid that no process has now: a child that has exited and been reaped.
pid_t dead_pid() {
  const pid_t child = fork();
  if (child == 0) _exit(0);
  waitpid(child, nullptr, 0);
  return child;
}

class SweepCli : public ::testing::Test {
 protected:
  void SetUp() override {
    test::write_file(dir_ / "s.yaml", scenario_yaml());
    // The scenario named by its absolute path, as the plans name it
    // (results record the path as given: scenario_source).
    const auto o = test::run_flashsim(dir_.path(), run_cmd() + " --out plain --no-progress");
    ASSERT_EQ(o.code, 0) << o.err;
  }
  /// The merged results in `out` equal the plain run's: every dataset and
  /// attribute outside /host, and summary.json outside its host section.
  void expect_equal_to_plain(const std::string& out) {
    const auto a = test::dump_h5((dir_ / "plain/results.h5").string(), "/host");
    const auto b = test::dump_h5((dir_ / out / "results.h5").string(), "/host");
    ASSERT_FALSE(a.empty());
    EXPECT_EQ(a, b);
    EXPECT_EQ(simulated_json(dir_ / "plain"), simulated_json(dir_ / out));
  }
  /// `run` of the test scenario, named by its absolute path.
  std::string run_cmd() const { return "run '" + (dir_ / "s.yaml").string() + "'"; }
  test::TempDir dir_;
};

TEST_F(SweepCli, PlainRunMatchesTheRunnerWrittenAtOnceAndTheClosedForm) {
  // The same sweep run in this process and written by write_results (all
  // runs at once): the CLI's results, merged from point files, equal it.
  const ScenarioDocument document = ScenarioDocument::from_file(dir_ / "s.yaml");
  RunnerOptions options;
  options.jobs = 1;
  const ScenarioResults direct = run_scenario(document, options);
  write_results(dir_ / "direct", direct);
  expect_equal_to_plain("direct");
  // The values are real: a cyclic scan, LRU never hits, belady_bypass 7/8 · C/F.
  const nlohmann::json j = simulated_json(dir_ / "plain");
  ASSERT_EQ(j["runs"].size(), 8u);
  EXPECT_EQ(j["runs"][6]["policy"], "lru");
  EXPECT_EQ(j["runs"][6]["hit_ratio_by_byte"], 0.0);
  EXPECT_NEAR(j["runs"][7]["hit_ratio_by_byte"].get<double>(), 0.4375, 0.001);
  EXPECT_EQ(j["runs"][7]["run"], 7);
  EXPECT_EQ(j["runs"][7]["point"], 3);
  EXPECT_EQ(j["runs"][7]["point_label"], "cache.capacity=50%");
  EXPECT_EQ(count_with_extension(dir_ / "plain/points", ".h5"), 4u);
  EXPECT_EQ(count_with_extension(dir_ / "plain/points", ".json"), 4u);
}

TEST_F(SweepCli, KilledRunResumesToTheUninterruptedResultsAndStaleTempFilesGo) {
  // Killed (SIGKILL, by the test hook) after its second point.
  setenv("FLASHSIM_TEST_KILL_AFTER_POINTS", "2", 1);
  const auto o = test::run_flashsim(dir_.path(), run_cmd() + " --out resumed --jobs 1");
  unsetenv("FLASHSIM_TEST_KILL_AFTER_POINTS");
  EXPECT_NE(o.code, 0);
  EXPECT_NE(o.err.find("running 8 runs (4 sweep points) on 1 thread"), std::string::npos) << o.err;
  EXPECT_EQ(count_with_extension(dir_ / "resumed/points", ".json"), 2u);
  EXPECT_FALSE(fs::exists(dir_ / "resumed/results.h5"));
  // What a kill -9 mid-write leaves: temp files named after a dead pid, and
  // one of a live process (ours) that must be kept.
  const std::string dead = std::to_string(dead_pid());
  test::write_file(dir_ / ("resumed/results.h5.tmp-" + dead + "-AbC123"), std::string(4096, 'x'));
  test::write_file(dir_ / ("resumed/points/0123456789abcdef.h5.tmp-" + dead + "-XyZ789"), std::string(4096, 'x'));
  const fs::path live = dir_ / ("resumed/points/0123456789abcdef.h5.tmp-" + std::to_string(getpid()) + "-live00");
  test::write_file(live, "x");

  const auto resumed = test::run_flashsim(dir_.path(), run_cmd() + " --out resumed --no-progress");
  ASSERT_EQ(resumed.code, 0) << resumed.err;
  EXPECT_NE(resumed.err.find("skipping 2 finished points of 4"), std::string::npos) << resumed.err;
  EXPECT_NE(resumed.err.find("removed 1 temp file"), std::string::npos) << resumed.err;
  EXPECT_FALSE(fs::exists(dir_ / ("resumed/results.h5.tmp-" + dead + "-AbC123")));
  EXPECT_FALSE(fs::exists(dir_ / ("resumed/points/0123456789abcdef.h5.tmp-" + dead + "-XyZ789")));
  EXPECT_TRUE(fs::exists(live));
  expect_equal_to_plain("resumed");

  // Everything finished: a rerun runs nothing and merges again.
  const auto again = test::run_flashsim(dir_.path(), run_cmd() + " --out resumed --no-progress");
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_NE(again.err.find("skipping 4 finished points of 4"), std::string::npos) << again.err;
  EXPECT_EQ(again.out.find("belady_bypass"), std::string::npos);  // no table: nothing ran
  expect_equal_to_plain("resumed");
}

TEST_F(SweepCli, ShardsRunTheirShareAndMergeOrAFullRunCompletesThem) {
  auto o = test::run_flashsim(dir_.path(), run_cmd() + " --out sharded --shard 1/2 --no-progress");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("shard 1/2: 2 of 4 sweep points"), std::string::npos) << o.out;
  // Shard 1 of 2 ran points 1 and 3 (p mod 2 = 1), not 0 and 2.
  EXPECT_NE(o.out.find("cache.capacity=20%"), std::string::npos);
  EXPECT_EQ(o.out.find("cache.capacity=10%"), std::string::npos);
  EXPECT_FALSE(fs::exists(dir_ / "sharded/results.h5"));
  o = test::run_flashsim(dir_.path(), "sweep merge sharded");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("2 of 4 sweep points not finished (point 0 (cache.capacity=10%), 2 (cache.capacity=30%))"),
            std::string::npos)
      << o.err;
  o = test::run_flashsim(dir_.path(), run_cmd() + " --out sharded --shard 0/2 --no-progress");
  ASSERT_EQ(o.code, 0) << o.err;
  o = test::run_flashsim(dir_.path(), "sweep merge sharded");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("merged 4 sweep points of 'tiny'"), std::string::npos);
  expect_equal_to_plain("sharded");
  // The merge's two passes report every point, in order (the progress of a
  // large merge, shown by PassProgress from 1000 points).
  std::vector<std::string> calls;
  merge_points(dir_ / "sharded", *read_manifest(dir_ / "sharded"), HostInfo::current(),
               [&](const char* pass, std::size_t done, std::size_t total) {
                 calls.push_back(std::string(pass) + " " + std::to_string(done) + "/" + std::to_string(total));
               });
  EXPECT_EQ(calls, (std::vector<std::string>{"reading point summaries 1/4", "reading point summaries 2/4",
                                             "reading point summaries 3/4", "reading point summaries 4/4",
                                             "merging point results 1/4", "merging point results 2/4",
                                             "merging point results 3/4", "merging point results 4/4"}));
  expect_equal_to_plain("sharded");

  // One shard, then the full run: it skips that shard's points.
  o = test::run_flashsim(dir_.path(), run_cmd() + " --out half --shard 0/2 --no-progress");
  ASSERT_EQ(o.code, 0) << o.err;
  o = test::run_flashsim(dir_.path(), run_cmd() + " --out half --no-progress");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.err.find("skipping 2 finished points of 4"), std::string::npos) << o.err;
  expect_equal_to_plain("half");

  for (const char* bad : {"1/1", "2/2", "x/2", "1", "0/0"}) {
    o = test::run_flashsim(dir_.path(), run_cmd() + " --out bad --shard " + bad);
    EXPECT_EQ(o.code, 2) << bad;
    EXPECT_NE(o.err.find("expected K/N with 0 <= K < N"), std::string::npos) << o.err;
  }
}

TEST_F(SweepCli, AnotherScenarioIsNeverSilentlyReplaced) {
  const std::string before = test::read_file(dir_ / "plain/summary.json");
  auto o = test::run_flashsim(dir_.path(), run_cmd() + " --out plain --set policies.0.impl=arc --no-progress");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("results folder 'plain' holds the results of another scenario (sweep.json differs in: "
                       "policies.0.impl: lru -> arc): pass --force to replace them (every point runs again), "
                       "--resume to replace them reusing the points both scenarios share"),
            std::string::npos)
      << o.err;
  EXPECT_EQ(test::read_file(dir_ / "plain/summary.json"), before);

  o = test::run_flashsim(dir_.path(), run_cmd() + " --out plain --set policies.0.impl=arc --force --no-progress");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.err.find("--force: replacing the results in 'plain' (differs in: policies.0.impl: lru -> arc)"),
            std::string::npos)
      << o.err;
  EXPECT_EQ(simulated_json(dir_ / "plain")["runs"][0]["policy"], "arc");

  // Back to the first scenario: refused again; --resume reuses its old
  // points, --force runs them all again (issue 28: --force used to resume).
  o = test::run_flashsim(dir_.path(), run_cmd() + " --out plain --set cache.capacity=20% --no-progress");
  EXPECT_EQ(o.code, 2);
  o = test::run_flashsim(dir_.path(), run_cmd() + " --out plain --resume --no-progress");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.err.find("--resume: replacing the results in 'plain'"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("skipping 4 finished points of 4"), std::string::npos) << o.err;
  EXPECT_EQ(test::read_file(dir_ / "plain/summary.json").find("\"arc\""), std::string::npos);
  const auto reused = test::dump_h5((dir_ / "plain/results.h5").string(), "/host");
  const auto reused_json = simulated_json(dir_ / "plain");
  o = test::run_flashsim(dir_.path(), run_cmd() + " --out plain --force --no-progress");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(o.err.find("skipping"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("--force: running 4 finished points again"), std::string::npos) << o.err;
  EXPECT_EQ(test::dump_h5((dir_ / "plain/results.h5").string(), "/host"), reused);  // recomputed, the same
  EXPECT_EQ(simulated_json(dir_ / "plain"), reused_json);
  o = test::run_flashsim(dir_.path(), run_cmd() + " --out plain --force --resume");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("--force and --resume: choose one"), std::string::npos) << o.err;

  // A folder of an earlier flashsim (results.h5, no sweep.json): judged by its /scenario.
  fs::remove(dir_ / "plain/sweep.json");
  o = test::run_flashsim(dir_.path(), run_cmd() + " --out plain --set policies.0.impl=arc --no-progress");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("(results.h5 differs in: point 1 policies.0.impl: lru -> arc)"), std::string::npos) << o.err;
  o = test::run_flashsim(dir_.path(), run_cmd() + " --out plain --no-progress");
  EXPECT_EQ(o.code, 0) << o.err;
}

TEST_F(SweepCli, PlanWritesParallelCommandsAndASlurmArray) {
  auto o = test::run_flashsim(dir_.path(), "sweep plan s.yaml --emit parallel --shards 2 --out p --set seed=3");
  ASSERT_EQ(o.code, 0) << o.err;
  const std::string dir = fs::absolute(dir_ / "p").lexically_normal().string();
  const std::string bin = fs::canonical(FLASHSIM_BINARY).string();
  const std::string scen = fs::absolute(dir_ / "s.yaml").lexically_normal().string();
  EXPECT_EQ(test::read_file(dir_ / "p/plan/parallel.txt"),
            "'" + bin + "' run '" + scen + "' --out '" + dir + "' --set 'seed=3' --shard 0/2 --jobs 1\n'" + bin + "' run '" +
                scen + "' --out '" + dir + "' --set 'seed=3' --shard 1/2 --jobs 1\n");
  const std::string run = "parallel --joblog '" + dir + "/plan/joblog.txt' --resume -a '" + dir + "/plan/parallel.txt'";
  EXPECT_NE(o.out.find("4 sweep points of 'tiny' in 2 shards"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find(run), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("'" + bin + "' sweep merge '" + dir + "'"), std::string::npos) << o.out;
  EXPECT_NE(test::read_file(dir_ / "p/plan/run-parallel.sh").find(run + "\n'" + bin + "' sweep merge '" + dir + "'\n"),
            std::string::npos);

  o = test::run_flashsim(dir_.path(), "sweep plan s.yaml --emit slurm --out q --jobs 2");
  ASSERT_EQ(o.code, 0) << o.err;
  const std::string qdir = fs::absolute(dir_ / "q").lexically_normal().string();
  const std::string script = test::read_file(dir_ / "q/plan/sweep.sbatch");
  EXPECT_NE(script.find("#SBATCH --array=0-3\n"), std::string::npos) << script;  // default: one shard a point
  EXPECT_NE(script.find("#SBATCH --cpus-per-task=2\n"), std::string::npos) << script;
  EXPECT_NE(script.find("#SBATCH --output=" + qdir + "/plan/slurm-%A_%a.out\n"), std::string::npos) << script;
  EXPECT_NE(script.find("exec '" + bin + "' run '" + scen + "' --out '" + qdir +
                        "' --shard \"${SLURM_ARRAY_TASK_ID}/4\" --jobs 2\n"),
            std::string::npos)
      << script;
  EXPECT_NE(o.out.find("jobid=$(sbatch --parsable '" + qdir + "/plan/sweep.sbatch')"), std::string::npos) << o.out;

  o = test::run_flashsim(dir_.path(), "sweep plan s.yaml --emit parallel --shards 5");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("--shards 5: expected 1 to the sweep's 4 points"), std::string::npos) << o.err;
  o = test::run_flashsim(dir_.path(), "sweep plan s.yaml --emit pbs");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("--emit 'pbs': expected parallel or slurm"), std::string::npos) << o.err;
  o = test::run_flashsim(dir_.path(), "sweep merge nowhere");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("'nowhere' holds no sweep.json"), std::string::npos) << o.err;
}

bool have_tool(const std::string& name) {
  return std::system(("command -v " + name + " > /dev/null 2>&1").c_str()) == 0;
}

bool in_ci() {
  const char* ci = std::getenv("CI");
  return ci != nullptr && std::string(ci) == "true";
}

TEST_F(SweepCli, GnuParallelRunOfTwoShardsEqualsThePlainRun) {
  if (!have_tool("parallel")) {
    if (in_ci()) FAIL() << "GNU parallel missing under CI=true (tools/install-deps.sh installs it)";
    GTEST_SKIP() << "GNU parallel is not installed (Debian package parallel; tools/install-deps.sh)";
  }
  auto o = test::run_flashsim(dir_.path(), "sweep plan s.yaml --emit parallel --shards 2 --out par");
  ASSERT_EQ(o.code, 0) << o.err;
  const std::string command = "cd '" + dir_.path().string() + "' && sh par/plan/run-parallel.sh > par.out 2>&1";
  ASSERT_EQ(std::system(command.c_str()), 0) << test::read_file(dir_ / "par.out");
  // The job log: a header and one line per shard, each exit value 0.
  std::istringstream log(test::read_file(dir_ / "par/plan/joblog.txt"));
  std::string line;
  std::getline(log, line);
  int shards = 0;
  while (std::getline(log, line)) {
    std::vector<std::string> fields;
    std::istringstream fs_(line);
    for (std::string f; std::getline(fs_, f, '\t');) fields.push_back(f);
    ASSERT_GE(fields.size(), 9u) << line;
    EXPECT_EQ(fields[6], "0") << line;  // Exitval
    ++shards;
  }
  EXPECT_EQ(shards, 2);
  expect_equal_to_plain("par");
  // --resume: the job log says both are done, so nothing runs again.
  ASSERT_EQ(std::system(command.c_str()), 0);
  EXPECT_EQ(test::read_file(dir_ / "par.out").find("shard"), std::string::npos);
}

// A one-node Slurm cluster in a temp folder (auth/none, cred/none), run as
// this user; its daemons are stopped by pid when the test ends.
class LocalSlurm {
 public:
  explicit LocalSlurm(const fs::path& dir) : dir_(dir) {
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    const std::string h = std::string(host).substr(0, std::string(host).find('.'));
    const int port = 20000 + static_cast<int>(getpid() % 20000);
    for (const char* sub : {"state", "spool", "log"}) fs::create_directories(dir / sub);
    const std::string user = std::getenv("USER") ? std::getenv("USER") : "root";
    std::ostringstream conf;
    conf << "ClusterName=flashsimtest\nSlurmctldHost=" << h << "\nSlurmctldPort=" << port << "\nSlurmdPort=" << port + 1
         << "\nAuthType=auth/none\nCredType=cred/none\nSlurmUser=" << user << "\nSlurmdUser=" << user
         << "\nStateSaveLocation=" << (dir / "state").string() << "\nSlurmdSpoolDir=" << (dir / "spool").string()
         << "\nSlurmctldPidFile=" << (dir / "ctld.pid").string() << "\nSlurmdPidFile=" << (dir / "d.pid").string()
         << "\nSlurmctldLogFile=" << (dir / "log/ctld.log").string() << "\nSlurmdLogFile=" << (dir / "log/d.log").string()
         << "\nProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\nSchedulerType=sched/builtin\n"
            "SelectType=select/cons_tres\nSelectTypeParameters=CR_CPU\nReturnToService=2\nMpiDefault=none\n"
            "JobCompType=jobcomp/none\nAccountingStorageType=accounting_storage/none\n"
         << "NodeName=" << h << " CPUs=" << std::max(1u, std::thread::hardware_concurrency()) << " State=UNKNOWN\n"
         << "PartitionName=test Nodes=" << h << " Default=YES MaxTime=INFINITE State=UP\n";
    conf_ = dir / "slurm.conf";
    test::write_file(conf_, conf.str());
    env_ = "export SLURM_CONF='" + conf_.string() + "'; ";
    // In the foreground, as children of this test: stopped and reaped by the
    // destructor; slurmd's detached step daemons are reaped here too.
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    controller_ = spawn({"slurmctld", "-D", "-i", "-f", conf_.string()});
    node_ = spawn({"slurmd", "-D", "-f", conf_.string()});
    started_ = controller_ > 0 && node_ > 0;
    // Up when sinfo shows the node idle (a few seconds).
    for (int i = 0; started_ && i < 50 && !up_; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      up_ = shell("sinfo -h -o %t | grep -q idle") == 0;
    }
  }
  ~LocalSlurm() {
    for (const pid_t pid : {node_, controller_}) {
      if (pid <= 0) continue;
      kill(pid, SIGTERM);
      waitpid(pid, nullptr, 0);
    }
    for (int i = 0; i < 20 && waitpid(-1, nullptr, WNOHANG) >= 0; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    prctl(PR_SET_CHILD_SUBREAPER, 0);
  }
  /// Why it did not come up ("" when it did): the end of its logs.
  std::string why_not() const {
    if (up_) return "";
    return "slurmctld/slurmd did not come up (" + std::string(started_ ? "no idle node" : "a daemon failed to start") +
           "): " + test::read_file(dir_ / "log/ctld.log").substr(0, 400) + test::read_file(dir_ / "log/d.log").substr(0, 400);
  }
  int shell(const std::string& command) const { return std::system((env_ + command + " > /dev/null 2>&1").c_str()); }
  std::string env() const { return env_; }

 private:
  // Starts `argv` with stdout and stderr into the log folder; -1 on failure.
  pid_t spawn(const std::vector<std::string>& argv) const {
    const std::string log = (dir_ / "log" / (argv.front() + ".out")).string();
    const pid_t pid = fork();
    if (pid == 0) {
      if (!freopen(log.c_str(), "w", stdout) || !freopen(log.c_str(), "a", stderr)) _exit(127);
      std::vector<char*> args;
      for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
      args.push_back(nullptr);
      execvp(args[0], args.data());
      _exit(127);
    }
    return pid;
  }
  fs::path dir_, conf_;
  std::string env_;
  pid_t controller_ = -1, node_ = -1;
  bool started_ = false, up_ = false;
};

TEST_F(SweepCli, SlurmArrayOfTwoShardsEqualsThePlainRun) {
  if (!have_tool("slurmctld") || !have_tool("slurmd") || !have_tool("sbatch")) {
    if (in_ci()) FAIL() << "Slurm missing under CI=true (tools/install-deps.sh installs slurm-wlm)";
    GTEST_SKIP() << "Slurm is not installed (Debian package slurm-wlm; tools/install-deps.sh)";
  }
  LocalSlurm slurm(dir_ / "slurm");
  if (!slurm.why_not().empty()) GTEST_SKIP() << slurm.why_not();
  auto o = test::run_flashsim(dir_.path(), "sweep plan s.yaml --emit slurm --shards 2 --out sl");
  ASSERT_EQ(o.code, 0) << o.err;
  const std::string submit = slurm.env() + "sbatch --parsable '" + (dir_ / "sl/plan/sweep.sbatch").string() + "' > '" +
                             (dir_ / "jobid").string() + "'";
  ASSERT_EQ(std::system(submit.c_str()), 0);
  const std::string job = test::read_file(dir_ / "jobid").substr(0, test::read_file(dir_ / "jobid").find_first_of(";\n"));
  // Done when squeue no longer lists the job (within a minute).
  bool done = false;
  for (int i = 0; i < 300 && !done; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    done = slurm.shell("test -z \"$(squeue -h -j " + job + " 2>/dev/null)\"") == 0;
  }
  ASSERT_TRUE(done) << "the array job " << job << " did not finish in a minute";
  for (int task = 0; task < 2; ++task) {
    const std::string log = test::read_file(dir_ / ("sl/plan/slurm-" + job + "_" + std::to_string(task) + ".out"));
    EXPECT_NE(log.find("shard " + std::to_string(task) + "/2: 2 of 4 sweep points finished"), std::string::npos) << log;
  }
  o = test::run_flashsim(dir_.path(), "sweep merge sl");
  ASSERT_EQ(o.code, 0) << o.err;
  expect_equal_to_plain("sl");
}

TEST_F(SweepCli, MergesMorePointsThanTheProcessMayOpenFiles) {
  // 80 points merged under `ulimit -n 40`: the merge used to hold every
  // point file open and failed at the 40th ("cannot open ..."); a
  // 900k-point sweep could never merge.
  test::write_file(dir_ / "t3.csv", "time_ns,block_id,bytes\n0,1,4096\n1,2,4096\n2,1,4096\n");
  std::string caps;
  for (int k = 1; k <= 80; ++k) caps += std::string(k > 1 ? ", " : "") + std::to_string(4096 * k) + "B";
  test::write_file(dir_ / "many.yaml", "name: many\nengine: {impl: cache_only}\nworkload: {trace: t3.csv}\n"
                                       "policies: [{impl: lru}]\ncache: {capacity: 4096B}\n"
                                       "sweep:\n  cache.capacity: [" + caps + "]\noutputs: {dir: many}\n");
  const auto o = test::run_flashsim(dir_.path(), "run many.yaml --no-progress");
  ASSERT_EQ(o.code, 0) << o.err;
  const std::string merge = "cd '" + dir_.path().string() + "' && ulimit -n 40 && '" + std::string(FLASHSIM_BINARY) +
                            "' sweep merge many --no-progress > merge.out 2>&1";
  const int status = std::system(merge.c_str());
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << test::read_file(dir_ / "merge.out");
  EXPECT_NE(test::read_file(dir_ / "merge.out").find("merged 80 sweep points of 'many'"), std::string::npos)
      << test::read_file(dir_ / "merge.out");
}

TEST(SweepProgress, PassesOfAMergeEachGetTheirLinesFromTheThreshold) {
  std::ostringstream out;
  {
    PassProgress progress(&out, false, 3);
    for (std::size_t k = 1; k <= 4; ++k) progress("reading point summaries", k, 4);
    for (std::size_t k = 1; k <= 4; ++k) progress("merging point results", k, 4);
  }
  const std::string text = out.str();
  EXPECT_EQ(text.rfind("reading point summaries [1/4] point 0\n", 0), 0u) << text;
  EXPECT_NE(text.find("reading point summaries [4/4] point 3\n"), std::string::npos) << text;
  EXPECT_NE(text.find("merging point results [1/4] point 0\n"), std::string::npos) << text;
  EXPECT_NE(text.find("merging point results [4/4] point 3\n"), std::string::npos) << text;
  std::ostringstream small;
  {
    PassProgress progress(&small, false, 1000);  // the default threshold: a 4-point merge is quiet
    for (std::size_t k = 1; k <= 4; ++k) progress("reading point summaries", k, 4);
  }
  EXPECT_EQ(small.str(), "");
}

TEST(SweepProgress, PlainLinesWhileRunsAreInFlight) {
  std::ostringstream out;
  {
    ProgressReporter progress(&out, false, "", 3, std::chrono::milliseconds(50));
    progress.done("a");  // shown at once
    std::this_thread::sleep_for(std::chrono::milliseconds(180));
    progress.done("b");
    progress.done("c");  // the last, always shown
  }
  const std::string text = out.str();
  EXPECT_EQ(text.rfind("[1/3] a\n", 0), 0u) << text;
  EXPECT_NE(text.find("[1/3] running for 0s\n"), std::string::npos) << text;
  EXPECT_NE(text.find("[3/3] c\n"), std::string::npos) << text;
  // On a terminal: no heartbeat lines, one rewritten line.
  std::ostringstream tty;
  {
    ProgressReporter progress(&tty, true, "", 2, std::chrono::milliseconds(50));
    std::this_thread::sleep_for(std::chrono::milliseconds(120));
    progress.done("a");
  }
  EXPECT_EQ(tty.str().find("running for"), std::string::npos) << tty.str();
}

}  // namespace
}  // namespace flashsim
