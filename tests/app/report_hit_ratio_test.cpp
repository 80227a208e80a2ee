// `flashsim report`'s hit ratio over time (sim/report/hit_ratio_over_time.h):
// each plotted point is hits / accesses of its window as results.h5 holds
// it, windows without accesses are left out, long runs are summed into
// wider windows, many runs go one panel per sweep point, and the data file
// beside the page holds what the chart is drawn from.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

#include "sim/report/hit_ratio_over_time.h"
#include "sim/results/results_writer.h"
#include "sim/results/timeseries_group.h"
#include "tests/app/app_test_util.h"
#include "tests/support/temp_dir.h"
#include "traces/hdf5_io.h"

namespace flashsim {
namespace {

using nlohmann::json;

struct Window {
  Nanoseconds start_ns;
  std::uint64_t accesses, hits;
};

RunResult run_with(std::size_t index, const std::string& policy, const std::vector<Window>& windows,
                   Nanoseconds simulated_ns) {
  RunResult run;
  run.index = index;
  run.policy_index = index;
  run.policy = policy;
  run.policy_label = policy;
  run.engine = "event";
  run.decision_clock = "trace";
  run.capacity_text = "25%";
  run.capacity_bytes = 1000;
  run.footprint_bytes = 4000;
  RunMetrics& m = run.result.metrics;
  m.simulated_ns = simulated_ns;
  m.window_ns = 100;
  for (const Window& w : windows) {
    MetricsWindow win;
    win.start_ns = w.start_ns;
    win.counters.accesses = w.accesses;
    win.counters.hits = w.hits;
    win.counters.misses = w.accesses - w.hits;
    m.total.accesses += w.accesses;
    m.total.hits += w.hits;
    m.total.misses += w.accesses - w.hits;
    m.windows.push_back(win);
  }
  return run;
}

// Two runs: lru with four 100 ns windows (the second without accesses, the
// last cut at 350 ns by the run's end), fifo with none.
report::RunSummaryDocument written_sample(const test::TempDir& dir) {
  ScenarioResults r;
  r.scenario_name = "windows";
  r.scenario_source = "windows.yaml";
  r.input_text = "name: windows\n";
  r.resolved_texts = {"name: windows\n"};
  r.point_labels = {""};
  r.tool_version = "test-version";
  r.runs.push_back(run_with(0, "lru", {{0, 10, 4}, {100, 0, 0}, {200, 8, 8}, {300, 5, 1}}, 350));
  r.runs.push_back(run_with(1, "fifo", {}, 350));
  r.host.date_utc = "2026-12-02T00:00:00Z";
  write_results(dir.path(), r);
  return report::read_run_summary_document(report::JsonFields(dir / "summary.json"));
}

TEST(ReportHitRatio, EachPointIsHitsOverAccessesOfItsWindowAndEmptyWindowsAreLeftOut) {
  test::TempDir dir;
  const report::RunSummaryDocument doc = written_sample(dir);
  const report::HitRatioOverTime s = report::read_hit_ratio_over_time(doc);
  ASSERT_EQ(s.runs.size(), 1u);  // fifo has no window with accesses: no line
  EXPECT_EQ(s.note, "1 run has no window with accesses and no line.");
  const report::HitRatioSeries& lru = s.runs[0];
  EXPECT_EQ(lru.row, 0u);
  EXPECT_EQ(lru.window_ns, 100);
  EXPECT_EQ(lru.merged, 1u);
  EXPECT_EQ(lru.empty_windows, 1u);
  EXPECT_EQ(lru.start_ns, (std::vector<Nanoseconds>{0, 200, 300}));
  EXPECT_EQ(lru.end_ns, (std::vector<Nanoseconds>{100, 300, 350}));  // the last cut by the run's end
  EXPECT_EQ(lru.hits, (std::vector<std::uint64_t>{4, 8, 1}));
  EXPECT_EQ(lru.accesses, (std::vector<std::uint64_t>{10, 8, 5}));

  const report::HitRatioLayout layout = report::layout_hit_ratio(doc, s, "r-hit-ratio.json");
  ASSERT_EQ(layout.panels.size(), 1u);
  EXPECT_EQ(layout.note, "");
  EXPECT_EQ(layout.panels[0].title, "every run at capacity 25% (1.00 kB)");  // one capacity: said once
  EXPECT_EQ(layout.panels[0].labels, (std::vector<std::string>{"lru"}));
  const report::Json j = report::hit_ratio_section_json(doc, s, layout);
  EXPECT_EQ(j.at("time_unit"), "ns");  // 350 ns long
  EXPECT_EQ(j.at("note"), "1 run has no window with accesses and no line.");
  ASSERT_EQ(j.at("runs").size(), 1u);
  const auto ratios = j.at("runs")[0].at("hit_ratio").get<std::vector<double>>();
  EXPECT_EQ(ratios, (std::vector<double>{4.0 / 10, 8.0 / 8, 1.0 / 5}));
  EXPECT_EQ(j.at("panels")[0].at("lines")[0].at("series"), 0);
  EXPECT_EQ(j.at("panels")[0].at("lines")[0].at("label"), "lru");
}

TEST(ReportHitRatio, LongRunsAreSummedIntoWiderWindows) {
  test::TempDir dir;
  const report::RunSummaryDocument doc = written_sample(dir);
  // Four windows at most two a line: pairs summed, [0, 200) and [200, 350).
  const report::HitRatioOverTime s = report::read_hit_ratio_over_time(doc, 2);
  ASSERT_EQ(s.runs.size(), 1u);
  const report::HitRatioSeries& lru = s.runs[0];
  EXPECT_EQ(lru.merged, 2u);
  EXPECT_EQ(lru.window_ns, 200);
  EXPECT_EQ(lru.empty_windows, 0u);
  EXPECT_EQ(lru.start_ns, (std::vector<Nanoseconds>{0, 200}));
  EXPECT_EQ(lru.end_ns, (std::vector<Nanoseconds>{200, 350}));
  EXPECT_EQ(lru.hits, (std::vector<std::uint64_t>{4, 9}));
  EXPECT_EQ(lru.accesses, (std::vector<std::uint64_t>{10, 13}));
  // One plotted window of all four.
  const report::HitRatioOverTime one = report::read_hit_ratio_over_time(doc, 1);
  EXPECT_EQ(one.runs[0].hits, (std::vector<std::uint64_t>{13}));
  EXPECT_EQ(one.runs[0].accesses, (std::vector<std::uint64_t>{23}));
  EXPECT_EQ(one.runs[0].end_ns, (std::vector<Nanoseconds>{350}));
}

TEST(ReportHitRatio, SaysWhyThereIsNoChartAndNamesAMissingGroup) {
  test::TempDir dir;
  report::RunSummaryDocument doc = written_sample(dir);
  doc.runs[1].run = 7;  // a summary of another run: no /timeseries/run_007
  EXPECT_EQ(test::error_of<InputError>([&] { report::read_hit_ratio_over_time(doc); }),
            (dir / "results.h5").string() +
                ": /timeseries/run_007: no such group (run 7 of the summary, fifo); is summary.json of another run?");
  doc.file = dir / "elsewhere" / "summary.json";
  const report::HitRatioOverTime none = report::read_hit_ratio_over_time(doc);
  EXPECT_TRUE(none.runs.empty());
  EXPECT_EQ(none.note, "No hit ratio over time: no " + (dir / "elsewhere" / "results.h5").string() + " beside the summary.");
  EXPECT_EQ(timeseries_group_name(7, 2), "run_007");
  EXPECT_EQ(timeseries_group_name(1234, 5000), "run_1234");
}

// A sweep of `points` capacities x `policies` runs, each with a series.
report::RunSummaryDocument sweep_doc(std::size_t points, std::size_t policies, report::HitRatioOverTime& series) {
  report::RunSummaryDocument doc;
  for (std::size_t p = 0; p < points; ++p) {
    for (std::size_t k = 0; k < policies; ++k) {
      report::RunSummaryRow r;
      r.policy_label = "p" + std::to_string(k);
      r.point = p;
      r.capacity = std::to_string(10 * (p + 1)) + "%";
      r.capacity_bytes = 1e9 * double(p + 1);
      r.point_label = "cache.capacity=" + r.capacity + " workload.rate=2";
      report::HitRatioSeries s;
      s.row = doc.runs.size();
      series.runs.push_back(s);
      doc.runs.push_back(r);
    }
  }
  return doc;
}

TEST(ReportHitRatio, ManyRunsGoOnePanelPerSweepPointAndSayWhatWasLeftOut) {
  {  // 10 runs: one chart, policy @ capacity and the rest of the point in the legend
    report::HitRatioOverTime s;
    const report::RunSummaryDocument doc = sweep_doc(2, 5, s);
    const report::HitRatioLayout l = report::layout_hit_ratio(doc, s, "r-hit-ratio.json");
    ASSERT_EQ(l.panels.size(), 1u);
    EXPECT_EQ(l.panels[0].series.size(), 10u);
    EXPECT_EQ(l.panels[0].title, "");
    EXPECT_EQ(l.panels[0].labels[6], "p1 @ 20% (2.00 GB) \u00b7 workload.rate=2");
    EXPECT_EQ(l.note, "");
  }
  {  // 12 runs at 3 points: a panel each, the policy in the legend
    report::HitRatioOverTime s;
    const report::RunSummaryDocument doc = sweep_doc(3, 4, s);
    const report::HitRatioLayout l = report::layout_hit_ratio(doc, s, "r-hit-ratio.json");
    ASSERT_EQ(l.panels.size(), 3u);
    EXPECT_EQ(l.panels[2].title, "capacity 30% (3.00 GB) \u00b7 workload.rate=2");
    EXPECT_EQ(l.panels[2].series, (std::vector<std::size_t>{8, 9, 10, 11}));
    EXPECT_EQ(l.panels[2].labels, (std::vector<std::string>{"p0", "p1", "p2", "p3"}));
    EXPECT_EQ(l.note, "");
  }
  {  // 20 points x 2: six panels evenly spread (points 0, 4, 8, 11, 15, 19)
    report::HitRatioOverTime s;
    const report::RunSummaryDocument doc = sweep_doc(20, 2, s);
    const report::HitRatioLayout l = report::layout_hit_ratio(doc, s, "r-hit-ratio.json");
    ASSERT_EQ(l.panels.size(), 6u);
    std::vector<std::size_t> first;
    for (const auto& p : l.panels) first.push_back(p.series.front() / 2);
    EXPECT_EQ(first, (std::vector<std::size_t>{0, 4, 8, 11, 15, 19}));
    EXPECT_EQ(l.note, "Shown: 6 of 20 sweep points (evenly spread, the first and the last kept). Every run's series is "
                      "in r-hit-ratio.json.");
  }
  {  // one point of 12 policies: the first 10
    report::HitRatioOverTime s;
    const report::RunSummaryDocument doc = sweep_doc(1, 12, s);
    const report::HitRatioLayout l = report::layout_hit_ratio(doc, s, "r-hit-ratio.json");
    ASSERT_EQ(l.panels.size(), 1u);
    EXPECT_EQ(l.panels[0].title, "capacity 10% (1.00 GB) \u00b7 workload.rate=2");
    EXPECT_EQ(l.panels[0].series.size(), 10u);
    EXPECT_EQ(l.note, "Shown: the first 10 runs of a point (up to 12; 2 runs of the shown points left out). Every "
                      "run's series is in r-hit-ratio.json.");
  }
}

#ifdef FLASHSIM_BINARY

bool matplotlib_available() {
  return std::system("/usr/bin/python3 -s -c 'import matplotlib' > /dev/null 2>&1") == 0;
}

std::vector<double> column(hid_t group, const char* name) {
  auto ds = h5::open_dataset(group, name);
  const hsize_t n = h5::length(ds.get(), name);
  std::vector<double> v(n);
  if (n > 0) h5::read_range(ds.get(), H5T_NATIVE_DOUBLE, 0, n, v.data());
  return v;
}

// The mini Mixtral's seven expert-cache policies (event engine, 10 ms
// windows, up to about 400 of them: summed in threes for every run, 200 at
// most a line): the report's data is results.h5's hits / accesses per
// summed window.
TEST(ReportHitRatio, ReportOfARealRunCarriesTheWindowsOfResultsH5) {
  test::TempDir dir;
  const std::filesystem::path scenario =
      std::filesystem::path(FLASHSIM_SOURCE_DIR) / "scenarios/examples/mixtral-mini-experts.yaml";
  test::Outcome o = test::run_flashsim(dir.path(), "run " + scenario.string() + " --out res");
  ASSERT_EQ(o.code, 0) << o.err;
  const bool plots = matplotlib_available();
  o = test::run_flashsim(dir.path(), std::string("report res --out r.html --no-bound") + (plots ? "" : " --no-plots"));
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("hit ratio over time data: r-hit-ratio.json"), std::string::npos) << o.out;
  const json data = json::parse(test::read_file(dir / "r-hit-ratio.json"));
  EXPECT_EQ(data.at("schema"), "flashsim-report-hit-ratio/1");
  const json& sec = data.at("sections").at(0);
  EXPECT_EQ(sec.at("time_unit"), "s");
  ASSERT_EQ(sec.at("runs").size(), 7u);
  ASSERT_EQ(sec.at("panels").size(), 1u);  // 7 runs: one chart
  EXPECT_EQ(sec.at("panels")[0].at("lines")[0].at("label"), "lru");
  const std::string title = sec.at("panels")[0].at("title");  // one capacity: in the title, the fast tier in SI bytes
  EXPECT_TRUE(title.rfind("every run at capacity 50% (", 0) == 0 && title.back() == ')') << title;

  h5::QuietErrors quiet;
  auto file = h5::open_file_read((dir / "res" / "results.h5").string());
  std::vector<std::vector<double>> starts, hitss, accessess;
  double longest = 0;
  for (std::size_t k = 0; k < 7; ++k) {
    auto g = h5::open_group(file.get(), ("timeseries/" + timeseries_group_name(k, 7)).c_str());
    starts.push_back(column(g.get(), "start_ns"));
    hitss.push_back(column(g.get(), "hits"));
    accessess.push_back(column(g.get(), "accesses"));
    ASSERT_FALSE(starts.back().empty());
    longest = std::max(longest, starts.back().back() + 10e6);
  }
  // The longest run's 10 ms windows, at most kMaxWindows a line: every run summed by `merged`.
  const auto merged = static_cast<std::size_t>(std::ceil(std::ceil(longest / 10e6) / double(report::kMaxWindows)));
  EXPECT_EQ(merged, 3u);
  std::size_t checked = 0;
  for (std::size_t k = 0; k < 7; ++k) {
    const json& run = sec.at("runs")[k];
    ASSERT_EQ(run.at("run"), k);
    const std::vector<double>& start = starts[k];
    const std::vector<double>& hits = hitss[k];
    const std::vector<double>& accesses = accessess[k];
    EXPECT_EQ(run.at("merged"), merged) << k;
    EXPECT_EQ(run.at("window_ns").get<double>(), 10e6 * double(merged)) << k;
    const double width = 10e6 * double(merged);
    std::map<long long, std::pair<double, double>> wide;  // summed window -> hits, accesses
    for (std::size_t w = 0; w < start.size(); ++w) {
      ASSERT_EQ(std::fmod(start[w], 10e6), 0.0);  // 10 ms windows from 0
      auto& p = wide[static_cast<long long>(start[w] / width)];
      p.first += hits[w];
      p.second += accesses[w];
    }
    std::vector<double> want_start, want_ratio;
    for (const auto& [index, p] : wide) {
      if (p.second == 0) continue;
      want_start.push_back(double(index) * width);
      want_ratio.push_back(p.first / p.second);
    }
    EXPECT_EQ(run.at("start_ns").get<std::vector<double>>(), want_start) << k;
    EXPECT_EQ(run.at("hit_ratio").get<std::vector<double>>(), want_ratio) << k;
    EXPECT_EQ(run.at("empty_windows").get<std::size_t>(), wide.size() - want_start.size()) << k;
    checked += want_start.size();
  }
  EXPECT_GT(checked, 7u * 60);  // each run has 60 summed windows and more

  const std::string html = test::read_file(dir / "r.html");
  if (plots) {
    EXPECT_NE(html.find("<figure id=\"fig-hit_ratio_runs\">"), std::string::npos);
    EXPECT_NE(html.find("Hit ratio over time: mixtral-mini-experts"), std::string::npos);
    EXPECT_NE(html.find("Hit ratio (hits / accesses) of each 30 ms window of simulated time (results.h5&#39;s 10 ms "
                        "windows summed by 3)"),
              std::string::npos);
  } else {
    GTEST_SKIP() << "matplotlib is not installed: checked the data, not the figure";
  }
}

// A cache_only sweep keeps no time series: the page says so, and no data file.
TEST(ReportHitRatio, CacheOnlyRunsSayTheyHaveNoTimeSeries) {
  test::TempDir dir;
  test::write_file(dir / "t.csv", test::cyclic_csv(8, 4, 64));
  test::write_file(dir / "s.yaml", "name: cyc\nworkload: {trace: t.csv}\nengine: {impl: cache_only}\ncache: {capacity: 50%}\n"
                                   "policies: [lru]\n");
  test::Outcome o = test::run_flashsim(dir.path(), "run s.yaml --out res");
  ASSERT_EQ(o.code, 0) << o.err;
  o = test::run_flashsim(dir.path(), "report res --out r.html --no-plots");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "r-hit-ratio.json"));
  EXPECT_EQ(o.out.find("hit ratio over time"), std::string::npos) << o.out;
  EXPECT_NE(test::read_file(dir / "r.html")
                .find("No hit ratio over time: the runs keep no time series (engine cache_only has no simulated time)."),
            std::string::npos);
}

#endif

}  // namespace
}  // namespace flashsim
