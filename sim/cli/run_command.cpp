// flashsim run [SCENARIO...] [--out DIR] [--jobs N] [--set KEY=VALUE ...] [--shard K/N] [--force|--resume]
//   or  flashsim run --trace FILE --policies lru,arc --capacity 10%[,50%] (a scenario from the flags)
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <optional>
#include <filesystem>
#include <functional>
#include <system_error>
#include <iostream>
#include <regex>
#include <string>
#include <vector>

#include "sim/cli/cli_parse.h"
#include "sim/cli/engine_warnings.h"
#include "sim/cli/command_registry.h"
#include "sim/cli/output_dir.h"
#include "sim/scenario/quick_scenario.h"
#include "sim/core/errors.h"
#include "sim/core/unit_parse.h"
#include "sim/results/component_table.h"
#include "sim/results/results_table.h"
#include "sim/results/results_writer.h"
#include "sim/results/sweep_store.h"
#include "sim/run/progress.h"
#include "sim/run/run_limits.h"
#include "sim/run/scenario_runner.h"
#include "traces/trace_formats.h"


namespace flashsim::cli {

namespace {

// The scenario files named: a folder stands for its *.yaml files, sorted.
// Throws InputError for a path that does not exist or a folder without any.
// True for a file a trace importer reads (the importers' own detection:
// name, then first bytes), not YAML.
bool looks_like_trace(const std::string& path) {
  try {
    detect_trace_format(path);
    return true;
  } catch (const InputError&) {
    return false;
  }
}

std::vector<std::string> expand_scenarios(const std::vector<std::string>& args) {
  std::vector<std::string> files;
  for (const auto& arg : args) {
    if (arg.empty()) throw InputError("an empty scenario path (''): give a scenario file or folder");
    if (const std::string output = describe_flashsim_output(arg); !output.empty()) throw InputError(output);
    std::error_code ec;
    if (!std::filesystem::is_directory(arg, ec)) {
      // Only a regular file is probed: a pipe (`run <(cat s.yaml)`) is read once, by the scenario reader.
      if (std::filesystem::is_regular_file(arg, ec) && looks_like_trace(arg)) {  // a missing one: no such file
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

// What identifies the sweep's results, known before anything runs.
ScenarioResults sweep_header(const ScenarioDocument& document, const std::vector<Scenario>& resolved) {
  ScenarioResults header;
  header.scenario_name = resolved.front().name;
  header.scenario_source = resolved.front().source;
  header.input_text = document.input_text();
  header.tool_version = tool_version_string();
  const std::vector<SweepPoint> points = document.points();
  for (std::size_t p = 0; p < resolved.size(); ++p) {
    header.resolved_texts.push_back(to_yaml_text(resolved[p].resolved));
    header.point_labels.push_back(points[p].label());
  }
  return header;
}

// What a run does with results already in its folder (docs/scenarios.md,
// "Results"): by default it reuses the finished points of the same scenario
// and refuses another scenario's; --resume replaces another scenario's
// results reusing the points both share; --force runs every point again.
enum class Rerun { keep, resume, force };

// The replace rule: results of another resolved scenario are never
// replaced silently.
void check_previous_results(const std::filesystem::path& dir, const SweepManifest& manifest, Rerun rerun) {
  const bool replace = rerun != Rerun::keep;
  std::optional<PreviousResults> previous;
  try {
    previous = previous_results(dir);
  } catch (const InputError&) {
    if (!replace) throw;
    previous = PreviousResults{};  // unreadable: --force or --resume replaces it
  }
  if (!previous) return;
  std::string difference = scenario_difference(*previous, manifest);
  if (difference.empty()) {
    if (!previous->tool_version.empty() && previous->tool_version != manifest.tool_version) {
      std::cerr << "flashsim run: '" << dir.string() << "' holds results of flashsim " << previous->tool_version
                << "; rerunning its points with " << manifest.tool_version << "\n";
    }
    return;
  }
  if (previous->from.empty()) difference = "unreadable results";
  if (!replace) {
    throw InputError("results folder '" + dir.string() + "' holds the results of another scenario (" +
                     (previous->from.empty() ? std::string() : previous->from.filename().string() + " ") + difference +
                     "): pass --force to replace them (every point runs again), --resume to replace them reusing "
                     "the points both scenarios share, or --out another folder");
  }
  std::cerr << "flashsim run: " << (rerun == Rerun::force ? "--force" : "--resume") << ": replacing the results in '"
            << dir.string() << "' (" << difference << ")\n";
  for (const char* name : {"summary.json", "results.h5"}) {
    std::error_code ec;
    std::filesystem::remove(dir / name, ec);
    if (ec) throw Error("cannot remove '" + (dir / name).string() + "': " + ec.message());
  }
}

struct SweepOptions {
  Rerun rerun = Rerun::keep;
  std::optional<std::pair<std::size_t, std::size_t>> shard;  ///< K of N
  bool print_components = false;  ///< --components: every component statistic below the tables
};

// An error about the scenario --trace wrote, in the words the user typed:
// the generated text's line:column and key as the option that set it.
std::string in_quick_form_words(const std::string& message) {
  static const std::regex at(R"(the scenario of --trace:[0-9]+:[0-9]+: (key '([^']*)': )?)");
  std::smatch m;
  if (const std::string run = "the scenario of --trace: workload.trace: "; message.rfind(run, 0) == 0) {
    return "--trace: " + message.substr(run.size());  // a check before the runs (EngineTraits::check_trace)
  }
  if (!std::regex_search(message, m, at)) return message;
  const std::string key = m[2].str();
  static const std::pair<const char*, const char*> kOptions[] = {
      {"cache.capacity", "--capacity"}, {"workload.trace", "--trace"}, {"workload.format", "--format"},
      {"workload", "--trace"},          {"hardware", "--hardware"},    {"hardware.profile", "--hardware"},
      {"engine", "--engine"},           {"engine.impl", "--engine"},   {"policies", "--policies"}};
  std::string said = key.empty() ? "--trace: " : "key '" + key + "' (of the scenario --trace writes; --print-scenario shows it): ";
  for (const auto& [k, option] : kOptions) {
    if (key == k || (std::string(k) == "policies" && key.rfind("policies.", 0) == 0)) said = std::string(option) + ": ";
  }
  return m.prefix().str() + said + m.suffix().str();
}

// Runs one scenario document into its results folder: points already
// finished there are skipped, each point is written as it finishes, and
// (without --shard) results.h5 and summary.json are merged from the points.
void run_document(const ScenarioDocument& document, std::vector<Scenario> resolved, const std::string& out,
                  bool several, const RunnerOptions& options, const SweepOptions& sweep) {
  const auto wall_start = std::chrono::steady_clock::now();
  // The results folder is checked before the simulation, not after it.
  const Scenario& first = resolved.front();
  const std::filesystem::path dir = out.empty() ? first.outputs.dir : several ? out + "/" + first.name : out;
  OutputDir output(dir);
  const std::string removed = describe_removed(remove_stale_temp_files(points_dir(dir), ".tmp-"));
  if (!removed.empty()) std::cerr << "flashsim: " << removed << "\n";
  const ScenarioResults header = sweep_header(document, resolved);
  const SweepManifest manifest = SweepManifest::of(header);
  check_previous_results(dir, manifest, sweep.rerun);
  // sweep.json goes in with the first point (or the merge): a run refused
  // by a check before any point leaves the folder as it was.
  bool manifest_written = false;
  auto ensure_manifest = [&] {
    if (!manifest_written) write_manifest(dir, manifest);
    manifest_written = true;
  };

  const std::size_t total = manifest.points.size();
  std::vector<std::size_t> mine;
  if (sweep.shard) {
    mine = shard_points(total, sweep.shard->first, sweep.shard->second);
  } else {
    for (std::size_t p = 0; p < total; ++p) mine.push_back(p);
  }
  RunnerOptions run_options = options;
  run_options.artifacts_dir = dir;  // files an engine writes per run (the GPU replay's access logs)
  std::size_t skipped = 0, removed_points = 0;
  for (const std::size_t p : mine) {
    if (sweep.rerun == Rerun::force) {  // this run's points only: other shards' stay
      for (const auto& file : {point_json_path(dir, manifest.points[p]), point_h5_path(dir, manifest.points[p])}) {
        std::error_code ec;
        const bool gone = std::filesystem::remove(file, ec);
        if (ec) throw Error("cannot remove '" + file.string() + "': " + ec.message());
        if (gone && file.extension() == ".json") ++removed_points;  // one per point
      }
      run_options.points.push_back(p);
    } else if (point_finished(dir, manifest.points[p], manifest.tool_version)) {
      ++skipped;
    } else {
      run_options.points.push_back(p);
    }
  }
  if (removed_points > 0) {
    std::cerr << "flashsim run: --force: running " << removed_points << " finished point"
              << (removed_points == 1 ? "" : "s") << " again (in " << points_dir(dir).string() << ")\n";
  }
  if (skipped > 0) {
    std::cerr << "flashsim run: skipping " << skipped << " finished point" << (skipped == 1 ? "" : "s") << " of "
              << mine.size() << " (in " << points_dir(dir).string() << ")\n";
  }
  std::uint64_t written = 0;  // points written by this run (one call at a time)
  run_options.on_point_done = [&](std::size_t p, const std::vector<RunResult>& runs) {
    // A results file of this point alone, its runs numbered from 0.
    ScenarioResults one = manifest.header();
    one.resolved_texts = {manifest.points[p].resolved};
    one.point_labels = {manifest.points[p].label};
    one.runs = runs;
    for (RunResult& r : one.runs) {
      r.index = r.policy_index;
      r.point_index = 0;
    }
    one.host = HostInfo::current();
    one.host.jobs = std::max(1u, options.jobs);
    for (const RunResult& r : one.runs) one.host.total_wall_seconds += r.wall_seconds;
    ensure_manifest();
    write_point(dir, manifest.points[p], one);
    // Test hook (tests/app/sweep_cli_test.cpp): die as `kill -9` would once
    // this many points are written, to test resuming.
    if (const char* kill_after = std::getenv("FLASHSIM_TEST_KILL_AFTER_POINTS")) {
      if (++written == std::strtoull(kill_after, nullptr, 10)) ::kill(::getpid(), SIGKILL);
    }
  };
  ScenarioResults results = header;
  if (!run_options.points.empty()) {
    results = run_scenario(document, std::move(resolved), run_options);
    print_results_tables(std::cout, results);
    print_engine_warnings(std::cerr, "flashsim run", results);
    if (sweep.print_components) {
      print_component_tables(std::cout, results);
    } else if (const std::size_t n = count_component_statistics(results); n > 0) {
      std::cout << "\n  the runs' components report " << n << " more statistic" << (n == 1 ? "" : "s")
                << " (--components prints them)\n";
    }
  }
  ensure_manifest();
  if (sweep.shard) {
    output.keep();
    std::cout << "\nshard " << sweep.shard->first << "/" << sweep.shard->second << ": " << mine.size() << " of "
              << total << " sweep points finished in " << points_dir(dir).string()
              << "\nwhen every shard has finished: flashsim sweep merge " << dir.string() << "\n";
    return;
  }
  HostInfo host = HostInfo::current();
  host.jobs = run_options.points.empty() ? 1u : results.host.jobs;
  host.total_wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  PassProgress merge_progress(options.progress, options.progress_terminal);
  const ResultsPaths paths = merge_points(dir, manifest, host, std::ref(merge_progress));
  output.keep();
  if (run_options.points.empty()) std::cout << "every sweep point was already finished: results merged from them\n";
  std::cout << "\nresults: " << paths.h5.string() << "\n         " << paths.json.string() << "\n";
}

int run_command(int argc, char** argv) {
  CLI::App app(
      "Replays each scenario's trace or generated workload under each of its policies (at\n"
      "each sweep point) and prints one table per sweep point; writes results.h5 and\n"
      "summary.json. A folder stands for its *.yaml files. Without SCENARIO it runs the\n"
      "default scenario embedded in the binary. Each sweep point is written to\n"
      "OUT/points/ as it finishes; a rerun skips the points finished there (docs/sweeps.md).",
      "flashsim run");
  std::vector<std::string> scenarios;
  std::string out;
  long long jobs = 0;
  std::vector<std::string> sets;
  bool print_scenario = false, no_progress = false, force = false, resume = false, sweep_components = false;
  std::string shard;
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
  app.add_option("--engine", quick.engine,
                 "with --trace: cache_only (hit ratios), event (time, on --hardware) or program (a captured\n"
                 "program's steps; --policies as_recorded needs no --capacity; `flashsim predict` has its options)")
      ->capture_default_str();
  app.add_option("--hardware", quick.hardware,
                 "with --trace --engine event or program: hardware profile (program: default h200-calibrated, whose "
                 "execution: section it needs)")
      ->capture_default_str();
  app.add_flag("--force", force,
               "replace the results in the results folder, running every point again, also when they are of "
               "another scenario (by default such a run is refused, naming the keys that differ)");
  app.add_flag("--resume", resume,
               "replace another scenario's results in the results folder, reusing the finished points both "
               "scenarios share (the same scenario's finished points are always reused unless --force)");
  app.add_option("--shard", shard,
                 "K/N: run only shard K (from 0) of N: the sweep points p with p mod N = K, each written to "
                 "OUT/points/; then `flashsim sweep merge OUT` (flashsim sweep plan writes the N commands)");
  app.add_flag("--components", sweep_components,
               "also print every component statistic of the runs (numbers, texts, series: the L2, TLB, links, "
               "tiers, prefetchers, a program's prediction), as summary.json's runs[].components hold them");
  app.add_flag("--print-scenario", print_scenario, "print the resolved scenario of each sweep point and exit");
  app.add_flag("-q,--quiet,--no-progress", no_progress,
               "no progress on stderr (on a terminal one line rewritten in place; elsewhere a line every 10 s)");
  if (!parse_command_line(app, argc, argv)) return 0;
  if (app.count("--out") > 0 && out.empty()) throw InputError("--out: an empty path (leave --out out for the default)");
  if (jobs < 0 || jobs > 4096) throw InputError("--jobs " + std::to_string(jobs) + ": expected 0 (one per core) to 4096");

  if (force && resume) throw InputError("--force and --resume: choose one (--force runs every point again)");
  SweepOptions sweep;
  sweep.rerun = force ? Rerun::force : resume ? Rerun::resume : Rerun::keep;
  if (app.count("--shard") > 0) sweep.shard = parse_shard("--shard", shard);
  sweep.print_components = sweep_components;
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
  const auto rest = [&]() -> int {
  // Every file is parsed before anything runs: a typo in the last one costs no simulation.
  std::vector<ScenarioDocument> documents;
  if (quick_form) {
    if (app.count("--hardware") > 0 && quick.engine == "cache_only") {  // was ignored, whatever it named
      throw InputError("--hardware " + quick.hardware + ": --engine cache_only has no hardware (hit ratios only); "
                       "add --engine event to time the run on a hardware profile");
    }
    // A program's execution model needs the profile's execution: section (predict's default too).
    if (quick.engine == "program" && app.count("--hardware") == 0) quick.hardware = "h200-calibrated";
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
    run_document(documents[k], std::move(resolved[k]), out, documents.size() > 1, options, sweep);
  }
  return 0;
  };
  if (!quick_form) return rest();
  try {
    return rest();
  } catch (const InputError& e) {
    throw InputError(in_quick_form_words(e.what()));
  }
}

}  // namespace

FLASHSIM_REGISTER_COMMAND("run", "run [SCENARIO|FOLDER ...] [--out DIR] [--jobs N] [--set KEY=VALUE ...]",
                          "replay a trace or generated workload under each policy of a scenario (YAML)\n"
                          "and write results.h5 and summary.json; without SCENARIO, the embedded default",
                          &run_command);

}  // namespace flashsim::cli
