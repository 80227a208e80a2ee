// flashsim results export RESULTS --format csv|parquet [--out DIR]
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "sim/cli/cli_parse.h"
#include "sim/cli/command_registry.h"
#include "sim/core/errors.h"
#include "sim/report/plot_runner.h"
#include "sim/results/results_export.h"

#ifndef FLASHSIM_DEFAULT_PYTHON
#define FLASHSIM_DEFAULT_PYTHON ""
#endif

namespace flashsim::cli {
namespace {

constexpr const char* kUsage =
    "usage: flashsim results export RESULTS --format csv|parquet [--out DIR]\n"
    "  export   a results folder's tables (summary, timeseries, requests and the components' numbers,\n"
    "           texts and series) as CSV or Parquet\n";

// The Python that writes Parquet: $FLASHSIM_PYTHON, else the one CMake chose
// (FLASHSIM_PYTHON: the project's .venv, which has pyarrow), else Debian's.
std::string export_python() {
  if (const char* env = std::getenv("FLASHSIM_PYTHON"); env != nullptr && *env != '\0') return env;
  return report::resolve_python(FLASHSIM_DEFAULT_PYTHON);
}

int do_export(const std::vector<std::string>& args) {
  CLI::App app(
      "Writes a results folder (of flashsim run, sweep merge or replay) as six tables, the\n"
      "DataFrames of the Python package's flashsim.Results: summary (one row per run, the metric\n"
      "schema's columns, params as JSON text), timeseries, requests, components, component_texts\n"
      "and component_series (every run's rows, a `run` column first; a series one row per value).\n"
      "CSV is written natively (doubles exact, RFC 4180 quoting);\n"
      "Parquet through Python with pyarrow ($FLASHSIM_PYTHON, default the project's .venv).\n"
      "Each file is written to a temp file and renamed. docs/python.md, \"Results as CSV and Parquet\".",
      "flashsim results export");
  std::string results, format, out;
  app.add_option("RESULTS", results, "the results folder (or its summary.json)")->required();
  app.add_option("--format", format, "csv or parquet")->required()->check(CLI::IsMember({"csv", "parquet"}));
  app.add_option("--out", out, "the folder for the tables (default RESULTS/export-FORMAT)");
  if (!parse_command_line(app, args)) return 0;
  std::error_code ec;
  const std::filesystem::path folder =
      std::filesystem::is_regular_file(results, ec) ? std::filesystem::path(results).parent_path() : std::filesystem::path(results);
  const std::filesystem::path out_dir = out.empty() ? folder / ("export-" + format) : std::filesystem::path(out);
  const std::vector<ExportedTable> tables = format == "csv"
                                                ? export_results_csv(results, out_dir)
                                                : export_results_parquet(results, out_dir, {export_python()});
  std::cout << "wrote " << out_dir.string() << "/:";
  for (const ExportedTable& t : tables) {
    std::cout << " " << t.file.filename().string() << " (" << t.rows << " row" << (t.rows == 1 ? "" : "s") << ")";
  }
  std::cout << "\n";
  return 0;
}

int results_command(int argc, char** argv) {
  return run_action(argc, argv, "results", kUsage, {{"export", do_export}});
}

}  // namespace

FLASHSIM_REGISTER_COMMAND("results", "results export RESULTS --format csv|parquet [--out DIR]",
                          "a results folder's tables (summary, timeseries, requests, components' numbers, texts, series) as CSV or Parquet",
                          &results_command);

}  // namespace flashsim::cli
