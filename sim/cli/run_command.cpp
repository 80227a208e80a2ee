// flashsim run [SCENARIO] [--out DIR] [--jobs N] [--set KEY=VALUE ...]
#include <unistd.h>

#include <boost/program_options.hpp>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <iostream>
#include <string>
#include <vector>

#include "sim/cli/commands.h"
#include "sim/core/errors.h"
#include "sim/results/results_table.h"
#include "sim/results/results_writer.h"
#include "sim/run/scenario_runner.h"

namespace po = boost::program_options;

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

int run_command(int argc, char** argv) {
  po::options_description visible(
      "usage: flashsim run [SCENARIO] [options]\n\n"
      "Replays the scenario's trace under each of its policies (at each sweep point)\n"
      "and prints one table per sweep point; writes results.h5 and summary.json.\n"
      "Without SCENARIO it runs the default scenario embedded in the binary.\n\noptions");
  visible.add_options()("help,h", "this help")(
      "out,o", po::value<std::string>(), "results folder (default: the scenario's outputs.dir, flashsim-results/<name>)")(
      "jobs,j", po::value<long long>()->default_value(0), "runs in parallel (0: one per core)")(
      "set,s", po::value<std::vector<std::string>>()->composing(),
      "override a scenario key by dotted path, e.g. --set cache.capacity=50% --set policies.0.impl=arc "
      "(repeatable; the value is YAML)")("print-scenario", "print the resolved scenario of each sweep point and exit")(
      "no-progress", "no progress line on stderr");
  po::options_description hidden;
  hidden.add_options()("scenario", po::value<std::string>());
  po::options_description all;
  all.add(visible).add(hidden);
  po::positional_options_description positional;
  positional.add("scenario", 1);

  po::variables_map vm;
  try {
    po::store(po::command_line_parser(argc, argv).options(all).positional(positional).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    throw InputError(std::string(e.what()) + " (flashsim run --help)");
  }
  if (vm.count("help")) {
    std::cout << visible << "\n";
    return 0;
  }

  std::vector<Override> overrides;
  if (vm.count("set")) {
    for (const auto& s : vm["set"].as<std::vector<std::string>>()) overrides.push_back(parse_override(s));
  }
  const bool builtin = !vm.count("scenario");
  const ScenarioDocument document = builtin ? ScenarioDocument::builtin_default(overrides)
                                            : ScenarioDocument::from_file(vm["scenario"].as<std::string>(), overrides);

  if (vm.count("print-scenario")) {
    const auto points = document.points();
    for (const auto& p : points) {
      if (points.size() > 1) std::cout << "# point " << (p.index + 1) << "/" << points.size() << ": " << p.label() << "\n";
      std::cout << "---\n" << to_yaml_text(document.resolve(p).resolved);
    }
    return 0;
  }

  RunnerOptions options;
  const long long jobs = vm["jobs"].as<long long>();
  if (jobs < 0 || jobs > 4096) throw InputError("--jobs " + std::to_string(jobs) + ": expected 0 (one per core) to 4096");
  options.jobs = static_cast<unsigned>(jobs);
  if (!vm.count("no-progress") && isatty(STDERR_FILENO)) options.progress = &std::cerr;
  if (builtin) std::cout << "flashsim run: no scenario given; running the embedded default scenario\n";
  // The results folder is checked before the simulation, not after it.
  const Scenario first = document.resolve(document.points().front());
  const std::string dir = vm.count("out") ? vm["out"].as<std::string>() : first.outputs.dir;
  check_results_dir(dir);
  const ScenarioResults results = run_scenario(document, options);

  print_results_tables(std::cout, results);
  const ResultsPaths paths = write_results(dir, results);
  std::cout << "\nresults: " << paths.h5.string() << "\n         " << paths.json.string() << "\n";
  return 0;
}

}  // namespace flashsim::cli
