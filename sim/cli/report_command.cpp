// flashsim report RESULTS... [--out FILE.html] [--python PATH] [--no-plots]
#include <cerrno>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "sim/cli/cli_parse.h"
#include "sim/cli/command_registry.h"
#include "sim/core/errors.h"
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
      "A folder stands for its validation.json (else its summary.json).",
      "flashsim report");
  std::vector<std::string> results;
  std::string out, python;
  bool no_plots = false;
  app.add_option("results", results, "validation.json or summary.json files, or folders holding one")->required();
  app.add_option("-o,--out", out, "the HTML file (default: report.html beside the first result)");
  app.add_option("--python", python,
                 "python interpreter for the plots (default: /usr/bin/python3 if present, else python3 on PATH)");
  app.add_flag("--no-plots", no_plots, "tables only");
  if (!parse_command_line(app, argc, argv)) return 0;

  // Every input is read before any plotting: a bad last file costs nothing.
  std::vector<report::ReportSection> sections;
  for (const auto& r : results) sections.push_back({report::load_report_input(r), {}});
  const std::filesystem::path target = out.empty() ? default_out(sections.front().input.file) : std::filesystem::path(out);
  for (const auto& s : sections) {
    std::error_code ec;
    if (std::filesystem::equivalent(s.input.file, target, ec))
      throw InputError("--out " + target.string() + ": is one of the inputs; not overwriting it");
  }
  if (target.has_parent_path()) std::filesystem::create_directories(target.parent_path());

  report::PlotOptions options;
  options.python = python;
  for (std::size_t k = 0; k < sections.size(); ++k) {
    report::ReportSection& s = sections[k];
    if (s.input.kind != report::ReportInput::Kind::validation) continue;
    options.id_salt = "input" + std::to_string(k + 1) + "-";
    if (no_plots) {
      s.plots.disabled = true;
      s.plots.skipped_reason = "--no-plots was given";
      continue;
    }
    s.plots = report::plot_validation(s.input.file, options);
    if (!s.plots.ran) {
      std::cerr << "flashsim report: plots of '" << s.input.file.string() << "' skipped: " << s.plots.skipped_reason
                << "\n";
    }
  }
  write_page(target, report::report_html(sections, tool_version_string(), now_utc()));
  std::cout << "report: " << target.string() << "\n";
  return 0;
}

}  // namespace

FLASHSIM_REGISTER_COMMAND("report", "report RESULTS... [--out FILE.html] [--python PATH] [--no-plots]",
                          "one HTML page (tables and plots, self-contained) from validation.json files\n"
                          "of `flashsim validate` or summary.json files of `flashsim run`",
                          &report_command);

}  // namespace flashsim::cli
