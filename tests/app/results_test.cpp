// results.h5 and summary.json: content, determinism (simulated data
// identical across writes; /host apart), atomicity (a failure mid-write
// leaves nothing and keeps an existing file), and the printed table.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "sim/core/errors.h"
#include "sim/results/component_table.h"
#include "sim/results/metric_schema.h"
#include "sim/results/results_table.h"
#include "sim/results/results_writer.h"
#include "tests/app/app_test_util.h"
#include "tests/app/h5_dump.h"
#include "tests/support/temp_dir.h"

namespace flashsim {
namespace {

// Two points × two policies of hand-made metrics.
ScenarioResults sample_results() {
  ScenarioResults r;
  r.scenario_name = "sample";
  r.scenario_source = "sample.yaml";
  r.input_text = "name: sample\n";
  r.resolved_texts = {"name: sample\ncache: {capacity: 25%}\n", "name: sample\ncache: {capacity: 50%}\n"};
  r.point_labels = {"cache.capacity=25%", "cache.capacity=50%"};
  r.tool_version = "test-version";
  for (std::size_t p = 0; p < 2; ++p) {
    for (std::size_t k = 0; k < 2; ++k) {
      RunResult run;
      run.index = p * 2 + k;
      run.point_index = p;
      run.point_label = r.point_labels[p];
      run.policy_index = k;
      run.policy = k == 0 ? "lru" : "mlru";
      run.policy_label = k == 0 ? "lru" : "mlru(reading=literal)";
      if (k == 1) run.policy_params = {{"reading", "literal"}, {"history", "100"}};
      run.engine = "event";
      run.decision_clock = "trace";
      run.seed = 7;
      run.capacity_text = p == 0 ? "25%" : "50%";
      run.footprint_bytes = 4000;
      run.capacity_bytes = (p + 1) * 1000;
      AccessCounters& c = run.result.metrics.total;
      c.accesses = 100;
      c.hits = 10 * (run.index + 1);
      c.misses = c.accesses - c.hits;
      c.bytes_accessed = 100 * 64;
      c.bytes_hit = c.hits * 64;
      c.bytes_fetched = c.misses * 64;
      c.evictions = c.misses / 2;
      c.stall_ns = 12345 + static_cast<Nanoseconds>(run.index);
      for (Nanoseconds v : {100, 200, 300, 4000}) run.result.metrics.latency.add(v);
      run.result.metrics.simulated_ns = 1'000'000;
      run.result.metrics.window_ns = 400'000;
      for (int w = 0; w < 3; ++w) {
        MetricsWindow win;
        win.start_ns = w * 400'000;
        win.counters.accesses = 40;
        win.counters.hits = static_cast<std::uint64_t>(w) * 5;
        win.counters.bytes_accessed = 40 * 64;
        win.counters.bytes_hit = win.counters.hits * 64;
        win.link_busy_ns = 100'000;
        win.occupancy_bytes = 512 * static_cast<ByteCount>(w + 1);
        run.result.metrics.windows.push_back(win);
      }
      run.result.events_processed = 300;
      run.wall_seconds = 0.5;
      r.runs.push_back(run);
    }
  }
  r.host.hostname = "host-a";
  r.host.date_utc = "2026-11-30T00:00:00Z";
  r.host.jobs = 2;
  r.host.total_wall_seconds = 2.0;
  return r;
}

bool has_temp_files(const std::filesystem::path& dir) {
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().filename().string().find(".tmp-") != std::string::npos) return true;
  }
  return false;
}

// One metric schema: results.h5's /summary fields and each summary.json run
// carry exactly the schema's names, in its order, with the same values.
TEST(Results, SummaryH5AndJsonNameEveryMetricAsTheSchemaDoes) {
  test::TempDir dir;
  const ScenarioResults results = sample_results();
  const ResultsPaths paths = write_results(dir.path() / "out", results);
  const std::vector<RunMetricSpec>& schema = run_metric_schema();
  const hid_t file = H5Fopen(paths.h5.string().c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  ASSERT_GE(file, 0);
  const hid_t set = H5Dopen2(file, "summary", H5P_DEFAULT);
  const hid_t type = H5Dget_type(set);
  ASSERT_EQ(H5Tget_nmembers(type), static_cast<int>(schema.size()));
  for (unsigned k = 0; k < schema.size(); ++k) {
    char* name = H5Tget_member_name(type, k);
    EXPECT_EQ(std::string(name), std::string(schema[k].name));
    H5free_memory(name);
  }
  H5Tclose(type);
  H5Dclose(set);
  H5Fclose(file);
  const auto j = nlohmann::ordered_json::parse(test::read_file(paths.json));
  const auto& run = j["runs"][3];
  ASSERT_EQ(run.size(), schema.size() + 1);  // then the components' statistics
  EXPECT_TRUE(run["components"].is_array());
  std::size_t k = 0;
  for (const auto& [key, value] : run.items()) {
    if (key == "components") break;
    EXPECT_EQ(key, std::string(schema[k].name));
    const RunMetricValue v = schema[k].get(results.runs[3]);
    if (v.type != MetricType::text) {
      EXPECT_DOUBLE_EQ(value.get<double>(), v.number()) << key;
    }
    ++k;
  }
  EXPECT_EQ(run["hits"], 40);
  EXPECT_EQ(metric_spec("stall_ns").unit, "ns");
  EXPECT_EQ(metric_spec("hit_ratio_by_byte").aggregation, Aggregation::ratio);
  EXPECT_THROW(metric_spec("tpot_ns.mean"), Error);
}

TEST(Results, H5HoldsSummaryTimeseriesScenarioAndHost) {
  test::TempDir dir;
  const ResultsPaths paths = write_results(dir.path() / "out", sample_results());
  ASSERT_TRUE(std::filesystem::exists(paths.h5));
  const auto dump = test::dump_h5(paths.h5.string());
  ASSERT_TRUE(dump.count("/summary")) << dump.size();
  const std::string& summary = dump.at("/summary");
  EXPECT_NE(summary.find("[4]"), std::string::npos) << summary;  // 2 points × 2 policies
  EXPECT_NE(summary.find("policy=\"mlru\""), std::string::npos);
  EXPECT_NE(summary.find("params=\"history=100 reading=literal\""), std::string::npos) << summary;
  EXPECT_NE(summary.find("hits=40 "), std::string::npos);             // run 3
  EXPECT_NE(summary.find("hit_ratio_by_access=0.4 "), std::string::npos);
  EXPECT_NE(summary.find("latency_max_ns=4000 "), std::string::npos);
  EXPECT_NE(summary.find("capacity_bytes=2000 "), std::string::npos);
  EXPECT_NE(summary.find("bytes_fetched=5760 "), std::string::npos);  // run 0: 90 misses × 64
  const std::string& root = dump.at("/");
  EXPECT_NE(root.find("@tool_version=\"test-version\""), std::string::npos) << root;
  EXPECT_NE(root.find("@seed=7"), std::string::npos) << root;
  EXPECT_NE(root.find("@decision_clock=\"trace\""), std::string::npos) << root;
  ASSERT_TRUE(dump.count("/timeseries/run_002/link_utilisation"));
  EXPECT_EQ(dump.at("/timeseries/run_002/link_utilisation"), " [3] 0.25 0.25 0.5");  // last window 200 µs long
  EXPECT_EQ(dump.at("/timeseries/run_002/hit_ratio_by_access"), " [3] 0 0.125 0.25");
  EXPECT_EQ(dump.at("/timeseries/run_002/occupancy_bytes"), " [3] 512 1024 1536");
  EXPECT_NE(dump.at("/scenario").find("capacity: 50%"), std::string::npos);
  EXPECT_NE(dump.at("/scenario").find("@input=\"name: sample\n\""), std::string::npos);
  EXPECT_NE(dump.at("/host").find("@hostname=\"host-a\""), std::string::npos);
  EXPECT_EQ(dump.at("/host/wall_seconds"), " [4] 0.5 0.5 0.5 0.5");
  EXPECT_EQ(dump.at("/host/accesses_per_second"), " [4] 200 200 200 200");
}

TEST(Results, SameInputsGiveIdenticalFilesAndHostLivesApart) {
  test::TempDir dir;
  ScenarioResults r = sample_results();
  const ResultsPaths a = write_results(dir.path() / "a", r);
  const ResultsPaths b = write_results(dir.path() / "b", r);
  EXPECT_EQ(test::read_file(a.h5), test::read_file(b.h5));  // object timestamps are off
  EXPECT_EQ(test::read_file(a.json), test::read_file(b.json));

  // Another machine, another day, another wall time: only /host changes.
  r.host.hostname = "host-b";
  r.host.date_utc = "2027-01-01T12:34:56Z";
  r.host.total_wall_seconds = 9.0;
  for (auto& run : r.runs) run.wall_seconds = 0.25;
  const ResultsPaths c = write_results(dir.path() / "c", r);
  const auto dump_a = test::dump_h5(a.h5.string(), "/host");
  const auto dump_c = test::dump_h5(c.h5.string(), "/host");
  ASSERT_GT(dump_a.size(), 10u);
  EXPECT_EQ(dump_a, dump_c);
  EXPECT_NE(test::dump_h5(a.h5.string()).at("/host"), test::dump_h5(c.h5.string()).at("/host"));
}

TEST(Results, SummaryJsonContent) {
  const auto j = nlohmann::json::parse(summary_json_text(sample_results()));
  EXPECT_EQ(j["results_schema_version"], kResultsSchemaVersion);
  EXPECT_EQ(j["scenario"], "sample");
  EXPECT_EQ(j["tool_version"], "test-version");
  EXPECT_EQ(j["decision_clock"], "trace");
  EXPECT_EQ(j["seed"], 7);
  ASSERT_EQ(j["runs"].size(), 4u);
  const auto& r1 = j["runs"][1];
  EXPECT_EQ(r1["policy"], "mlru");
  EXPECT_EQ(r1["policy_label"], "mlru(reading=literal)");
  EXPECT_EQ(r1["params"]["reading"], "literal");
  EXPECT_EQ(r1["point_label"], "cache.capacity=25%");
  EXPECT_EQ(r1["hits"], 20);
  EXPECT_EQ(r1["misses"], 80);
  EXPECT_DOUBLE_EQ(r1["hit_ratio_by_access"].get<double>(), 0.2);
  EXPECT_DOUBLE_EQ(r1["hit_ratio_by_byte"].get<double>(), 0.2);
  EXPECT_EQ(r1["bytes_fetched"], 80 * 64);
  EXPECT_EQ(r1["latency_max_ns"], 4000);
  EXPECT_EQ(r1["latency_p50_ns"], 201);  // upper edge of the 2 ns bucket holding 200 (128-255 ns)
  EXPECT_EQ(r1["capacity_bytes"], 1000);
  EXPECT_EQ(j["host"]["hostname"], "host-a");
  EXPECT_DOUBLE_EQ(j["host"]["runs"][0]["accesses_per_second"].get<double>(), 200.0);
}

class ResultsFailure : public ::testing::TestWithParam<const char*> {};

TEST_P(ResultsFailure, LeavesNothingAndKeepsExistingFiles) {
  test::TempDir dir;
  const std::filesystem::path out = dir.path() / "out";
  // A fresh folder: nothing must remain.
  ResultsWriteOptions fail;
  const std::string stage = GetParam();
  fail.after_stage = [&](std::string_view s) {
    if (s == stage) throw Error("simulated failure at " + std::string(s));
  };
  EXPECT_THROW(write_results(out, sample_results(), fail), Error);
  EXPECT_FALSE(std::filesystem::exists(out / "results.h5"));
  EXPECT_FALSE(std::filesystem::exists(out / "summary.json"));
  EXPECT_FALSE(has_temp_files(out));

  // Existing results: untouched.
  ScenarioResults old = sample_results();
  old.scenario_name = "old";
  const ResultsPaths paths = write_results(out, old);
  const std::string h5_before = test::read_file(paths.h5);
  const std::string json_before = test::read_file(paths.json);
  EXPECT_THROW(write_results(out, sample_results(), fail), Error);
  EXPECT_EQ(test::read_file(paths.h5), h5_before);
  EXPECT_EQ(test::read_file(paths.json), json_before);
  EXPECT_FALSE(has_temp_files(out));
}

INSTANTIATE_TEST_SUITE_P(EveryStage, ResultsFailure,
                         ::testing::Values("summary", "timeseries", "scenario", "host", "h5-closed", "json"));

TEST(Results, UnwritableFolderIsAnError) {
  test::TempDir dir;
  test::write_file(dir.path() / "file", "x");
  EXPECT_THROW(write_results(dir.path() / "file" / "sub", sample_results()), Error);
}

TEST(ResultsTable, OneTablePerPointWithEveryColumn) {
  std::ostringstream out;
  print_results_tables(out, sample_results());
  const std::string text = out.str();
  EXPECT_NE(text.find("[point 1/2] cache.capacity=25%"), std::string::npos) << text;
  EXPECT_NE(text.find("[point 2/2] cache.capacity=50%"), std::string::npos) << text;
  for (const char* column : {"hit/acc", "hit/byte", "misses", "H2D", "stall", "p50", "p99", "max", "sim time", "wall",
                             "acc/s"}) {
    EXPECT_NE(text.find(column), std::string::npos) << column;
  }
  EXPECT_NE(text.find("mlru(reading=literal)"), std::string::npos);
  EXPECT_NE(text.find("25.0% of the trace's footprint"), std::string::npos) << text;
}

// The components' printer, on two hand-made runs of one point: numbers in
// their unit ("-" where a run lacks one), a text equal in both once, texts
// that differ per run (a multi-line one indented), series listed or summed up.
TEST(ComponentTable, NumbersTextsAndSeriesAsTheTerminalShowsThem) {
  ScenarioResults results;
  results.scenario_name = "s";
  results.point_labels = {""};
  for (const char* policy : {"lru", "arc"}) {
    RunResult r;
    r.policy_label = policy;
    ComponentStats& c = r.result.components;
    c.add("l2", "busy_ns", "ns", policy == std::string("lru") ? 1500 : 2'000'000);
    c.add("l2", "hit_ratio", "1", 0.25);
    if (policy == std::string("lru")) c.add("tier.hbm", "bytes", "bytes", 2e9);
    c.add("link", "copies", "count", 12);
    c.add_text("device", "name", "H200");
    c.add_text("program", "warnings", policy == std::string("lru") ? "" : "first\nsecond");
    c.add_series("program", "step_ns", "ns", {1e6, 2e6});
    std::vector<double> long_series(9, 3.0);
    long_series[0] = 1.0;
    c.add_series("replay", "tokens", "", long_series);
    results.runs.push_back(r);
  }
  EXPECT_EQ(count_component_statistics(results), 8u);  // 4 numbers, 2 texts, 2 series
  std::ostringstream out;
  print_component_tables(out, results);
  EXPECT_EQ(out.str(),
            "\ns: components\n"
            "  component.name     lru     arc\n"
            "  ------------------------------\n"
            "  l2.busy_ns     1.50 \xC2\xB5s 2.00 ms\n"
            "  l2.hit_ratio     25.0%   25.0%\n"
            "  tier.hbm.bytes 2.00 GB       -\n"
            "  link.copies         12      12\n"
            "  device.name: H200\n"
            "  program.warnings [lru]: (empty)\n"
            "  program.warnings [arc]:\n"
            "    first\n"
            "    second\n"
            "  program.step_ns: 1.00 ms, 2.00 ms\n"
            "  replay.tokens: 9 values: min 1, median 3, max 3\n");
  // A run without components prints nothing.
  ScenarioResults none = results;
  for (RunResult& r : none.runs) r.result.components = {};
  std::ostringstream empty;
  print_component_tables(empty, none);
  EXPECT_EQ(empty.str(), "");
  EXPECT_EQ(count_component_statistics(none), 0u);
}

TEST(ResultsTable, Formats) {
  EXPECT_EQ(format_bytes_si(512), "512 B");
  EXPECT_EQ(format_bytes_si(17'600'775'052), "17.6 GB");
  EXPECT_EQ(format_bytes_si(9'996'000'000), "10.0 GB");
  EXPECT_EQ(format_duration(142), "142 ns");
  EXPECT_EQ(format_duration(4520), "4.52 \xC2\xB5s");
  EXPECT_EQ(format_duration(1'830'000'000), "1.83 s");
  EXPECT_EQ(format_percent(0.4827), "48.3%");
  EXPECT_EQ(format_count(1'234'567), "1.23 M");
}

}  // namespace
}  // namespace flashsim
