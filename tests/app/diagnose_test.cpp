// flashsim diagnose (sim/diagnose/): the decision table on hand-picked
// inputs, a hand-built program's per-step health computed by hand, ncu's CSV
// with its quirks, and the command on the recorded H200 captures and on
// simulator results, cross-checked against predict and the results files.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "sim/core/errors.h"
#include "sim/core/interval_union.h"
#include "sim/diagnose/health_table.h"
#include "sim/diagnose/ncu_l2.h"
#include "sim/diagnose/pcie_sampler.h"
#include "sim/diagnose/program_health.h"
#include "tests/app/app_test_util.h"
#include "tests/support/temp_dir.h"

namespace flashsim::diagnose {
namespace {

using test::error_of;

HealthDecision decide(std::optional<double> l2, std::optional<double> pcie, std::optional<double> load_ms,
                      const HealthThresholds& t = {}) {
  return evaluate_health({l2, pcie, load_ms}, t);
}

TEST(HealthTable, EachRowOfTheArticleFiresOnItsOwnBand) {
  EXPECT_EQ(decide(0.70, 0.95, 10.0).fired, "bandwidth_war");
  EXPECT_EQ(decide(0.82, 0.80, 6.0).fired, "scheduling_upgrade");
  EXPECT_EQ(decide(0.90, 0.50, 2.0).fired, "model_restructuring");
}

TEST(HealthTable, BandsAreClosedAtTheMiddleRow) {
  // 80%, 70%, 5 ms and 85%, 90%, 8 ms all belong to scheduling_upgrade.
  EXPECT_EQ(decide(0.80, 0.70, 5.0).fired, "scheduling_upgrade");
  EXPECT_EQ(decide(0.85, 0.90, 8.0).fired, "scheduling_upgrade");
  EXPECT_EQ(decide(0.7999, 0.9001, 8.001).fired, "bandwidth_war");
}

TEST(HealthTable, MixedSignalsFireNoRowAndNameTheNearest) {
  const HealthDecision d = decide(0.70, 0.50, 2.0);  // war, restructuring, restructuring
  EXPECT_EQ(d.fired, "");
  EXPECT_EQ(d.nearest, "model_restructuring");
  EXPECT_EQ(d.rows[2].met, 2);
  EXPECT_EQ(d.rows[0].met, 1);
  EXPECT_NE(d.explain().find("no row fires"), std::string::npos);
  EXPECT_NE(d.explain().find("2 of 3"), std::string::npos);
}

TEST(HealthTable, AnUnmeasuredInputIsLeftOutAndSaid) {
  const HealthDecision d = decide(std::nullopt, 0.95, 9.0);
  EXPECT_EQ(d.fired, "bandwidth_war");
  EXPECT_EQ(d.rows[0].measured, 2);
  EXPECT_NE(d.explain().find("not measured: l2_hit_rate"), std::string::npos);
  EXPECT_EQ(decide(std::nullopt, std::nullopt, std::nullopt).fired, "");  // nothing measured fires nothing
  const HealthDecision one = decide(0.5, std::nullopt, std::nullopt);    // one input is no decision
  EXPECT_EQ(one.fired, "");
  EXPECT_NE(one.explain().find("no decision: only 1 of the 3 inputs"), std::string::npos);
}

TEST(HealthTable, ThresholdsAreSettableAndCheckedByKey) {
  HealthThresholds t;
  t.set("pcie_high=95%");
  EXPECT_DOUBLE_EQ(t.pcie_high, 0.95);
  t.set("load_high_ms=12");
  // 93% and 10 ms are now middle-band: with L2 at 82% the middle row fires; at 70% none does.
  EXPECT_EQ(decide(0.82, 0.93, 10.0, t).fired, "scheduling_upgrade");
  EXPECT_EQ(decide(0.70, 0.93, 10.0, t).fired, "");
  EXPECT_EQ(decide(0.70, 0.93, 10.0, t).nearest, "scheduling_upgrade");
  EXPECT_NE(error_of<InputError>([&] { t.set("l2=0.5"); }).find("unknown key 'l2'"), std::string::npos);
  EXPECT_NE(error_of<InputError>([&] { t.set("l2_low=abc"); }).find("l2_low"), std::string::npos);
  // Order does not matter: the pair is checked once all are set.
  HealthThresholds u;
  u.set("l2_low=0.9");
  u.set("l2_high=0.95");
  EXPECT_NO_THROW(u.check());
  u.set("l2_high=0.85");
  EXPECT_NE(error_of<InputError>([&] { u.check(); }).find("l2_low (90%) is above l2_high (85%)"), std::string::npos);
  EXPECT_NE(error_of<InputError>([&] { t.set("l2_low=80"); }).find("at most 100%"), std::string::npos);
  EXPECT_NE(error_of<InputError>([&] { t.set("load_low_ms=50%"); }).find("not a percentage"), std::string::npos);
  EXPECT_NE(error_of<InputError>([&] { t.set("nokey"); }).find("KEY=VALUE"), std::string::npos);
}

TEST(IntervalUnion, MergesOverlapsAndAnswersWindows) {
  IntervalUnion u;
  u.add(10, 20);
  u.add(15, 30);
  u.add(40, 50);
  u.add(5, 5);  // empty
  u.build();
  EXPECT_EQ(u.total(), 30u);
  EXPECT_EQ(u.between(0, 100), 30u);
  EXPECT_EQ(u.between(25, 45), 10u);  // 25..30 and 40..45
  EXPECT_EQ(u.between(30, 40), 0u);
  EXPECT_EQ(u.last_end(), 50u);
}

// --- a hand-built program ---

ProgramOp gpu_op(ProgramOpKind kind, Nanoseconds start, Nanoseconds dur, CopyDirection dir = CopyDirection::other,
                 ByteCount bytes = 0) {
  ProgramOp o;
  o.kind = kind;
  o.stream = 0;
  o.gpu_start_ns = start;
  o.gpu_ns = dur;
  o.direction = dir;
  o.bytes = bytes;
  o.host_memory = kind == ProgramOpKind::copy ? HostMemory::pinned : HostMemory::none;
  return o;
}

ProgramOp mark(Nanoseconds t) { return step_op(0, t); }

Program two_steps(bool marks) {
  Program p;
  p.thread_count = 1;
  p.stream_count = 1;
  p.step_rule = "nvtx:flashsim.step";
  if (marks) p.ops.push_back(mark(0));
  p.ops.push_back(gpu_op(ProgramOpKind::copy, 1000, 4000, CopyDirection::h2d, 40000));
  p.ops.push_back(gpu_op(ProgramOpKind::kernel, 3000, 4000));
  p.ops.push_back(gpu_op(ProgramOpKind::copy, 8000, 1000, CopyDirection::d2h, 10000));
  if (marks) p.ops.push_back(mark(10000));
  p.ops.push_back(gpu_op(ProgramOpKind::copy, 12000, 2000, CopyDirection::h2d, 20000));
  if (marks) p.ops.push_back(mark(20000));
  return p;
}

HardwareProfile link_16gbs() {
  HardwareProfile hw;
  hw.name = "test";
  TierSpec hbm, dram;
  hbm.name = "hbm";
  dram.name = "host_dram";
  dram.link_to_faster.bandwidth = 16e9;
  hw.tiers = {hbm, dram};
  return hw;
}

TEST(ProgramHealth, PerStepBusyStallAndUseByHand) {
  const ProgramHealth h = measure_program_health(two_steps(true), link_16gbs(), 0);
  ASSERT_EQ(h.steps.size(), 2u);
  const StepHealth& a = h.steps[0];
  EXPECT_EQ(a.duration_ns, 10000);
  EXPECT_EQ(a.h2d_bytes, 40000u);
  EXPECT_EQ(a.d2h_bytes, 10000u);
  EXPECT_EQ(a.h2d_busy_ns, 4000);
  EXPECT_EQ(a.d2h_busy_ns, 1000);
  EXPECT_EQ(a.kernel_busy_ns, 4000);
  // copies or kernels: 1000..7000 and 8000..9000 = 7000; minus kernels 4000.
  EXPECT_EQ(a.copy_stall_ns, 3000);
  EXPECT_DOUBLE_EQ(a.stall_share, 0.3);
  EXPECT_DOUBLE_EQ(a.h2d_utilisation, 0.25);     // 40 kB / 10 us = 4 GB/s of 16
  EXPECT_DOUBLE_EQ(a.d2h_utilisation, 0.0625);   // 1 GB/s of 16
  const StepHealth& b = h.steps[1];
  EXPECT_EQ(b.h2d_busy_ns, 2000);
  EXPECT_EQ(b.copy_stall_ns, 2000);
  EXPECT_DOUBLE_EQ(b.h2d_utilisation, 0.125);
  EXPECT_DOUBLE_EQ(h.median_weight_load_ms, 0.003);  // (4000 + 2000) / 2 ns
  EXPECT_DOUBLE_EQ(h.median_stall_share, 0.25);
  EXPECT_DOUBLE_EQ(h.pcie_utilisation(), 0.1875);
  EXPECT_DOUBLE_EQ(h.h2d_while_copying_bytes_per_s, 10e9);  // 60 kB in 6 us
  EXPECT_EQ(h.h2d_ceiling, 16e9);
}

TEST(ProgramHealth, SkipsWarmUpAndWithoutMarksTakesTheWholeTimeline) {
  const ProgramHealth skipped = measure_program_health(two_steps(true), link_16gbs(), 1);
  ASSERT_EQ(skipped.steps.size(), 1u);
  EXPECT_EQ(skipped.steps[0].h2d_busy_ns, 2000);
  EXPECT_NE(error_of<InputError>([] { measure_program_health(two_steps(true), link_16gbs(), 2); }).find("leaves none"),
            std::string::npos);
  const ProgramHealth whole = measure_program_health(two_steps(false), link_16gbs(), 0);
  EXPECT_TRUE(whole.whole_program);
  ASSERT_EQ(whole.steps.size(), 1u);
  EXPECT_EQ(whole.steps[0].duration_ns, 13000);  // 1000 .. 14000
  EXPECT_EQ(whole.steps[0].h2d_bytes, 60000u);
  EXPECT_EQ(whole.steps[0].d2h_bytes, 10000u);
  Program none;
  none.thread_count = 1;
  none.ops.push_back(mark(0));
  EXPECT_NE(error_of<InputError>([&] { measure_program_health(none, link_16gbs(), 0); }).find("nothing to diagnose"),
            std::string::npos);
}

// --- ncu's CSV ---

const char* kNcuCsv =
    "==PROF== Connected to process 123 (/usr/bin/python3)\n"
    "==PROF== Profiling \"gemm\": 0%....50%....100% - 3 passes\n"
    "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\",\"Block Size\","
    "\"Grid Size\",\"Device\",\"CC\",\"Section Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n"
    "\"0\",\"123\",\"python3\",\"h\",\"sm90_xmma_gemm_bf16\",\"1\",\"7\",\"(256, 1, 1)\",\"(8, 1, 1)\",\"0\",\"9.0\","
    "\"Command line profiler metrics\",\"lts__t_sector_hit_rate.pct\",\"%\",\"662.5\"\n"
    "\"0\",\"123\",\"python3\",\"h\",\"sm90_xmma_gemm_bf16\",\"1\",\"7\",\"(256, 1, 1)\",\"(8, 1, 1)\",\"0\",\"9.0\","
    "\"Command line profiler metrics\",\"lts__t_sectors_srcunit_tex_lookup_hit.sum\",\"sector\",\"1,500\"\n"
    "\"0\",\"123\",\"python3\",\"h\",\"sm90_xmma_gemm_bf16\",\"1\",\"7\",\"(256, 1, 1)\",\"(8, 1, 1)\",\"0\",\"9.0\","
    "\"Command line profiler metrics\",\"lts__t_sectors_srcunit_tex_lookup_miss.sum\",\"sector\",\"500\"\n"
    "\"1\",\"123\",\"python3\",\"h\",\"elementwise_kernel\",\"1\",\"7\",\"(256, 1, 1)\",\"(8, 1, 1)\",\"0\",\"9.0\","
    "\"Command line profiler metrics\",\"lts__t_sectors_srcunit_tex_lookup_hit.sum\",\"sector\",\"0\"\n"
    "\"1\",\"123\",\"python3\",\"h\",\"elementwise_kernel\",\"1\",\"7\",\"(256, 1, 1)\",\"(8, 1, 1)\",\"0\",\"9.0\","
    "\"Command line profiler metrics\",\"lts__t_sectors_srcunit_tex_lookup_miss.sum\",\"sector\",\"9000\"\n"
    "\"2\",\"123\",\"python3\",\"h\",\"sm90_xmma_gemm_bf16\",\"1\",\"7\",\"(256, 1, 1)\",\"(8, 1, 1)\",\"0\",\"9.0\","
    "\"Command line profiler metrics\",\"lts__t_sectors_srcunit_tex_lookup_hit.sum\",\"sector\",\"100\"\n"
    "\"2\",\"123\",\"python3\",\"h\",\"sm90_xmma_gemm_bf16\",\"1\",\"7\",\"(256, 1, 1)\",\"(8, 1, 1)\",\"0\",\"9.0\","
    "\"Command line profiler metrics\",\"lts__t_sectors_srcunit_tex_lookup_miss.sum\",\"sector\",\"n/a\"\n";

TEST(NcuL2, SumsLookupsOverTheWeightKernelsBeforeDividing) {
  std::istringstream in(kNcuCsv);
  const NcuL2 l2 = read_ncu_l2(in, "ncu.csv", std::regex("gemm", std::regex::extended));
  ASSERT_EQ(l2.kernels.size(), 3u);
  EXPECT_EQ(l2.matched, 2u);
  EXPECT_DOUBLE_EQ(l2.hits, 1600);   // 1,500 + 100
  EXPECT_DOUBLE_EQ(l2.misses, 500);  // the n/a is left out
  EXPECT_DOUBLE_EQ(l2.hit_rate(), 1600.0 / 2100.0);
  EXPECT_DOUBLE_EQ(l2.max_ncu_pct, 662.5);  // shown, never used as the rate
  std::istringstream all(kNcuCsv);
  EXPECT_DOUBLE_EQ(read_ncu_l2(all, "ncu.csv", std::regex(".*")).hit_rate(), 1600.0 / 11100.0);
}

TEST(NcuL2, ANonCsvOrABadValueNamesTheFileAndLine) {
  std::istringstream none("==PROF== nothing profiled\n");
  EXPECT_NE(error_of<InputError>([&] { read_ncu_l2(none, "x.csv", std::regex("a")); }).find("x.csv: no ncu CSV header"),
            std::string::npos);
  std::string bad = kNcuCsv;
  bad.replace(bad.find("\"1,500\""), 7, "\"lots\"");
  std::istringstream in(bad);
  EXPECT_NE(error_of<InputError>([&] { read_ncu_l2(in, "x.csv", std::regex("a")); }).find("x.csv:5: metric value 'lots'"),
            std::string::npos);
}

TEST(PcieSummary, MediansOverTheSamplesWithTraffic) {
  const std::vector<PcieSample> s = {{0, 0, 0, 100}, {0.02, 50e9, 1e9, 300}, {0.04, 40e9, 0, 200},
                                     {0.06, 60e9, 2e9, 250}, {0.08, 0, 0, 100}};
  const PcieSummary p = summarise_pcie(s);
  EXPECT_EQ(p.samples, 5u);
  EXPECT_EQ(p.busy_samples, 3u);
  EXPECT_DOUBLE_EQ(p.median_rx_bytes_per_s, 50e9);
  EXPECT_DOUBLE_EQ(p.p90_rx_bytes_per_s, 60e9);
  EXPECT_DOUBLE_EQ(p.median_tx_bytes_per_s, 1e9);
  EXPECT_DOUBLE_EQ(p.peak_memory_used_bytes, 300);
}

// --- the command ---

const std::string kPrograms = std::string(FLASHSIM_SOURCE_DIR) + "/validate/baselines/h200/programs/";

nlohmann::json read_json(const std::filesystem::path& p) { return nlohmann::json::parse(test::read_file(p)); }

TEST(DiagnoseCli, RecordedAccelerateOffloadAgreesWithPredictAndPinningIsTheLever) {
  test::TempDir dir;
  const std::string trace = kPrograms + "accel_cpu_offload_llama.h5";
  const auto d = test::run_flashsim(dir.path(), "diagnose " + trace + " --skip-steps 1 --policies lru,belady --json d.json");
  ASSERT_EQ(d.code, 0) << d.err;
  const auto p = test::run_flashsim(dir.path(), "predict " + trace + " --skip-steps 1 --regime all --json p.json");
  ASSERT_EQ(p.code, 0) << p.err;
  const nlohmann::json j = read_json(dir.path() / "d.json"), pj = read_json(dir.path() / "p.json");
  // Two implementations of the recorded step time (step marks here, the executor's recorded times there);
  // diagnose takes every step after --skip-steps, predict's --regime all the same.
  std::map<std::string, double> program;  // predict's --json: summary.json, the program component
  for (const auto& c : pj["runs"][0]["components"]) {
    if (c["component"] == "program") program[c["name"].get<std::string>()] = c["value"].get<double>();
  }
  EXPECT_NEAR(j["median_step_ms"].get<double>(), program.at("recorded_median_step_ns") / 1e6, 1e-6);
  EXPECT_NEAR(j["model_median_step_ms"].get<double>(), program.at("median_step_ns") / 1e6, 1e-6);
  // Pageable copies: the link is far from its ceiling while the GPU waits on copies most of each step.
  EXPECT_LT(j["median_h2d_utilisation"].get<double>(), 0.5);
  EXPECT_GT(j["median_stall_share"].get<double>(), 0.5);
  EXPECT_GT(j["median_weight_load_ms"].get<double>(), 8.0);
  EXPECT_EQ(j["decision"]["nearest"], "bandwidth_war");
  std::map<std::string, double> change;
  for (const auto& l : j["levers"]) {
    change[l["lever"].get<std::string>()] = l["change"].get<double>();
    // Each lever's figure is its run's, as the common printer wrote that run.
    double median_ns = -1;
    for (const auto& c : j["lever_runs"].at(l["run"].get<std::size_t>())["components"]) {
      if (c["component"] == "program" && c["name"] == "median_step_ns") median_ns = c["value"].get<double>();
    }
    EXPECT_NEAR(l["median_step_ms"].get<double>(), median_ns / 1e6, 1e-9) << l["lever"];
    // ... and the run says which lever it is: its scenario is the point lever=NAME.
    const std::string name = l["lever"].get<std::string>();
    EXPECT_EQ(j["lever_runs"].at(l["run"].get<std::size_t>())["point_label"], "lever=" + name) << name;
  }
  EXPECT_LT(change.at("pinned"), -0.3);
  EXPECT_LE(change.at("prefetch"), change.at("pinned"));  // prefetch runs with pinned memory
  EXPECT_LE(change.at("tier:belady"), change.at("tier:lru") + 1e-12);  // offline never loses to LRU here
  // The streamed weights are read in a cycle twice the tier's size: LRU keeps nothing useful, so no
  // online policy is the lever (Belady is offline: a reference, never the lever); keeping the first
  // half resident (static placement) removes half the copies.
  EXPECT_EQ(j["best_policy"], "");
  EXPECT_DOUBLE_EQ(change.at("tier:lru"), 0.0);
  EXPECT_LT(change.at("static_placement"), -0.2);
}

TEST(DiagnoseCli, ResultsOfTheDefaultScenarioReRunFaithfully) {
  test::TempDir dir;
  ASSERT_EQ(test::run_flashsim(dir.path(), "run --out r --set cache.capacity=25%").code, 0);
  const auto d = test::run_flashsim(dir.path(), "diagnose r --run 0 --json d.json");
  ASSERT_EQ(d.code, 0) << d.err;
  const nlohmann::json j = read_json(dir.path() / "d.json"), s = read_json(dir.path() / "r/summary.json");
  const nlohmann::json& run = j["runs"][0];
  const nlohmann::json& sr = s["runs"][0];
  EXPECT_DOUBLE_EQ(run["decision"]["inputs"]["l2_hit_rate"].get<double>(), sr["hit_ratio_by_byte"].get<double>());
  EXPECT_DOUBLE_EQ(run["stall_share"].get<double>(), sr["stall_ns"].get<double>() / sr["simulated_ns"].get<double>());
  // Re-running the run's own policy from results.h5 gives the run's own time.
  bool seen = false;
  for (const auto& l : run["levers"]) {
    if (l["lever"] != "policy:" + sr["policy"].get<std::string>()) continue;
    seen = true;
    EXPECT_DOUBLE_EQ(l["simulated_ms"].get<double>(), sr["simulated_ns"].get<double>() / 1e6);
    EXPECT_DOUBLE_EQ(l["change"].get<double>(), 0.0);
  }
  EXPECT_TRUE(seen);
}

TEST(DiagnoseCli, BadInputsAreNamed) {
  test::TempDir dir;
  const std::string trace = kPrograms + "accel_cpu_offload_llama.h5";
  auto err = [&](const std::string& args) {
    const auto o = test::run_flashsim(dir.path(), "diagnose " + args);
    EXPECT_EQ(o.code, 2) << args << ": " << o.err;
    return o.err;
  };
  EXPECT_NE(err("").find("give an input"), std::string::npos);
  EXPECT_NE(err(trace + " -- true").find("not both"), std::string::npos);
  EXPECT_NE(err(trace + " --policies nosuch").find("--policies: unknown policy 'nosuch'"), std::string::npos);
  EXPECT_NE(err(trace + " --hardware nosuch").find("--hardware"), std::string::npos);
  EXPECT_NE(err(trace + " --ncu-csv /tmp").find("--ncu-csv /tmp: not a file"), std::string::npos);
  EXPECT_NE(err(trace + " --json ''").find("--json: an empty file name"), std::string::npos);
  EXPECT_NE(err(trace + " --json /nonexistent/d.json").find("does not exist"), std::string::npos);
  EXPECT_NE(err("--keep-trace k.txt -- true").find("--keep-trace k.txt"), std::string::npos);
  EXPECT_NE(err(trace + " --threshold l2_high=0.7").find("l2_low (80%) is above l2_high (70%)"), std::string::npos);
  EXPECT_NE(err(trace + " --skip-steps 100").find("--skip-steps"), std::string::npos);
  EXPECT_NE(err(trace + " --run 1").find("--run applies to a results folder"), std::string::npos);
  EXPECT_NE(err(trace + " --counters").find("--counters needs a command"), std::string::npos);
  // A missing ncu is said before the capture runs the program, not after.
  EXPECT_NE(err("--counters --ncu /nonexistent/ncu -- true").find("--ncu /nonexistent/ncu: no such executable"),
            std::string::npos);
  EXPECT_NE(err("--counters --ncu no-such-ncu-here -- true").find("no such executable on PATH"), std::string::npos);
  EXPECT_NE(err(trace + " --threshold bogus=1").find("unknown key 'bogus'"), std::string::npos);
  EXPECT_NE(err(trace + " --weight-kernels '('").find("--weight-kernels"), std::string::npos);
  EXPECT_NE(err(trace + " --skip-steps 100").find("leaves none"), std::string::npos);
  EXPECT_NE(err(std::string(FLASHSIM_SOURCE_DIR) + "/tests/data/nope.h5").find("nope.h5"), std::string::npos);
  std::filesystem::create_directories(dir.path() / "s");
  test::write_file(dir.path() / "s/summary.json", "{\"runs\": 3}");
  EXPECT_NE(err("s").find("'runs' is not an array"), std::string::npos);
  ASSERT_EQ(test::run_flashsim(dir.path(), "run --out r --set cache.capacity=25%").code, 0);
  EXPECT_NE(err("r --run 99").find("--run 99"), std::string::npos);
  EXPECT_NE(err("r --run -1").find("--run -1"), std::string::npos);
  EXPECT_NE(err("r/results.h5").find("give the results folder"), std::string::npos);
  std::filesystem::remove(dir.path() / "r/results.h5");
  EXPECT_NE(err("r --run 0").find("results.h5: no such file"), std::string::npos);
}

}  // namespace
}  // namespace flashsim::diagnose
