// `flashsim report`: the validation.json reader, the HTML page (values of the
// sample fixture, escaping, failures highlighted), refusal of missing or
// wrong files, and the plots (inlined SVGs when matplotlib is there, a
// clean skip when it is not). tests/data/validation/sample-validation.json
// is a fixture of made-up numbers (make_sample.py beside it).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "sim/report/html_text.h"
#include "sim/report/report_html.h"
#include "sim/report/report_input.h"
#include "sim/report/validation_document.h"
#include "tests/app/app_test_util.h"
#include "tests/support/temp_dir.h"

namespace flashsim {
namespace {

const std::filesystem::path kSample = std::filesystem::path(FLASHSIM_SOURCE_DIR) / "tests/data/validation/sample-validation.json";

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

TEST(ReportHtmlText, EscapesAndFormats) {
  EXPECT_EQ(report::html_escape("a<b&c>d\"e'f"), "a&lt;b&amp;c&gt;d&quot;e&#39;f");
  EXPECT_EQ(report::format_value(1250000.4), "1250000");
  EXPECT_EQ(report::format_value(0.5123456), "0.512346");
  EXPECT_EQ(report::format_value(42), "42");
  EXPECT_EQ(report::format_value(std::nullopt), "\u2014");
  EXPECT_EQ(report::format_percent(0.03219544), "3.22%");
  EXPECT_EQ(report::format_percent(0.10140061, 1), "10.1%");
  EXPECT_EQ(report::format_fixed(0.999297, 4), "0.9993");
}

TEST(ReportValidationDocument, ReadsTheSample) {
  const report::ValidationDocument doc = report::load_validation_document(kSample);
  EXPECT_EQ(doc.suite_name, "sample-fixture");
  EXPECT_FALSE(doc.passed);
  ASSERT_EQ(doc.entries.size(), 24u);
  EXPECT_EQ(doc.metrics.size(), 11u);
  const report::ValidationEntry& e = doc.entries[0];
  EXPECT_EQ(e.name, "zipf-256B-lru-10");
  EXPECT_EQ(e.role, "fit");
  EXPECT_DOUBLE_EQ(e.capacity_fraction, 0.1);
  ASSERT_FALSE(e.rows.empty());
  EXPECT_EQ(e.rows[0].metric, "time_per_token_ns");
  EXPECT_DOUBLE_EQ(*e.rows[0].sim, 7129378);
  EXPECT_DOUBLE_EQ(*e.rows[0].hw, 6907004);
  EXPECT_EQ(e.rows[0].hw_repeats, 5);
  EXPECT_EQ(e.rows[0].passed, true);
  int failed_rows = 0, over_rows = 0, unjudged_rows = 0, rows_without_hw = 0, failed_entries = 0;
  for (const auto& entry : doc.entries) {
    failed_entries += entry.failed();
    for (const auto& r : entry.rows) {
      failed_rows += r.failed();
      over_rows += r.over_tolerance();
      unjudged_rows += r.judged == false;
      rows_without_hw += !r.hw.has_value();
    }
  }
  EXPECT_EQ(failed_rows, 1);
  EXPECT_EQ(failed_entries, 1);
  EXPECT_EQ(over_rows, 2);       // and entry 2's latency_p50_ns, which is not gated
  EXPECT_EQ(unjudged_rows, 13);  // 3 prefetching entries x 4 exact metrics, and the row without hw
  EXPECT_EQ(rows_without_hw, 1);  // entry 5's latency_p99_ns
  ASSERT_EQ(doc.failures.size(), 1u);
  EXPECT_EQ(doc.failures[0].entry, "moe-experts-64MiB-lru-80");
  EXPECT_EQ(doc.failures[0].metric, "stall_ns");
  bool device = false;
  for (const auto& [k, v] : doc.provenance) device = device || (k == "baseline.provenance.device.name" && v == "NVIDIA H200");
  EXPECT_TRUE(device);
}

TEST(ReportHtml, HoldsTheTableValuesOfTheSample) {
  report::ReportSection section{report::load_report_input(kSample), {}};
  section.plots.skipped_reason = "test";
  const std::string html = report::report_html({section}, "0.test", "2026-11-30T09:00:00Z");
  // Provenance: suite, baseline commit, device, driver, clocks, profile.
  for (const char* s : {"sample-fixture", "0123456789abcdef0123456789abcdef01234567", "NVIDIA H200",
                        "GPU-00000000-0000-0000-0000-000000000000", "580.00.00", "baseline.provenance.device.sm_clock_mhz",
                        "h200-calibrated", "recorded"}) {
    EXPECT_NE(html.find(s), std::string::npos) << s;
  }
  // Summary of time_per_token_ns over all scenarios: MAE 2.6817%, r 0.999297 (linear), 24 of 24 under 10%.
  EXPECT_NE(html.find("<td>time_per_token_ns</td><td>ns</td><td>relative</td><td>yes</td><td class=\"num\">10.0%</td>"
                      "<td>all</td><td class=\"num\">24</td><td class=\"num\">2.68%</td><td class=\"num\">0.9993</td>"
                      "<td>linear</td><td class=\"num\">24 / 24</td>"),
            std::string::npos);
  // First scenario row: sim, hw, spread, errors, tolerance widened by the spread, pass.
  EXPECT_NE(html.find("<td>time_per_token_ns</td><td class=\"num\">7129378</td><td class=\"num\">6907004</td>"
                      "<td class=\"num\">6790275 \u2026 7023733 (5)</td><td class=\"num\">222374</td>"
                      "<td class=\"num\">3.22%</td><td>10.1% (stated 10.0%, widened to 3\u00d7 the hw spread)</td>"
                      "<td class=\"pass\">pass</td>"),
            std::string::npos);
  // The failing row is highlighted, named in the failures table, and FAIL once.
  EXPECT_NE(html.find("<tr class=\"fail\"><td>stall_ns</td><td class=\"num\">619110935</td><td class=\"num\">469023435</td>"),
            std::string::npos);
  EXPECT_NE(html.find("<tr class=\"fail\"><td>moe-experts-64MiB-lru-80</td><td>stall_ns</td>"), std::string::npos);
  EXPECT_EQ(count_of(html, "<td class=\"fail\">FAIL</td>"), 1u);
  EXPECT_EQ(count_of(html, "<tr class=\"fail\">"), 2u);  // the scenario row and the failures table
  EXPECT_NE(html.find("<td>latency_p50_ns</td><td class=\"num\">1087</td><td class=\"num\">805</td>"), std::string::npos);
  EXPECT_EQ(count_of(html, "<td class=\"warn\">over (not gated)</td>"), 1u);
  EXPECT_EQ(count_of(html, "<td>not checked</td>"), 13u);
  // No hw value (validate writes errors of 0 then): no error, no tolerance shown.
  EXPECT_NE(html.find("<td>latency_p99_ns</td><td class=\"num\">39285</td><td class=\"num\">\u2014</td>"
                      "<td class=\"num\">\u2014</td><td class=\"num\">\u2014</td><td class=\"num\">\u2014</td>"
                      "<td>\u2014</td><td>not checked</td>"),
            std::string::npos);
  EXPECT_NE(html.find("badge fail"), std::string::npos);
  EXPECT_EQ(count_of(html, "<td rowspan="), 24u * 5);  // five rowspan cells per scenario
  EXPECT_NE(html.find("Plots skipped: test"), std::string::npos);
}

#ifdef FLASHSIM_BINARY

struct Outcome {
  int code = -1;
  std::string out, err;
};

Outcome run_flashsim(const std::filesystem::path& cwd, const std::string& args, const std::string& env = "") {
  const std::string command = "cd '" + cwd.string() + "' && " + env + " '" + std::string(FLASHSIM_BINARY) + "' " + args +
                              " > stdout.txt 2> stderr.txt";
  const int status = std::system(command.c_str());
  Outcome o;
  o.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  o.out = test::read_file(cwd / "stdout.txt");
  o.err = test::read_file(cwd / "stderr.txt");
  return o;
}

bool ci() {
  const char* v = std::getenv("CI");
  return v != nullptr && std::string(v) == "true";
}

bool matplotlib_available() {
  return std::system("/usr/bin/python3 -s -c 'import matplotlib' > /dev/null 2>&1") == 0;
}

bool python_available() { return std::system("/usr/bin/python3 -c '' > /dev/null 2>&1") == 0; }

TEST(ReportCommand, EscapesNamesFromTheFile) {
  test::TempDir dir;
  nlohmann::json doc = nlohmann::json::parse(test::read_file(kSample));
  doc["entries"][0]["name"] = "a<b&c>d";
  doc["suite"]["name"] = "<script>alert(1)</script>";
  doc["baseline"]["provenance"]["device"]["name"] = "H200 \"<&>\"";
  test::write_file(dir / "v.json", doc.dump());
  const Outcome o = run_flashsim(dir.path(), "report v.json --out r.html --no-plots");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("report: r.html"), std::string::npos) << o.out;
  const std::string html = test::read_file(dir / "r.html");
  EXPECT_NE(html.find(">a&lt;b&amp;c&gt;d</td>"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(html.find("H200 &quot;&lt;&amp;&gt;&quot;"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("a<b&c>d"), std::string::npos);
  EXPECT_NE(html.find("Plots skipped: --no-plots was given.</p>"), std::string::npos);  // no install hint then
}

TEST(ReportCommand, RefusesMissingAndWrongFilesNamingThem) {
  test::TempDir dir;
  Outcome o = run_flashsim(dir.path(), "report nothere.json --out r.html");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("'nothere.json': no such file or folder"), std::string::npos) << o.err;

  test::write_file(dir / "other.json", R"({"schema": "flashsim-validation/0", "entries": []})");
  o = run_flashsim(dir.path(), "report other.json --out r.html");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("'other.json': key 'schema' is \"flashsim-validation/0\", expected \"flashsim-validation/1\""),
            std::string::npos)
      << o.err;

  test::write_file(dir / "bad.json", "{\"schema\": \"flashsim-validation/1\",\n");
  o = run_flashsim(dir.path(), "report bad.json --out r.html");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("'bad.json': invalid JSON"), std::string::npos) << o.err;

  nlohmann::json doc = nlohmann::json::parse(test::read_file(kSample));
  doc["entries"][3]["rows"][1].erase("metric");
  test::write_file(dir / "norow.json", doc.dump());
  o = run_flashsim(dir.path(), "report norow.json --out r.html");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("'norow.json': key 'entries[3].rows[1].metric' is missing"), std::string::npos) << o.err;

  std::filesystem::create_directory(dir / "empty");
  o = run_flashsim(dir.path(), "report " + kSample.string() + " empty --out r.html");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("folder 'empty' holds neither validation.json nor summary.json"), std::string::npos) << o.err;

  EXPECT_FALSE(std::filesystem::exists(dir / "r.html"));  // nothing written for a refused input
  for (const auto& f : std::filesystem::directory_iterator(dir.path())) {
    EXPECT_EQ(f.path().filename().string().find(".tmp-"), std::string::npos) << f.path();
  }
}

TEST(ReportCommand, InlinesThePlotsOrSaysWhyNot) {
  test::TempDir dir;
  std::filesystem::create_directory(dir / "val");
  std::filesystem::copy_file(kSample, dir / "val/validation.json");
  const bool plots = matplotlib_available();
  if (ci()) {
    ASSERT_TRUE(plots) << "under CI=true tools/setup.sh installs matplotlib";
  }
  const Outcome o = run_flashsim(dir.path(), "report val");  // a folder; the page goes beside its validation.json
  ASSERT_EQ(o.code, 0) << o.err;
  const std::string html = test::read_file(dir / "val/report.html");
  ASSERT_FALSE(html.empty());
  if (!plots) {
    EXPECT_NE(html.find("Plots skipped"), std::string::npos);
    EXPECT_NE(o.err.find("skipped"), std::string::npos) << o.err;
    GTEST_SKIP() << "matplotlib is not installed: checked the skip only";
  }
  EXPECT_EQ(o.err, "");
  for (const char* fig : {"parity_time_per_token_ns", "parity_stall_ns", "parity_simulated_ns", "error_bars", "mrc",
                          "latency_cdf", "hit_ratio_over_time"}) {
    EXPECT_NE(html.find("<figure id=\"fig-" + std::string(fig) + "\">\n<svg"), std::string::npos) << fig;
  }
  EXPECT_EQ(count_of(html, "<svg"), 7u);
  EXPECT_EQ(count_of(html, "</svg>"), 7u);
  EXPECT_EQ(html.find("<?xml"), std::string::npos);      // inlined, not files: no XML prolog
  EXPECT_EQ(html.find("<!DOCTYPE svg"), std::string::npos);
  EXPECT_EQ(html.find(".png"), std::string::npos);       // nothing linked
  EXPECT_NE(html.find("r = 0.9988 (log10), MAE = 5.33%"), std::string::npos);  // the stall_ns parity title
  // Log-axis ticks as numbers in the data's unit, not raw mathtext
  // ("$\mathdefault{10^{4}}$" with text.parse_math off): the latency CDFs
  // span decades, the parity axes are in ms.
  EXPECT_EQ(html.find("mathdefault"), std::string::npos);
  EXPECT_NE(html.find(">10 \xC2\xB5s</text>"), std::string::npos);
  EXPECT_NE(html.find(">10 ms</text>"), std::string::npos);
  EXPECT_EQ(html.find("Plots skipped"), std::string::npos);

  // The same file twice on one page: 14 figures, and no clip-path id defined twice.
  const Outcome two = run_flashsim(dir.path(), "report val val/validation.json --out two.html");
  ASSERT_EQ(two.code, 0) << two.err;
  const std::string both = test::read_file(dir / "two.html");
  EXPECT_EQ(count_of(both, "<svg"), 14u);
  std::set<std::string> ids;
  std::size_t defined = 0;
  const std::regex clip_id("<clipPath id=\"([^\"]+)\"");
  for (auto it = std::sregex_iterator(both.begin(), both.end(), clip_id); it != std::sregex_iterator(); ++it) {
    ids.insert((*it)[1].str());
    ++defined;
  }
  EXPECT_GT(defined, 14u);
  EXPECT_EQ(ids.size(), defined);
}

TEST(ReportCommand, SkipsThePlotsCleanlyWithoutMatplotlib) {
  if (!python_available()) GTEST_SKIP() << "no /usr/bin/python3";
  test::TempDir dir;
  // A matplotlib package that fails to import, ahead of the real one.
  std::filesystem::create_directories(dir / "fake/matplotlib");
  test::write_file(dir / "fake/matplotlib/__init__.py", "raise ImportError('no matplotlib here (test)')\n");
  Outcome o = run_flashsim(dir.path(), "report " + kSample.string() + " --out r.html", "PYTHONPATH='" + (dir / "fake").string() + "'");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.err.find("skipped: '/usr/bin/python3' cannot import matplotlib: ImportError: no matplotlib here (test)"),
            std::string::npos)
      << o.err;
  std::string html = test::read_file(dir / "r.html");
  EXPECT_NE(html.find("Plots skipped: &#39;/usr/bin/python3&#39; cannot import matplotlib"), std::string::npos);
  EXPECT_NE(html.find("Install matplotlib (Debian: python3-matplotlib"), std::string::npos);
  EXPECT_EQ(html.find("<svg"), std::string::npos);
  EXPECT_NE(html.find("7129378"), std::string::npos);  // the tables are there

  o = run_flashsim(dir.path(), "report " + kSample.string() + " --out r2.html --python /nonexistent/python3");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.err.find("skipped: cannot run '/nonexistent/python3'"), std::string::npos) << o.err;
  html = test::read_file(dir / "r2.html");
  EXPECT_NE(html.find("Plots skipped: cannot run &#39;/nonexistent/python3&#39;"), std::string::npos);
}

TEST(ReportCommand, TabulatesARunSummaryBesideAValidation) {
  test::TempDir dir;
  test::write_file(dir / "trace.csv", test::cyclic_csv(3, 4, 1000));
  test::write_file(dir / "s.yaml", "name: tiny\nworkload: {trace: trace.csv}\ncache: {capacity: 100%}\npolicies: [lru, belady]\n");
  Outcome o = run_flashsim(dir.path(), "run s.yaml --out res");
  ASSERT_EQ(o.code, 0) << o.err;
  o = run_flashsim(dir.path(), "report res " + kSample.string() + " --out both.html --no-plots");
  ASSERT_EQ(o.code, 0) << o.err;
  const std::string html = test::read_file(dir / "both.html");
  EXPECT_NE(html.find("<h2>Runs: tiny</h2>"), std::string::npos);
  // 12 accesses over 3 blocks that all fit: 3 cold misses, hit ratio 0.75, for both policies.
  EXPECT_EQ(count_of(html, "<td class=\"num\">12</td><td class=\"num\">3</td><td class=\"num\">75.00%</td>"), 2u);
  EXPECT_NE(html.find("<td>belady</td>"), std::string::npos);
  EXPECT_NE(html.find("<td class=\"num\">3.00 kB</td>"), std::string::npos);  // the fast tier, humanised
  EXPECT_EQ(html.find("<th>TPOT</th>"), std::string::npos);                     // no requests, no serving columns
  EXPECT_NE(html.find("Validation: sample-fixture"), std::string::npos);
  EXPECT_LT(html.find("Runs: tiny"), html.find("Validation: sample-fixture"));  // in argument order
}

#endif  // FLASHSIM_BINARY

// A serving workload's runs carry TTFT, TPOT and tokens/s, in humanised units:
// the mini Mixtral under LRU (docs/experiments.md: TPOT 30.9 ms).
TEST(ReportCommand, ServingRunsShowTtftTpotAndTokensPerSecond) {
  test::TempDir dir;
  const std::string mini = std::string(FLASHSIM_SOURCE_DIR) + "/scenarios/examples/mixtral-mini-experts.yaml";
  Outcome o = run_flashsim(dir.path(), "run " + mini + " --set 'policies=[lru]' --out res --no-progress");
  ASSERT_EQ(o.code, 0) << o.err;
  o = run_flashsim(dir.path(), "report res --out r.html --no-plots --no-bound");
  ASSERT_EQ(o.code, 0) << o.err;
  const std::string html = test::read_file(dir / "r.html");
  EXPECT_NE(html.find("<th>TTFT p50</th><th>TPOT</th><th>tokens/s</th>"), std::string::npos);
  EXPECT_NE(html.find("<td class=\"num\">30.9 ms</td>"), std::string::npos);
  EXPECT_NE(html.find("<td class=\"num\">9.45%</td>"), std::string::npos);  // hit ratio by access, as a percentage
}

}  // namespace
}  // namespace flashsim
