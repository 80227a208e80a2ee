// sim/validate: repeats, tolerances, suite statistics, baselines and their
// provenance, suite files, and run_validation end to end on a small suite
// against hand-made recorded baselines.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

#include "sim/validate/baseline.h"
#include "sim/validate/comparison.h"
#include "sim/validate/validation_output.h"
#include "sim/validate/validation_runner.h"
#include "sim/validate/validation_suite.h"
#include "tests/support/temp_dir.h"

namespace flashsim {
namespace {

void write(const std::filesystem::path& p, const std::string& text) {
  std::ofstream(p) << text;
}

MetricSpec relative(const std::string& name, double tol, double floor) {
  MetricSpec m;
  m.name = name;
  m.kind = ToleranceKind::relative;
  m.tolerance = tol;
  m.floor = floor;
  return m;
}

TEST(ValidateRepeats, MedianMinMaxOddAndEven) {
  const MeasuredValue odd = summarize_repeats({5, 1, 4, 2, 3});
  EXPECT_EQ(odd.median, 3);
  EXPECT_EQ(odd.min, 1);
  EXPECT_EQ(odd.max, 5);
  EXPECT_EQ(odd.values, (std::vector<double>{5, 1, 4, 2, 3}));  // run order kept
  EXPECT_DOUBLE_EQ(odd.relative_spread(), 4.0 / 3.0);
  EXPECT_EQ(summarize_repeats({4, 1, 3, 2}).median, 2.5);
  EXPECT_THROW(summarize_repeats({}), Error);
}

TEST(ValidateCompare, RelativeErrorAgainstFloorAndWidenedTolerance) {
  // hw 100 ± 1 (spread 2%): 3 x spread = 6% < 10% -> tolerance stays 10%.
  const MeasuredValue hw = summarize_repeats({99, 100, 101, 100, 100});
  ComparisonRow r = compare_metric(relative("time_per_token_ns", 0.10, 0), 109, &hw, true);
  EXPECT_DOUBLE_EQ(r.rel_error, 0.09);
  EXPECT_DOUBLE_EQ(r.tolerance_effective, 0.10);
  EXPECT_TRUE(r.passed);
  r = compare_metric(relative("time_per_token_ns", 0.10, 0), 111, &hw, true);
  EXPECT_FALSE(r.passed);
  EXPECT_TRUE(r.gated);
  // A noisy hw figure (90..110, spread 20%) widens 10% to 60%: never tighter than 3x spread.
  const MeasuredValue noisy = summarize_repeats({90, 100, 110, 100, 100});
  r = compare_metric(relative("stall_ns", 0.10, 0), 150, &noisy, true);
  EXPECT_DOUBLE_EQ(r.tolerance_effective, 0.6);
  EXPECT_TRUE(r.passed);
  // Near-zero stall: 2 us vs 1 us is 100% off, but only 0.1% of a 1 ms floor.
  const MeasuredValue tiny = summarize_repeats({1000, 1000, 1000, 1000, 1000});
  r = compare_metric(relative("stall_ns", 0.15, 1e6), 2000, &tiny, true);
  EXPECT_DOUBLE_EQ(r.rel_error, 1000.0 / 1e6);
  EXPECT_TRUE(r.passed);
}

TEST(ValidateCompare, ExactAbsoluteAndScope) {
  MetricSpec exact;
  exact.name = "hit_ratio_by_access";
  exact.kind = ToleranceKind::exact;
  const MeasuredValue hw = summarize_repeats({0.25, 0.25, 0.25, 0.25, 0.25});
  EXPECT_TRUE(compare_metric(exact, 0.25, &hw, true).passed);
  EXPECT_FALSE(compare_metric(exact, 0.25 + 1e-9, &hw, true).passed);
  // Out of scope: reported, not judged, cannot fail.
  const ComparisonRow out = compare_metric(exact, 0.5, &hw, false);
  EXPECT_FALSE(out.judged);
  EXPECT_TRUE(out.passed);
  MetricSpec abs;
  abs.name = "prefetch_accuracy";
  abs.kind = ToleranceKind::absolute;
  abs.tolerance = 0.05;
  EXPECT_TRUE(compare_metric(abs, 0.29, &hw, true).passed);
  EXPECT_FALSE(compare_metric(abs, 0.31, &hw, true).passed);
  // No hw figure: nothing judged.
  EXPECT_FALSE(compare_metric(abs, 0.31, nullptr, true).judged);
}

TEST(ValidateStatistics, PearsonByHand) {
  EXPECT_DOUBLE_EQ(*pearson_r({1, 2, 3}, {2, 4, 6}), 1.0);
  EXPECT_DOUBLE_EQ(*pearson_r({1, 2, 3}, {3, 2, 1}), -1.0);
  // x = 1..4, y = 1,3,2,4: cov 1.25, var 1.25 each -> r = 0.8 (sample-free form).
  EXPECT_NEAR(*pearson_r({1, 2, 3, 4}, {1, 3, 2, 4}), 0.8, 1e-12);
  EXPECT_FALSE(pearson_r({1}, {1}).has_value());
  EXPECT_FALSE(pearson_r({1, 1}, {2, 3}).has_value());
  EXPECT_THROW(pearson_r({1, 2}, {1}), Error);
}

EntryComparison entry(const std::string& name, bool fit, double sim, double hw) {
  EntryComparison e;
  e.name = name;
  e.fit = fit;
  const MeasuredValue m = summarize_repeats({hw, hw, hw, hw, hw});
  e.rows.push_back(compare_metric(relative("time_per_token_ns", 0.10, 0), sim, &m, true));
  return e;
}

TEST(ValidateStatistics, SummaryByRoleOnLogsWhenValuesSpanDecades) {
  // Errors 5%, 20%, 0%: MAE 8.33%, two under 10%; values span 1e3 -> log10.
  const std::vector<EntryComparison> entries = {entry("a", true, 105, 100), entry("b", false, 12000, 10000),
                                                entry("c", false, 1e5, 1e5)};
  const auto s = summarize({relative("time_per_token_ns", 0.1, 0)}, entries, 10.0);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0].role, "all");
  EXPECT_EQ(s[0].n, 3u);
  EXPECT_NEAR(s[0].mae_pct, 25.0 / 3.0, 1e-9);
  EXPECT_EQ(s[0].under_10pct, 2u);
  EXPECT_NEAR(s[0].max_rel_error, 0.2, 1e-12);
  EXPECT_TRUE(s[0].pearson_log10);
  const double r = *pearson_r({std::log10(105.0), std::log10(12000.0), 5.0}, {2.0, 4.0, 5.0});
  EXPECT_NEAR(*s[0].pearson_r, r, 1e-12);
  EXPECT_EQ(s[1].role, "fit");
  EXPECT_EQ(s[1].n, 1u);
  EXPECT_EQ(s[2].role, "holdout");
  EXPECT_NEAR(s[2].mae_pct, 10.0, 1e-9);
  EXPECT_FALSE(s[1].pearson_r.has_value());  // one value
}

BaselineProvenance good_provenance() {
  BaselineProvenance p;
  p.commit = std::string(40, 'a');
  p.date_utc = "2026-11-30T09:00:00Z";
  p.device.name = "NVIDIA H200";
  p.device.uuid = "GPU-12345678-1234-1234-1234-123456789abc";
  p.device.driver_version = "570.1";
  p.device.sm_clock_mhz = 1980;
  p.device.memory_clock_mhz = 3201;
  p.profile_name = "h200-calibrated";
  p.profile_text = "name: h200-calibrated\n";
  p.profile_fingerprint = content_fingerprint(p.profile_text);
  p.repeats = 5;
  return p;
}

TEST(ValidateBaseline, RoundTripAndProvenanceRefused) {
  test::TempDir dir;
  Baseline b;
  b.suite = "s";
  b.provenance = good_provenance();
  BaselineEntry e;
  e.name = "one";
  e.tokens = 4;
  e.metrics.emplace("stall_ns", summarize_repeats({1, 2, 3, 4, 5}));
  e.series.latency_q = {0.5};
  e.series.latency_ns = {100};
  b.entries.push_back(e);
  write_baseline(dir / "b.json", b);
  const Baseline r = read_baseline(dir / "b.json");
  EXPECT_EQ(r.provenance.device.uuid, b.provenance.device.uuid);
  EXPECT_EQ(r.entries.at(0).metrics.at("stall_ns").median, 3);
  EXPECT_EQ(r.entries.at(0).metrics.at("stall_ns").values.size(), 5u);
  EXPECT_EQ(r.entries.at(0).series.latency_ns, std::vector<double>{100});

  auto refused = [&](auto edit, const std::string& field) {
    Baseline bad = b;
    edit(bad.provenance);
    try {
      write_baseline(dir / "bad.json", bad);
      ADD_FAILURE() << field << " accepted";
    } catch (const InputError& x) {
      EXPECT_NE(std::string(x.what()).find(field), std::string::npos) << x.what();
    }
    EXPECT_FALSE(std::filesystem::exists(dir / "bad.json"));
  };
  refused([](BaselineProvenance& p) { p.commit = "abc"; }, "provenance.commit");
  refused([](BaselineProvenance& p) { p.device.uuid = ""; }, "provenance.device.uuid");
  refused([](BaselineProvenance& p) { p.device.driver_version = ""; }, "provenance.device.driver_version");
  refused([](BaselineProvenance& p) { p.device.sm_clock_mhz = 0; }, "provenance.device.sm_clock_mhz");
  refused([](BaselineProvenance& p) { p.profile_text += "x"; }, "provenance.profile.fingerprint");
  refused([](BaselineProvenance& p) { p.device.uuid = "GPU-zzzz-not-a-uuid"; }, "provenance.device.uuid");
  refused([](BaselineProvenance& p) { p.date_utc = "yesterday"; }, "provenance.date_utc");
  refused([](BaselineProvenance& p) { p.repeats = 1; }, "provenance.repeats");
  // Reading refuses a file whose provenance was stripped.
  write(dir / "stripped.json", R"({"schema": "flashsim-baseline/1", "suite": "s", "entries": []})");
  EXPECT_THROW(read_baseline(dir / "stripped.json"), InputError);
  write(dir / "wrong.json", R"({"schema": "other"})");
  EXPECT_THROW(read_baseline(dir / "wrong.json"), InputError);
}

const char* kScenario = R"(name: tiny
hardware:
  profile: h200
workload:
  generator: synthetic
  pattern: zipf
  block_bytes: 64KiB
  blocks: 64
  tokens: 4
  compute: 10us
cache:
  capacity: 50%
policies:
  - impl: lru
)";

std::string suite_text(const std::string& extra_entry = "") {
  return std::string(R"(name: tiny-suite
baseline: base.json
metrics:
  time_per_token_ns: {kind: relative, tolerance: 10%, floor: 10us}
  hit_ratio_by_access: {kind: exact, scope: demand_only}
entries:
  - name: lru-50
    role: fit
    scenario: tiny.yaml
  - name: arc-25
    scenario: tiny.yaml
    set:
      cache.capacity: 25%
      policies: [{impl: arc}]
)") + extra_entry;
}

void expect_suite_error(const test::TempDir& dir, const std::string& text, const std::string& needle) {
  write(dir / "bad.yaml", text);
  try {
    (void)load_validation_suite(dir / "bad.yaml");
    ADD_FAILURE() << "accepted: " << needle;
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(ValidateSuite, ParsesAndNamesBadInput) {
  test::TempDir dir;
  write(dir / "tiny.yaml", kScenario);
  write(dir / "s.yaml", suite_text());
  const ValidationSuite s = load_validation_suite(dir / "s.yaml");
  ASSERT_EQ(s.entries.size(), 2u);
  EXPECT_TRUE(s.entries[0].fit);
  EXPECT_FALSE(s.entries[1].fit);
  EXPECT_EQ(s.metrics[0].tolerance, 0.10);
  EXPECT_EQ(s.metrics[0].floor, 10000.0);
  EXPECT_EQ(s.repeats, 5u);
  std::string t = suite_text();
  expect_suite_error(dir, std::string(t).replace(t.find("hit_ratio_by_access:"), 20, "hit_ratio_by_acess:"),
                     "did you mean 'hit_ratio_by_access'");
  expect_suite_error(dir, std::string(t).replace(t.find("hit_ratio_by_access:"), 20, "hit_ratio:"),
                     "is now 'hit_ratio_by_access'");
  expect_suite_error(dir, std::string(t).replace(t.find("role: fit"), 9, "role: train"), "bad.yaml:");
  expect_suite_error(dir, suite_text("  - name: lru-50\n    scenario: tiny.yaml\n"), "'lru-50' appears twice");
  expect_suite_error(dir, suite_text("  - name: x\n    scenario: nope.yaml\n"), "no such file");
  expect_suite_error(dir, suite_text("  - name: x y\n    scenario: tiny.yaml\n"), "use letters");
  expect_suite_error(dir, "name: s\nbaseline: b.json\nmetrics: {stall_ns: {kind: relative}}\nentries: []\n", "tolerance");
  expect_suite_error(dir, std::string(t).replace(t.find("baseline"), 8, "baselin"), "unknown key");
  expect_suite_error(dir, std::string(t).replace(t.find("tolerance: 10%"), 14, "tolerance: 10"), "a fraction (0.1) or a percentage");
  expect_suite_error(dir, std::string(t).replace(t.find("{kind: exact,"), 13, "{kind: exact, floor: 1,"), "takes no floor");
}

// Writes a baseline whose hw figures are the simulator's times `scale`.
void write_scaled_baseline(const ValidationSuite& suite, const std::filesystem::path& file, double scale) {
  Baseline b;
  b.suite = suite.name;
  b.provenance = good_provenance();
  for (const SuiteEntry& e : suite.entries) {
    const SimulatedEntry s = simulate_entry(suite, e);
    BaselineEntry be;
    be.name = e.name;
    be.scenario_fingerprint = suite_entry_fingerprint(suite, e);
    be.inputs_fingerprint = entry_inputs_fingerprint(e);
    for (const auto& [name, v] : metrics_of(s.run, s.tokens)) {
      const double x = name == "time_per_token_ns" ? v * scale : v;
      be.metrics.emplace(name, summarize_repeats({x, x, x, x, x}));
    }
    b.entries.push_back(be);
  }
  write_baseline(file, b);
}

TEST(ValidateRun, PassesWithinToleranceFailsOutsideAndNamesStaleEntries) {
  test::TempDir dir;
  write(dir / "tiny.yaml", kScenario);
  write(dir / "s.yaml", suite_text());
  const ValidationSuite suite = load_validation_suite(dir / "s.yaml");
  ValidationOptions o;
  o.hw = HwSource::recorded;
  o.jobs = 1;

  write_scaled_baseline(suite, dir / "base.json", 1.05);  // sim 4.8% below hw
  ValidationReport r = run_validation(suite, o, nullptr);
  EXPECT_TRUE(r.passed());
  ASSERT_EQ(r.entries.size(), 2u);
  EXPECT_NEAR(r.entries[0].rows[0].rel_error, 1.0 - 1.0 / 1.05, 1e-9);
  EXPECT_EQ(r.entries[0].rows[1].rel_error, 0.0);  // hit ratio identical
  // Tokens: 4 passes of token_index 0..3.
  EXPECT_EQ(r.entries[0].tokens, 4u);

  write_scaled_baseline(suite, dir / "base.json", 1.25);  // sim 20% below hw
  r = run_validation(suite, o, nullptr);
  EXPECT_FALSE(r.passed());
  std::ostringstream table;
  print_validation(table, r);
  EXPECT_NE(table.str().find("lru-50 time_per_token_ns"), std::string::npos) << table.str();
  EXPECT_NE(table.str().find("FAILED"), std::string::npos);

  // Replay options other than the recording's, and a gated metric missing: problems.
  {
    Baseline b = read_baseline(dir / "base.json");
    b.entries[0].replay.run_ahead = 1;  // the suite says the default, 8
    b.entries[1].metrics.erase("time_per_token_ns");
    write_baseline(dir / "base.json", b);
    r = run_validation(suite, o, nullptr);
    EXPECT_FALSE(r.passed());
    ASSERT_EQ(r.problems.size(), 2u);
    EXPECT_NE(r.problems[0].find("lru-50: recorded with replay {backing: pinned, run_ahead: 1"), std::string::npos) << r.problems[0];
    EXPECT_NE(r.problems[1].find("arc-25: the baseline has no 'time_per_token_ns'"), std::string::npos) << r.problems[1];
  }

  // The scenario changes after recording: the entry is stale, not compared.
  write_scaled_baseline(suite, dir / "base.json", 1.0);
  write(dir / "tiny.yaml", std::string(kScenario) + "seed: 7\n");
  r = run_validation(suite, o, nullptr);
  EXPECT_FALSE(r.passed());
  ASSERT_EQ(r.problems.size(), 2u);
  EXPECT_NE(r.problems[0].find("lru-50: its scenario or overrides changed"), std::string::npos);
  // validation.json carries the rows.
  const auto path = write_validation_json(dir / "out", r);
  std::ifstream in(path);
  const std::string json((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(json.find("\"schema\": \"flashsim-validation/1\""), std::string::npos);
  EXPECT_NE(json.find("\"name\": \"arc-25\""), std::string::npos);
}

TEST(ValidateRun, EntryMustBeOneRun) {
  test::TempDir dir;
  write(dir / "tiny.yaml", std::string(kScenario) + "sweep:\n  cache.capacity: [25%, 50%]\n");
  write(dir / "s.yaml", suite_text());
  const ValidationSuite suite = load_validation_suite(dir / "s.yaml");
  try {
    (void)simulate_entry(suite, suite.entries[0]);
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("entry 'lru-50': resolves to 2 sweep points"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace flashsim
