// flashsim run [SCENARIO...] [--out DIR] [--jobs N] [--set KEY=VALUE ...]
//   or  flashsim run --trace FILE --policies lru,arc --capacity 10%[,50%] (a scenario from the flags)
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <system_error>
#include <iostream>
#include <string>
#include <vector>

#include "sim/cli/cli_parse.h"
#include "sim/cli/command_registry.h"
#include "sim/cli/output_dir.h"
#include "sim/cli/quick_scenario.h"
#include "sim/core/errors.h"
#include "sim/core/unit_parse.h"
#include "sim/results/results_table.h"
#include "sim/results/results_writer.h"
#include "sim/run/run_limits.h"
#include "sim/run/scenario_runner.h"


namespace flashsim::cli {

namespace {

// The scenario files named: a folder stands for its *.yaml files, sorted.
// Throws InputError for a path that does not exist or a folder without any.
// True for a file name a trace importer reads (flashsim trace formats), not YAML.
bool looks_like_trace(const std::string& path) {
  std::string name = std::filesystem::path(path).filename().string();
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const char* ext : {".csv", ".h5", ".hdf5", ".bin", ".json", ".gz", ".zst", ".oraclegeneral", ".raw"}) {
    const std::string e(ext);
    if (name.size() > e.size() && name.compare(name.size() - e.size(), e.size(), e) == 0) return true;
  }
  return false;
}

std::vector<std::string> expand_scenarios(const std::vector<std::string>& args) {
  std::vector<std::string> files;
  for (const auto& arg : args) {
    std::error_code ec;
    if (!std::filesystem::is_directory(arg, ec)) {
      if (looks_like_trace(arg)) {
        throw InputError("'" + arg + "' looks like a trace, not a scenario: run it with `flashsim run --trace " + arg +
                         " --policies lru,arc --capacity 10%`, or name it in a scenario's workload.trace "
                         "(docs/scenarios.md)");
      }
      files.push_back(arg);  // from_file names a missing file
      continue;
    }
    std::vector<std::string> in_dir;
    for (std::filesystem::directory_iterator it(arg, ec), end; !ec && it != end; it.increment(ec)) {
      const auto ext = it->path().extension();
      std::error_code type_ec;  // a link loop or dangling link in the folder is just not a scenario
      if ((ext == ".yaml" || ext == ".yml") && it->is_regular_file(type_ec)) in_dir.push_back(it->path().string());
    }
    if (ec) throw InputError("scenario folder '" + arg + "': " + ec.message());
    if (in_dir.empty()) throw InputError("scenario folder '" + arg + "' holds no .yaml files");
    std::sort(in_dir.begin(), in_dir.end());
    files.insert(files.end(), in_dir.begin(), in_dir.end());
  }
  return files;
}

// Runs one scenario document and writes its results into `dir`.
void run_document(const ScenarioDocument& document, std::vector<Scenario> resolved, const std::string& out,
                  bool several, const RunnerOptions& options) {
  // The results folder is checked before the simulation, not after it.
  const Scenario& first = resolved.front();
  const std::string dir = out.empty() ? first.outputs.dir : several ? out + "/" + first.name : out;
  OutputDir output(dir);
  const ScenarioResults results = run_scenario(document, std::move(resolved), options);
  print_results_tables(std::cout, results);
  const ResultsPaths paths = write_results(dir, results);
  output.keep();
  std::cout << "\nresults: " << paths.h5.string() << "\n         " << paths.json.string() << "\n";
}

int run_command(int argc, char** argv) {
  CLI::App app(
      "Replays each scenario's trace or generated workload under each of its policies (at\n"
      "each sweep point) and prints one table per sweep point; writes results.h5 and\n"
      "summary.json. A folder stands for its *.yaml files. Without SCENARIO it runs the\n"
      "default scenario embedded in the binary.",
      "flashsim run");
  std::vector<std::string> scenarios;
  std::string out;
  long long jobs = 0;
  std::vector<std::string> sets;
  bool print_scenario = false, no_progress = false;
  std::string max_memory;
  std::uint64_t max_points = kDefaultMaxSweepPoints;
  app.add_option("scenario", scenarios, "scenario YAML files or folders (default: the embedded default scenario)");
  app.add_option("-o,--out", out,
                 "results folder (default: each scenario's outputs.dir, flashsim-results/<name>); with several "
                 "scenarios, OUT/<name>");
  app.add_option("-j,--jobs", jobs, "runs in parallel (0: one per core)")->capture_default_str();
  app.add_option("-s,--set", sets,
                 "override a scenario key by dotted path, e.g. --set cache.capacity=50% --set policies.0.impl=arc "
                 "(repeatable; the value is YAML; applies to every scenario)")
      ->allow_extra_args(false);
  app.add_option("--max-memory", max_memory,
                 "refuse runs estimated to need more memory than this, together (default: 80% of this machine's)");
  app.add_option("--max-points", max_points, "refuse sweeps of more points than this")->capture_default_str();
  QuickScenario quick;
  std::vector<std::string> quick_policies, quick_capacities;
  app.add_option("--trace", quick.trace,
                 "run this trace without a scenario file (with --policies and --capacity; a scenario named after it)");
  app.add_option("--format", quick.format, "with --trace: its format (default: from the file name; flashsim trace formats)");
  app.add_option("--policies", quick_policies, "with --trace: policies, comma-separated (e.g. lru,arc,s3fifo)");
  app.add_option("--capacity", quick_capacities,
                 "with --trace: fast-tier capacity (10%, 2GiB); several, comma-separated or repeated, make a sweep");
  app.add_option("--engine", quick.engine, "with --trace: cache_only (hit ratios) or event (time, on --hardware)")
      ->capture_default_str();
  app.add_option("--hardware", quick.hardware, "with --trace --engine event: hardware profile")->capture_default_str();
  app.add_flag("--print-scenario", print_scenario, "print the resolved scenario of each sweep point and exit");
  app.add_flag("--no-progress", no_progress,
               "no progress on stderr (on a terminal one line rewritten in place; elsewhere a line every 10 s)");
  if (!parse_command_line(app, argc, argv)) return 0;
  if (app.count("--out") > 0 && out.empty()) throw InputError("--out: an empty path (leave --out out for the default)");
  if (jobs < 0 || jobs > 4096) throw InputError("--jobs " + std::to_string(jobs) + ": expected 0 (one per core) to 4096");

  std::vector<Override> overrides;
  for (const auto& s : sets) overrides.push_back(parse_override(s));
  const bool quick_form = app.count("--trace") > 0;
  if (!quick_form) {
    for (const char* option : {"--format", "--policies", "--capacity", "--engine", "--hardware"}) {
      if (app.count(option) > 0) {
        throw InputError(std::string(option) + " goes with --trace; for a scenario use --set (e.g. --set cache.capacity=10%)");
      }
    }
  } else if (!scenarios.empty()) {
    throw InputError("--trace runs one trace without a scenario: give either scenario files or --trace, not both");
  }
  const std::vector<std::string> files = expand_scenarios(scenarios);
  // Every file is parsed before anything runs: a typo in the last one costs no simulation.
  std::vector<ScenarioDocument> documents;
  if (quick_form) {
    quick.policies = split_list(quick_policies, "--policies");
    quick.capacities = split_list(quick_capacities, "--capacity");
    documents.push_back(ScenarioDocument::from_text(quick_scenario_yaml(quick), "the scenario of --trace",
                                                    std::filesystem::current_path(), overrides));
  } else if (files.empty()) {
    documents.push_back(ScenarioDocument::builtin_default(overrides));
  }
  for (const auto& f : files) documents.push_back(ScenarioDocument::from_file(f, overrides));
  if (max_points < 1) throw InputError("--max-points " + std::to_string(max_points) + ": expected at least 1");
  for (auto& document : documents) document.set_max_points(max_points);
  const ByteCount max_memory_bytes =
      max_memory.empty() ? default_memory_limit_bytes()
                         : effective_memory_limit(parse_option("--max-memory", max_memory, parse_bytes));
  for (const auto& document : documents) check_sweep_memory(document, max_memory_bytes);  // before any point is built
  std::vector<std::vector<Scenario>> resolved;  // every point of every file, before anything runs
  for (const auto& document : documents) {
    resolved.push_back(resolve_points(document, no_progress ? nullptr : &std::cerr, isatty(STDERR_FILENO) != 0));
  }

  if (print_scenario) {
    for (std::size_t k = 0; k < documents.size(); ++k) {
      const auto points = documents[k].points();
      for (const auto& p : points) {
        if (points.size() > 1) std::cout << "# point " << (p.index + 1) << "/" << points.size() << ": " << p.label() << "\n";
        std::cout << "---\n" << to_yaml_text(resolved[k][p.index].resolved);
      }
    }
    return 0;
  }

  RunnerOptions options;
  options.jobs = static_cast<unsigned>(jobs);
  options.max_memory_bytes = max_memory_bytes;
  if (!no_progress) {
    options.progress = &std::cerr;
    options.progress_terminal = isatty(STDERR_FILENO) != 0;
  }
  if (files.empty() && !quick_form) std::cout << "flashsim run: no scenario given; running the embedded default scenario\n";
  for (std::size_t k = 0; k < documents.size(); ++k) {
    if (documents.size() > 1) std::cout << (k ? "\n" : "") << "== " << files[k] << "\n";
    run_document(documents[k], std::move(resolved[k]), out, documents.size() > 1, options);
  }
  return 0;
}

}  // namespace

FLASHSIM_REGISTER_COMMAND("run", "run [SCENARIO|FOLDER ...] [--out DIR] [--jobs N] [--set KEY=VALUE ...]",
                          "replay a trace or generated workload under each policy of a scenario (YAML)\n"
                          "and write results.h5 and summary.json; without SCENARIO, the embedded default",
                          &run_command);

}  // namespace flashsim::cli
