// flashsim sweep plan SCENARIO --emit parallel|slurm [--shards N] [--out DIR] [--set K=V ...] [--jobs N]
// flashsim sweep merge DIR
// A sweep beyond one machine (docs/sweeps.md): `plan` writes the commands
// that run it as N shards (`flashsim run --shard K/N`, each writing its
// points into DIR/points/), `merge` gathers the points into results.h5 and
// summary.json equal to a single-machine run's.
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <filesystem>
#include <functional>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "sim/cli/cli_parse.h"
#include "sim/cli/command_registry.h"
#include "sim/core/errors.h"
#include "sim/results/sweep_store.h"
#include "sim/run/progress.h"
#include "sim/scenario/scenario_document.h"
#include "traces/atomic_file.h"

namespace flashsim::cli {

namespace {

constexpr const char* kUsage =
    "usage: flashsim sweep plan SCENARIO --emit parallel|slurm [--shards N] [--out DIR] [--set KEY=VALUE ...] [--jobs N]\n"
    "       flashsim sweep merge DIR\n";

// `text` as one shell word.
std::string quoted(const std::string& text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

// `text` in double quotes (it may hold single-quoted words).
std::string double_quoted(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\' || c == '$' || c == '`') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::filesystem::path absolute_path(const std::filesystem::path& p) {
  std::error_code ec;
  const std::filesystem::path a = std::filesystem::absolute(p, ec);
  return ec ? p : a.lexically_normal();
}

// This flashsim's own path: the shards run the same binary.
std::string self_path() {
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("flashsim") : self.string();
}

int do_plan(const std::vector<std::string>& args) {
  CLI::App app(
      "Writes the commands that run SCENARIO's sweep as N shards, each `flashsim run\n"
      "--shard K/N` (the sweep points p with p mod N = K), on GNU parallel or as a Slurm\n"
      "job array, into OUT/plan/; `flashsim sweep merge OUT` then gathers the points.",
      "flashsim sweep plan");
  std::string scenario, emit, out;
  std::size_t shards = 0;
  long long jobs = 0;
  std::vector<std::string> sets;
  app.add_option("scenario", scenario, "the scenario YAML file")->required();
  app.add_option("--emit", emit, "parallel (a GNU parallel command list) or slurm (an sbatch array script)")->required();
  app.add_option("--shards", shards, "how many shards (default: one per sweep point, at most 1000)");
  app.add_option("-o,--out", out, "results folder (default: the scenario's outputs.dir)");
  app.add_option("-s,--set", sets, "override a scenario key, passed to every shard (repeatable)")->allow_extra_args(false);
  app.add_option("-j,--jobs", jobs, "threads of each shard (default 1; Slurm: --cpus-per-task)");
  if (!parse_command_line(app, args)) return 0;
  if (emit != "parallel" && emit != "slurm") throw InputError("--emit '" + emit + "': expected parallel or slurm");
  if (jobs < 0 || jobs > 4096) throw InputError("--jobs " + std::to_string(jobs) + ": expected 1 to 4096");
  if (jobs == 0) jobs = 1;
  std::vector<Override> overrides;
  for (const auto& s : sets) overrides.push_back(parse_override(s));
  const ScenarioDocument document = ScenarioDocument::from_file(scenario, overrides);
  const std::vector<SweepPoint> points = document.points();
  const Scenario first = document.resolve(points.front());  // the name and outputs.dir; shards resolve the rest
  if (app.count("--shards") == 0) shards = std::min<std::size_t>(points.size(), 1000);
  if (shards < 1 || shards > points.size()) {
    throw InputError("--shards " + std::to_string(shards) + ": expected 1 to the sweep's " + std::to_string(points.size()) +
                     " point" + (points.size() == 1 ? "" : "s"));
  }
  const std::filesystem::path dir = absolute_path(out.empty() ? first.outputs.dir : out);
  const std::filesystem::path plan = dir / "plan";
  std::error_code ec;
  std::filesystem::create_directories(plan, ec);
  if (ec) throw InputError("cannot create '" + plan.string() + "': " + ec.message());

  // Everything a shard is given except --shard; absolute paths (the shards start elsewhere).
  std::string common = quoted(absolute_path(scenario).string()) + " --out " + quoted(dir.string());
  for (const auto& s : sets) common += " --set " + quoted(s);
  const std::string binary = quoted(self_path());
  const std::string merge = binary + " sweep merge " + quoted(dir.string());
  std::cout << "flashsim sweep plan: " << points.size() << " sweep point" << (points.size() == 1 ? "" : "s") << " of '"
            << first.name << "' in " << shards << " shard" << (shards == 1 ? "" : "s")
            << " (shard K runs the points p with p mod " << shards << " = K) -> " << dir.string() << "\n";
  if (emit == "parallel") {
    std::string list;
    for (std::size_t k = 0; k < shards; ++k) {
      list += binary + " run " + common + " --shard " + std::to_string(k) + "/" + std::to_string(shards) + " --jobs " +
              std::to_string(jobs) + "\n";
    }
    const std::filesystem::path commands = plan / "parallel.txt";
    const std::filesystem::path joblog = plan / "joblog.txt";
    write_file_atomically(commands, list);
    // --resume skips the shards the job log records as done; a shard run
    // again skips its finished points anyway.
    const std::string run = "parallel --joblog " + quoted(joblog.string()) + " --resume -a " + quoted(commands.string());
    write_file_atomically(plan / "run-parallel.sh",
                          "#!/bin/sh\n# flashsim sweep plan: every shard on GNU parallel, then the merge\nset -e\n" + run +
                              "\n" + merge + "\n");
    std::filesystem::permissions(plan / "run-parallel.sh", std::filesystem::perms::owner_all | std::filesystem::perms::group_read |
                                                               std::filesystem::perms::others_read, ec);
    std::cout << "commands: " << commands.string() << " (one `flashsim run --shard K/" << shards << "` a line)\n"
              << "run them:\n  " << run << "\nthen merge:\n  " << merge << "\n(both: sh "
              << quoted((plan / "run-parallel.sh").string()) << ")\n";
    return 0;
  }
  const std::filesystem::path script = plan / "sweep.sbatch";
  std::string name = first.name;
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.') c = '_';
  }
  const std::string text =
      "#!/bin/bash\n"
      "# flashsim sweep plan: " + std::to_string(points.size()) + " sweep points of '" + first.name + "' in " +
      std::to_string(shards) + " shards -> " + dir.string() + "\n"
      "# submit: sbatch " + script.string() + "; when every task has finished: flashsim sweep merge " + dir.string() + "\n"
      "#SBATCH --job-name=flashsim-" + name + "\n"
      "#SBATCH --array=0-" + std::to_string(shards - 1) + "\n"
      "#SBATCH --cpus-per-task=" + std::to_string(jobs) + "\n"
      "#SBATCH --output=" + (plan / "slurm-%A_%a.out").string() + "\n"
      "set -eu\n"
      "exec " + binary + " run " + common + " --shard \"${SLURM_ARRAY_TASK_ID}/" + std::to_string(shards) +
      "\" --jobs " + std::to_string(jobs) + "\n";
  write_file_atomically(script, text);
  std::cout << "script: " << script.string() << " (an array of " << shards << " tasks, task K runs `flashsim run --shard K/"
            << shards << "`)\nsubmit it, and the merge after it:\n  jobid=$(sbatch --parsable " << quoted(script.string())
            << ")\n  sbatch --dependency=afterok:$jobid --wrap " << double_quoted(merge) << "\n";
  return 0;
}

int do_merge(const std::vector<std::string>& args) {
  CLI::App app(
      "Merges the sweep points of a results folder (written by `flashsim run`, or by its\n"
      "shards with --shard K/N) into its results.h5 and summary.json, in point order.",
      "flashsim sweep merge");
  std::string dir;
  bool no_progress = false;
  app.add_option("dir", dir, "the results folder (it holds sweep.json and points/)")->required();
  app.add_flag("-q,--quiet,--no-progress", no_progress,
               "no progress on stderr (sweeps of 1000 points or more; on a terminal one line rewritten in place)");
  if (!parse_command_line(app, args)) return 0;
  const auto start = std::chrono::steady_clock::now();
  const std::optional<SweepManifest> manifest = read_manifest(dir);
  if (!manifest) {
    throw InputError("'" + dir + "' holds no sweep.json: not a results folder that `flashsim run` (or its --shard runs) wrote");
  }
  for (const auto& folder : {std::filesystem::path(dir), points_dir(dir)}) {
    const std::string removed = describe_removed(remove_stale_temp_files(folder, ".tmp-"));
    if (!removed.empty()) std::cerr << "flashsim: " << removed << "\n";
  }
  HostInfo host = HostInfo::current();
  host.jobs = 1;
  host.total_wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  PassProgress progress(no_progress ? nullptr : &std::cerr, isatty(STDERR_FILENO) != 0);
  const ResultsPaths paths = merge_points(dir, *manifest, host, std::ref(progress));
  std::cout << "merged " << manifest->points.size() << " sweep point" << (manifest->points.size() == 1 ? "" : "s")
            << " of '" << manifest->scenario_name << "'\nresults: " << paths.h5.string() << "\n         "
            << paths.json.string() << "\n";
  return 0;
}

int sweep_command(int argc, char** argv) {
  return run_action(argc, argv, "sweep", kUsage, {{"plan", do_plan}, {"merge", do_merge}});
}

}  // namespace

FLASHSIM_REGISTER_COMMAND("sweep", "sweep plan SCENARIO --emit parallel|slurm [--shards N] | sweep merge DIR",
                          "run a sweep as shards on GNU parallel or a Slurm array (plan), and merge\n"
                          "the shards' points into results.h5 and summary.json (merge)",
                          &sweep_command);

}  // namespace flashsim::cli
