// flashsim run [SCENARIO] [--out DIR] [--jobs N] [--set KEY=VALUE ...]
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <iostream>
#include <string>
#include <vector>

#include "sim/cli/cli_parse.h"
#include "sim/cli/command_registry.h"
#include "sim/core/errors.h"
#include "sim/results/results_table.h"
#include "sim/results/results_writer.h"
#include "sim/run/scenario_runner.h"

namespace {

// Creates `dir` if needed and checks that files can be created in it;
// throws InputError naming it otherwise.
void check_results_dir(const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec || !std::filesystem::is_directory(dir)) {
    throw flashsim::InputError("results folder '" + dir.string() + "': cannot create it" + (ec ? ": " + ec.message() : ": not a directory"));
  }
  if (access(dir.c_str(), W_OK | X_OK) != 0) {
    throw flashsim::InputError("results folder '" + dir.string() + "': not writable: " + std::strerror(errno));
  }
}

}  // namespace

namespace flashsim::cli {

namespace {

int run_command(int argc, char** argv) {
  CLI::App app(
      "Replays the scenario's trace under each of its policies (at each sweep point)\n"
      "and prints one table per sweep point; writes results.h5 and summary.json.\n"
      "Without SCENARIO it runs the default scenario embedded in the binary.",
      "flashsim run");
  std::string scenario, out;
  long long jobs = 0;
  std::vector<std::string> sets;
  bool print_scenario = false, no_progress = false;
  app.add_option("scenario", scenario, "scenario YAML (default: the embedded default scenario)");
  app.add_option("-o,--out", out, "results folder (default: the scenario's outputs.dir, flashsim-results/<name>)");
  app.add_option("-j,--jobs", jobs, "runs in parallel (0: one per core)")->capture_default_str();
  app.add_option("-s,--set", sets,
                 "override a scenario key by dotted path, e.g. --set cache.capacity=50% --set policies.0.impl=arc "
                 "(repeatable; the value is YAML)")
      ->allow_extra_args(false);
  app.add_flag("--print-scenario", print_scenario, "print the resolved scenario of each sweep point and exit");
  app.add_flag("--no-progress", no_progress, "no progress line on stderr");
  if (!parse_command_line(app, argc, argv)) return 0;

  std::vector<Override> overrides;
  for (const auto& s : sets) overrides.push_back(parse_override(s));
  const bool builtin = scenario.empty();
  const ScenarioDocument document = builtin ? ScenarioDocument::builtin_default(overrides)
                                            : ScenarioDocument::from_file(scenario, overrides);

  if (print_scenario) {
    const auto points = document.points();
    for (const auto& p : points) {
      if (points.size() > 1) std::cout << "# point " << (p.index + 1) << "/" << points.size() << ": " << p.label() << "\n";
      std::cout << "---\n" << to_yaml_text(document.resolve(p).resolved);
    }
    return 0;
  }

  RunnerOptions options;
  if (jobs < 0 || jobs > 4096) throw InputError("--jobs " + std::to_string(jobs) + ": expected 0 (one per core) to 4096");
  options.jobs = static_cast<unsigned>(jobs);
  if (!no_progress && isatty(STDERR_FILENO)) options.progress = &std::cerr;
  if (builtin) std::cout << "flashsim run: no scenario given; running the embedded default scenario\n";
  // The results folder is checked before the simulation, not after it.
  const Scenario first = document.resolve(document.points().front());
  const std::string dir = !out.empty() ? out : first.outputs.dir;
  check_results_dir(dir);
  const ScenarioResults results = run_scenario(document, options);

  print_results_tables(std::cout, results);
  const ResultsPaths paths = write_results(dir, results);
  std::cout << "\nresults: " << paths.h5.string() << "\n         " << paths.json.string() << "\n";
  return 0;
}

}  // namespace

FLASHSIM_REGISTER_COMMAND("run", "run [SCENARIO] [--out DIR] [--jobs N] [--set KEY=VALUE ...]",
                          "replay a trace or generated workload under each policy of a scenario (YAML)\n"
                          "and write results.h5 and summary.json; without SCENARIO, the embedded default",
                          &run_command);

}  // namespace flashsim::cli
