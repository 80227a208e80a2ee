// `flashsim report` on a capacity sweep: the bounds on the optimal hit ratio
// (sim/report/mrc_bound.h) beside the policies, solved on the trace re-opened
// from results.h5, equal to `flashsim trace bound`'s at the same capacities;
// no policy above the upper bound; the PFOO label beyond the exact limit; and
// the one-line reason when there is no bound (no solver, no results.h5, the
// trace gone).
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>

#include "sim/report/mrc_bound.h"
#include "tests/app/app_test_util.h"
#include "tests/support/temp_dir.h"

namespace flashsim {
namespace {

using nlohmann::json;

const std::filesystem::path kTrace = std::filesystem::path(FLASHSIM_SOURCE_DIR) / "scenarios/data/llama-2048x22.csv";

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

report::RunSummaryRow row(const std::string& policy, double capacity_bytes, std::size_t point) {
  report::RunSummaryRow r;
  r.policy_label = policy;
  r.capacity_bytes = capacity_bytes;
  r.footprint_bytes = 1000;
  r.accesses = 10;
  r.point = point;
  return r;
}

TEST(ReportMrcBound, OnlyACapacitySweepAndSaysWhyWithoutASolver) {
  report::RunSummaryDocument doc;
  doc.file = "/nonexistent/summary.json";
  doc.runs = {row("lru", 100, 0), row("arc", 100, 0)};
  // One capacity: not a sweep, nothing to say (not even the missing solver).
  report::MrcBounds b = report::compute_mrc_bounds(doc, {});
  EXPECT_FALSE(b.attempted);
  EXPECT_EQ(b.note, "");
  ASSERT_EQ(b.per_run.size(), 2u);
  EXPECT_FALSE(b.per_run[0].has_value());

  doc.runs.push_back(row("lru", 200, 1));
  // A sweep without a solver (a flashsim built without LEMON): one line why.
  b = report::compute_mrc_bounds(doc, {});
  EXPECT_TRUE(b.attempted);
  EXPECT_EQ(b.note, "No optimal-caching bound: this flashsim was built without LEMON (Debian liblemon-dev).");
  for (const auto& r : b.per_run) EXPECT_FALSE(r.has_value());

  // A solver, but no results.h5 beside the summary: the solver is never called.
  int calls = 0;
  b = report::compute_mrc_bounds(doc, [&](const std::vector<AccessRecord>&, const std::vector<ByteCount>&) {
    ++calls;
    return std::vector<HitBound>{};
  });
  EXPECT_EQ(calls, 0);
  EXPECT_EQ(b.note, "No optimal-caching bound: cannot re-open the runs' trace: no /nonexistent/results.h5 beside the "
                    "summary to re-open the trace from");
  EXPECT_EQ(report::bound_label("FOO"), "optimal (FOO bounds)");
  EXPECT_EQ(report::bound_label("PFOO-L / segmented FOO-U"), "PFOO bounds (PFOO-L / segmented FOO-U)");
}

#if defined(FLASHSIM_BINARY) && defined(FLASHSIM_HAVE_LEMON)

bool matplotlib_available() {
  return std::system("/usr/bin/python3 -s -c 'import matplotlib' > /dev/null 2>&1") == 0;
}

const char* kCapacities[] = {"5%", "10%", "25%", "50%"};

// A capacity sweep over the recorded offload trace (1,608 accesses) with
// `policies`, run into dir/res.
void run_sweep(const test::TempDir& dir, const std::filesystem::path& trace) {
  test::write_file(dir / "s.yaml", "name: llama-sweep\nworkload: {trace: " + trace.string() +
                                       "}\nengine: {impl: cache_only}\ncache: {capacity: 10%}\n"
                                       "policies: [lru, belady, belady_bypass, gdsf, arc, lecar]\n"
                                       "sweep:\n  cache.capacity: [5%, 10%, 25%, 50%]\n");
  const test::Outcome o = test::run_flashsim(dir.path(), "run s.yaml --out res");
  ASSERT_EQ(o.code, 0) << o.err;
}

// `flashsim trace bound` of the trace at kCapacities, by capacity text.
std::map<std::string, json> trace_bounds(const test::TempDir& dir, const std::string& extra = "") {
  std::string args = "trace bound " + kTrace.string() + " --json" + extra;
  for (const char* c : kCapacities) args += std::string(" -c ") + c;
  const test::Outcome o = test::run_flashsim(dir.path(), args);
  EXPECT_EQ(o.code, 0) << o.err;
  std::map<std::string, json> out;
  const json doc = json::parse(o.out);  // kept: a range-for over a temporary's member dangles
  for (const json& b : doc.at("bounds")) out[b.at("capacity").get<std::string>()] = b;
  return out;
}

// Every run of the report's data has the trace bound's values at its capacity, exactly.
void expect_same_bounds(const json& runs, const std::map<std::string, json>& expected, const std::string& method) {
  ASSERT_EQ(runs.size(), 24u);  // 6 policies x 4 capacities
  for (const json& r : runs) {
    const std::string where = r.at("policy_label").get<std::string>() + " at " + r.at("capacity").get<std::string>();
    ASSERT_TRUE(r.at("bound").is_object()) << where;
    const json& b = r.at("bound");
    const json& want = expected.at(r.at("capacity").get<std::string>());
    EXPECT_EQ(b.at("method"), method) << where;
    EXPECT_EQ(b.at("capacity_bytes").get<double>(), want.at("capacity_bytes").get<double>()) << where;
    EXPECT_EQ(r.at("capacity_bytes").get<double>(), want.at("capacity_bytes").get<double>()) << where;
    for (const char* key : {"hit_ratio_by_byte_upper", "hit_ratio_by_byte_lower", "hit_ratio_by_access_upper",
                            "hit_ratio_by_access_lower"}) {
      EXPECT_EQ(b.at(key).get<double>(), want.at(key).get<double>()) << where << " " << key;
    }
    // No policy hits more than the upper bound, by byte or by access.
    EXPECT_LE(r.at("hit_ratio_by_byte").get<double>(), b.at("hit_ratio_by_byte_upper").get<double>() + 1e-12) << where;
    EXPECT_LE(r.at("hit_ratio_by_access").get<double>(), b.at("hit_ratio_by_access_upper").get<double>() + 1e-12)
        << where;
    EXPECT_LE(b.at("hit_ratio_by_byte_lower").get<double>(), b.at("hit_ratio_by_byte_upper").get<double>()) << where;
  }
}

TEST(ReportMrcBound, CapacitySweepCarriesTheTraceBound) {
  test::TempDir dir;
  run_sweep(dir, kTrace);
  const bool plots = matplotlib_available();
  const test::Outcome o = test::run_flashsim(dir.path(), std::string("report res --out r.html") + (plots ? "" : " --no-plots"));
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(o.err, "");  // no note: every run has its bound
  EXPECT_NE(o.out.find("miss-ratio curves' data: r-mrc.json"), std::string::npos) << o.out;
  const json data = json::parse(test::read_file(dir / "r-mrc.json"));
  EXPECT_EQ(data.at("schema"), "flashsim-report-mrc/1");
  ASSERT_EQ(data.at("sections").size(), 1u);
  const json& section = data["sections"][0];
  EXPECT_EQ(section.at("bound_note"), "");
  const std::map<std::string, json> expected = trace_bounds(dir);
  expect_same_bounds(section.at("runs"), expected, "FOO");
  // docs/policies.md: at 10% of the footprint FOO by byte is 6.06% .. 8.75%
  // (the upper one the closed form 7/8 of C/F of the trace's cyclic scan).
  const json& ten = expected.at("10%");
  EXPECT_NEAR(ten.at("hit_ratio_by_byte_lower").get<double>(), 0.0606, 5e-5);
  EXPECT_NEAR(ten.at("hit_ratio_by_byte_upper").get<double>(), 0.875 * 0.1, 1e-6);
  EXPECT_EQ(section["runs"][0].at("bound").at("label"), "optimal (FOO bounds)");

  // The page's table: the bound's columns, one row a policy at 10%.
  const std::string html = test::read_file(dir / "r.html");
  EXPECT_NE(html.find("<th>optimal byte hit ratio (lower \u2026 upper)</th>"), std::string::npos);
  EXPECT_EQ(count_of(html, "<td class=\"num\">0.0606 \u2026 0.0875</td><td>FOO</td>"), 6u);
  EXPECT_EQ(html.find("No optimal-caching bound"), std::string::npos);
  if (!plots) GTEST_SKIP() << "matplotlib is not installed: the band's figure is not checked";
  // The miss-ratio curves with the band, labelled in the SVG's text.
  const std::size_t figure = html.find("<figure id=\"fig-mrc_runs\">\n<svg");
  ASSERT_NE(figure, std::string::npos);
  const std::string svg = html.substr(figure, html.find("</svg>", figure) - figure);
  EXPECT_EQ(count_of(svg, "optimal (FOO bounds)"), 2u);  // the legends by access and by byte
  EXPECT_NE(svg.find("miss ratio by byte"), std::string::npos);
}

TEST(ReportMrcBound, PfooBeyondTheExactLimitIsSaidSo) {
  test::TempDir dir;
  run_sweep(dir, kTrace);
  const bool plots = matplotlib_available();
  const test::Outcome o = test::run_flashsim(
      dir.path(), std::string("report res --out r.html --bound-exact-max-accesses 1000") + (plots ? "" : " --no-plots"));
  ASSERT_EQ(o.code, 0) << o.err;
  const json data = json::parse(test::read_file(dir / "r-mrc.json"));
  const json& runs = data.at("sections").at(0).at("runs");
  expect_same_bounds(runs, trace_bounds(dir, " --exact-max-accesses 1000"), "PFOO-L / segmented FOO-U");
  EXPECT_EQ(runs[0].at("bound").at("label"), "PFOO bounds (PFOO-L / segmented FOO-U)");
  const std::string html = test::read_file(dir / "r.html");
  EXPECT_EQ(count_of(html, "<td>PFOO-L / segmented FOO-U</td>"), 24u);
  if (!plots) GTEST_SKIP() << "matplotlib is not installed: the band's figure is not checked";
  EXPECT_EQ(count_of(html, "PFOO bounds (PFOO-L / segmented FOO-U)"), 2u);
  EXPECT_EQ(html.find("optimal (FOO bounds)"), std::string::npos);
}

TEST(ReportMrcBound, SaysWhyWhenTheTraceCannotBeReopened) {
  test::TempDir dir;
  std::filesystem::copy_file(kTrace, dir / "trace.csv");
  run_sweep(dir, dir / "trace.csv");
  // The trace gone: the page renders, without the bound's columns, and says why in one line.
  std::filesystem::remove(dir / "trace.csv");
  test::Outcome o = test::run_flashsim(dir.path(), "report res --out r.html --no-plots");
  ASSERT_EQ(o.code, 0) << o.err;
  std::string html = test::read_file(dir / "r.html");
  // The resolved scenario names the trace, which is checked as the point resolves.
  EXPECT_NE(html.find("<p class=\"notice\">No optimal-caching bound: cannot re-open the runs&#39; trace: "),
            std::string::npos);
  EXPECT_NE(html.find("trace file not found: " + (dir / "trace.csv").string()), std::string::npos);
  EXPECT_NE(o.err.find("flashsim report: 'res/summary.json': No optimal-caching bound: cannot re-open the runs' trace: "),
            std::string::npos)
      << o.err;
  EXPECT_EQ(count_of(o.err, "\n"), 1u) << o.err;
  EXPECT_EQ(html.find("<th>optimal hit ratio"), std::string::npos);
  EXPECT_EQ(count_of(html, "<td>belady_bypass</td>"), 4u);  // the runs are all there
  json data = json::parse(test::read_file(dir / "r-mrc.json"));
  for (const json& r : data["sections"][0]["runs"]) EXPECT_TRUE(r.at("bound").is_null());

  // results.h5 gone: the same, naming it.
  std::filesystem::remove(dir / "res/results.h5");
  o = test::run_flashsim(dir.path(), "report res --out r.html --no-plots");
  ASSERT_EQ(o.code, 0) << o.err;
  html = test::read_file(dir / "r.html");
  EXPECT_NE(html.find("No optimal-caching bound: cannot re-open the runs&#39; trace: no res/results.h5 beside the summary"),
            std::string::npos);

  // --no-bound: nothing solved, nothing said.
  o = test::run_flashsim(dir.path(), "report res --out r.html --no-plots --no-bound");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(o.err, "");
  EXPECT_EQ(test::read_file(dir / "r.html").find("optimal-caching bound"), std::string::npos);
}

TEST(ReportMrcBound, AChangedTraceBoundsNothing) {
  test::TempDir dir;
  std::filesystem::copy_file(kTrace, dir / "trace.csv");
  run_sweep(dir, dir / "trace.csv");
  // The same path, its first 800 lines: the runs never saw these records.
  const std::string text = test::read_file(dir / "trace.csv");
  std::size_t at = 0;
  for (int line = 0; line < 800; ++line) at = text.find('\n', at) + 1;
  test::write_file(dir / "trace.csv", text.substr(0, at));
  const test::Outcome o = test::run_flashsim(dir.path(), "report res --out r.html --no-plots");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.err.find("No optimal-caching bound: the trace (" + (dir / "trace.csv").string() + ") now has "),
            std::string::npos) << o.err;
  EXPECT_NE(o.err.find(" accesses where the runs recorded 1608: it changed since the run"), std::string::npos) << o.err;
  json data = json::parse(test::read_file(dir / "r-mrc.json"));
  for (const json& r : data["sections"][0]["runs"]) EXPECT_TRUE(r.at("bound").is_null());
}

#endif  // FLASHSIM_BINARY && FLASHSIM_HAVE_LEMON

}  // namespace
}  // namespace flashsim
