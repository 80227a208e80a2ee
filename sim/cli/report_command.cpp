// flashsim report RESULTS... [--out FILE.html] [--python PATH] [--no-plots] [--no-bound]
#include <cerrno>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "sim/cli/cli_parse.h"
#include "sim/cli/command_registry.h"
#include "sim/core/errors.h"
#ifdef FLASHSIM_HAVE_LEMON
#include "sim/bound/optimal_bound.h"
#endif
#include "sim/report/hit_ratio_over_time.h"
#include "sim/report/mrc_bound.h"
#include "sim/report/plot_runner.h"
#include "sim/report/report_html.h"
#include "sim/report/report_input.h"
#include "sim/results/run_result.h"
#include "traces/atomic_file.h"

namespace flashsim::cli {

namespace {

std::string now_utc() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

// Where the page goes without --out: report.html beside the first result.
std::filesystem::path default_out(const std::filesystem::path& first_file) {
  return first_file.parent_path() / "report.html";
}

// Where a chart's data goes: FILE.html -> FILE<suffix> beside it ("-mrc.json").
std::filesystem::path data_path(const std::filesystem::path& page, const char* suffix) {
  std::filesystem::path data = page;
  data.replace_filename(page.stem().string() + suffix);
  return data;
}
std::filesystem::path mrc_data_path(const std::filesystem::path& page) { return data_path(page, "-mrc.json"); }
std::filesystem::path hit_ratio_data_path(const std::filesystem::path& page) {
  return data_path(page, "-hit-ratio.json");
}

// The figures of `more` after those of `plots` (a run summary's two plot calls).
void append_figures(report::PlotOutcome& plots, report::PlotOutcome more) {
  if (!plots.ran) {
    plots = std::move(more);
    return;
  }
  for (auto& f : more.figures) plots.figures.push_back(std::move(f));
}

// optimal_hit_bounds when this binary has LEMON; else none (the page says so).
report::BoundSolver bound_solver(long long exact_max_accesses, long long segment_accesses) {
#ifdef FLASHSIM_HAVE_LEMON
  BoundOptions options;
  options.exact_max_accesses = static_cast<std::size_t>(exact_max_accesses);
  options.segment_accesses = static_cast<std::size_t>(segment_accesses);
  return [options](const std::vector<AccessRecord>& records, const std::vector<ByteCount>& capacities) {
    return optimal_hit_bounds(records, capacities, options);
  };
#else
  (void)exact_max_accesses;
  (void)segment_accesses;
  return {};
#endif
}

void write_page(const std::filesystem::path& target, const std::string& html) {
  AtomicFile file(target);
  errno = 0;
  std::ofstream out(file.temp_path(), std::ios::binary | std::ios::trunc);
  out << html;
  out.close();
  if (!out) {
    const int error = errno;
    throw Error("cannot write '" + file.temp_path().string() + "' (for '" + target.string() + "')" +
                (error ? std::string(": ") + std::strerror(error) : ""));
  }
  std::error_code ignored;  // mkstemp makes 0600; a report is for reading
  std::filesystem::permissions(file.temp_path(),
                               std::filesystem::perms::owner_read | std::filesystem::perms::owner_write |
                                   std::filesystem::perms::group_read | std::filesystem::perms::others_read,
                               ignored);
  file.commit();
}

int report_command(int argc, char** argv) {
  CLI::App app(
      "Writes one self-contained HTML page from validation results (validation.json of\n"
      "`flashsim validate`) or `flashsim run` results (summary.json): provenance, the summary\n"
      "per metric, the per-scenario table and the plots of tools/plot_validation.py (SVG,\n"
      "inlined; needs python3 with matplotlib, else the page says the plots were skipped).\n"
      "A capacity sweep of `flashsim run` gets its miss-ratio curves with the bounds on the\n"
      "optimal hit ratio (FOO, or PFOO on long traces) as a band, solved on the trace re-opened\n"
      "from results.h5; their data goes beside the page (FILE-mrc.json).\n"
      "Runs with a time series (not cache_only) get their hit ratio over time, one line per run\n"
      "(one panel per sweep point when there are more than 10 runs); its data goes beside the\n"
      "page too (FILE-hit-ratio.json).\n"
      "A folder stands for its validation.json (else its summary.json).",
      "flashsim report");
  std::vector<std::string> results;
  std::string out, python;
  bool no_plots = false, no_bound = false;
  // A page should come back in seconds: exact FOO only on short traces, small
  // segments beyond (a looser lower bound; `flashsim trace bound` for tight ones).
  long long exact_max_accesses = 20'000, segment_accesses = 2'000;
  app.add_option("results", results, "validation.json or summary.json files, or folders holding one")->required();
  app.add_option("-o,--out", out, "the HTML file (default: report.html beside the first result)");
  app.add_option("--python", python,
                 "python interpreter for the plots (default: /usr/bin/python3 if present, else python3 on PATH)");
  app.add_flag("--no-plots", no_plots, "tables only");
  app.add_flag("--no-bound", no_bound, "no optimal-caching bound beside a capacity sweep (it re-reads the trace)");
  app.add_option("--bound-exact-max-accesses", exact_max_accesses,
                 "the bound: FOO on the whole trace up to this many accesses, PFOO beyond")
      ->capture_default_str();
  app.add_option("--bound-segment", segment_accesses, "beyond it: accesses per segment of the lower bound")
      ->capture_default_str();
  if (!parse_command_line(app, argc, argv)) return 0;
  if (exact_max_accesses < 1) throw InputError("--bound-exact-max-accesses: expected >= 1");
  if (segment_accesses < 2) throw InputError("--bound-segment: expected >= 2");

  // Every input is read before any plotting: a bad last file costs nothing.
  std::vector<report::ReportSection> sections;
  for (const auto& r : results) sections.push_back({report::load_report_input(r), {}});
  const std::filesystem::path target = out.empty() ? default_out(sections.front().input.file) : std::filesystem::path(out);
  for (const auto& s : sections) {
    std::error_code ec;
    if (std::filesystem::equivalent(s.input.file, target, ec))
      throw InputError("--out " + target.string() + ": is one of the inputs; not overwriting it");
    for (const std::filesystem::path& data : {mrc_data_path(target), hit_ratio_data_path(target)}) {
      if (std::filesystem::equivalent(s.input.file, data, ec))
        throw InputError("--out " + target.string() + ": its " + data.filename().string() +
                         " is one of the inputs; not overwriting it");
    }
  }
  if (target.has_parent_path()) std::filesystem::create_directories(target.parent_path());

  // Runs with a time series: their hit ratio over time, read first (a bad
  // results.h5 is refused before anything is written), its data beside the page.
  const std::filesystem::path hit_file = hit_ratio_data_path(target);
  report::Json hit_data{{"schema", report::kReportHitRatioSchema}, {"sections", report::Json::array()}};
  std::vector<std::optional<std::size_t>> hit_section(sections.size());  // section k -> its index in hit_data
  for (std::size_t k = 0; k < sections.size(); ++k) {
    report::ReportSection& s = sections[k];
    if (s.input.kind != report::ReportInput::Kind::run_summary) continue;
    s.hit_ratio = report::read_hit_ratio_over_time(s.input.run_summary);
    if (s.hit_ratio.runs.empty()) continue;
    const report::HitRatioLayout layout =
        report::layout_hit_ratio(s.input.run_summary, s.hit_ratio, hit_file.filename().string());
    hit_section[k] = hit_data["sections"].size();
    hit_data["sections"].push_back(report::hit_ratio_section_json(s.input.run_summary, s.hit_ratio, layout));
  }

  // Capacity sweeps: the bound per run, and the curves' data beside the page
  // (the plot script reads it; so can anyone comparing numbers).
  const report::BoundSolver solver = bound_solver(exact_max_accesses, segment_accesses);
  report::Json mrc_data{{"schema", report::kReportMrcSchema}, {"sections", report::Json::array()}};
  std::vector<std::size_t> mrc_section(sections.size(), 0);  // section k -> its index in mrc_data
  bool any_sweep = false;
  for (std::size_t k = 0; k < sections.size(); ++k) {
    report::ReportSection& s = sections[k];
    if (s.input.kind != report::ReportInput::Kind::run_summary || !report::is_capacity_sweep(s.input.run_summary)) continue;
    any_sweep = true;
    if (!no_bound) {
      s.bounds = report::compute_mrc_bounds(s.input.run_summary, solver);
      if (!s.bounds.note.empty()) std::cerr << "flashsim report: '" << s.input.file.string() << "': " << s.bounds.note << "\n";
    }
    mrc_section[k] = mrc_data["sections"].size();
    mrc_data["sections"].push_back(report::mrc_section_json(s.input.run_summary, s.bounds));
  }
  const std::filesystem::path mrc_file = mrc_data_path(target);
  if (any_sweep) write_file_atomically(mrc_file, mrc_data.dump(1) + "\n");
  if (!hit_data["sections"].empty()) write_file_atomically(hit_file, hit_data.dump(1) + "\n");

  report::PlotOptions options;
  options.python = python;
  for (std::size_t k = 0; k < sections.size(); ++k) {
    report::ReportSection& s = sections[k];
    const bool sweep = s.input.kind == report::ReportInput::Kind::run_summary && report::is_capacity_sweep(s.input.run_summary);
    if (s.input.kind != report::ReportInput::Kind::validation && !sweep && !hit_section[k]) continue;
    options.id_salt = "input" + std::to_string(k + 1) + "-";
    if (no_plots) {
      s.plots.disabled = true;
      s.plots.skipped_reason = "--no-plots was given";
      continue;
    }
    if (s.input.kind == report::ReportInput::Kind::validation) {
      options.extra_args = {};
      s.plots = report::plot_validation(s.input.file, options);
    } else {
      if (sweep) {
        options.extra_args = {"--section", std::to_string(mrc_section[k])};
        s.plots = report::plot_validation(mrc_file, options);
      }
      if (hit_section[k] && (s.plots.ran || !sweep)) {  // no second try when the first found no matplotlib
        options.extra_args = {"--section", std::to_string(*hit_section[k])};
        append_figures(s.plots, report::plot_validation(hit_file, options));
      }
    }
    if (!s.plots.ran) {
      std::cerr << "flashsim report: plots of '" << s.input.file.string() << "' skipped: " << s.plots.skipped_reason
                << "\n";
    }
  }
  write_page(target, report::report_html(sections, tool_version_string(), now_utc()));
  std::cout << "report: " << target.string() << "\n";
  if (any_sweep) std::cout << "miss-ratio curves' data: " << mrc_file.string() << "\n";
  if (!hit_data["sections"].empty()) std::cout << "hit ratio over time data: " << hit_file.string() << "\n";
  return 0;
}

}  // namespace

FLASHSIM_REGISTER_COMMAND("report", "report RESULTS... [--out FILE.html] [--python PATH] [--no-plots] [--no-bound]",
                          "one HTML page (tables and plots, self-contained) from validation.json files\n"
                          "of `flashsim validate` or summary.json files of `flashsim run`",
                          &report_command);

}  // namespace flashsim::cli
