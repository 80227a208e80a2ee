// flashsim replay [SCENARIO ...] [--out DIR] [--set KEY=VALUE ...] [options]
// A front end of `flashsim run` with `engine: {impl: gpu_replay, ...}` (its
// options are the engine's parameters, hw/replay/gpu_replay_engine.cpp):
// the same policies, tier and allocator objects as the simulator, results
// in the same schema, one folder OUT/<scenario>[-LABEL] per scenario.
#include <CLI/CLI.hpp>
#include <iostream>
#include <string>
#include <vector>

#include "hw/cuda_check.h"
#include "hw/device_identity.h"
#include "hw/replay/replay_table.h"
#include "sim/cli/cli_parse.h"
#include "sim/cli/command_registry.h"
#include "sim/core/errors.h"
#include "sim/scenario/scenario_document.h"

namespace flashsim::cli {
namespace {

int replay_command(int argc, char** argv) {
  CLI::App app(
      "Runs each scenario's policies (at each sweep point) on the GPU: `flashsim run` with\n"
      "engine gpu_replay. A device-memory pool of slots is the fast tier, a host buffer holding\n"
      "every block the backing tier; the simulator's policy objects decide every access, misses\n"
      "and prefetches are cudaMemcpyAsync, a kernel consumes each block. Writes results.h5 and\n"
      "summary.json (the simulator's schema; the replay's own statistics are the runs' `replay`\n"
      "and `device` components) and each run's access log under OUT/<scenario>[-LABEL]/.",
      "flashsim replay");
  std::vector<std::string> scenarios, sets, prefetcher_params;
  std::string out = "flashsim-results/replay", label, backing = "pinned", kernel = "read", prefetcher;
  long long copy_streams = 1, run_ahead = 8, device = 0, max_accesses = 0;
  bool no_cache = false, replay_gaps = false, l2_mode = false, no_window = false, verify = false, no_nvml = false,
       no_access_log = false, force = false;
  app.add_option("scenario", scenarios, "scenario YAML files (default: the embedded default scenario)");
  app.add_option("-o,--out", out, "results root; each scenario writes OUT/<name>[-LABEL]/")->capture_default_str();
  app.add_option("--label", label, "suffix of each scenario's results folder (e.g. pageable)");
  app.add_option("-s,--set", sets, "override a scenario key by dotted path (repeatable; the value is YAML)")
      ->allow_extra_args(false);
  app.add_option("--backing", backing, "engine.backing: host memory of the backing store, pinned or pageable")
      ->check(CLI::IsMember({"pinned", "pageable"}))
      ->capture_default_str();
  app.add_flag("--no-cache", no_cache, "engine.no_cache: no fast tier, every access copies its block");
  app.add_option("--kernel", kernel, "engine.kernel: read (every byte) or gemv (bf16 [rows x 4096] x vector)")
      ->check(CLI::IsMember({"read", "gemv"}))
      ->capture_default_str();
  app.add_option("--copy-streams", copy_streams, "engine.copy_streams")->capture_default_str();
  app.add_option("--run-ahead", run_ahead, "engine.run_ahead: accesses the host may issue ahead of the GPU")
      ->capture_default_str();
  app.add_option("--prefetcher", prefetcher,
                 "engine.prefetcher: replaces the scenario's prefetch lists (flashsim policies --all lists them)");
  app.add_option("--prefetcher-param", prefetcher_params, "KEY=VALUE parameter of the prefetcher (repeatable)")
      ->allow_extra_args(false);
  app.add_flag("--replay-gaps", replay_gaps, "engine.replay_gaps: hold each access until its recorded time offset");
  app.add_flag("--l2-mode", l2_mode, "engine.l2_mode: the fast tier is the persisting L2 carve-out");
  app.add_flag("--l2-no-window", no_window, "engine.l2_window: false (with --l2-mode: the baseline)");
  app.add_flag("--verify", verify, "engine.verify: probe device memory per access; slower");
  app.add_flag("--no-nvml", no_nvml, "engine.nvml: false");
  app.add_flag("--no-access-log", no_access_log, "engine.access_log: false");
  app.add_option("--device", device, "engine.device: CUDA device ordinal")->capture_default_str();
  app.add_option("--max-accesses", max_accesses, "engine.max_accesses: the first N accesses only (0: all)")
      ->capture_default_str();
  app.add_flag("--force", force, "replace results of another scenario in the results folder (flashsim run --force)");
  if (!parse_command_line(app, argc, argv)) return 0;

  std::string params;
  for (const std::string& p : prefetcher_params) {
    if (p.find('=') == std::string::npos || p.front() == '=') {
      throw InputError("--prefetcher-param '" + p + "': expected KEY=VALUE");
    }
    params += (params.empty() ? "" : ",") + p;
  }
  auto yes = [](bool b) -> std::string { return b ? "true" : "false"; };
  const std::string engine = engine_set_text("gpu_replay", {{"backing", backing},
                                                            {"no_cache", yes(no_cache)},
                                                            {"kernel", kernel},
                                                            {"copy_streams", std::to_string(copy_streams)},
                                                            {"run_ahead", std::to_string(run_ahead)},
                                                            {"verify", yes(verify)},
                                                            {"replay_gaps", yes(replay_gaps)},
                                                            {"l2_mode", yes(l2_mode)},
                                                            {"l2_window", yes(!no_window)},
                                                            {"prefetcher", prefetcher},
                                                            {"prefetcher_params", params},
                                                            {"access_log", yes(!no_access_log)},
                                                            {"nvml", yes(!no_nvml)},
                                                            {"device", std::to_string(device)},
                                                            {"max_accesses", std::to_string(max_accesses)}});
  std::vector<std::string> all_sets{engine};  // the user's --set after it: engine.run_ahead=16 still applies
  all_sets.insert(all_sets.end(), sets.begin(), sets.end());
  std::vector<Override> overrides;
  for (const auto& s : all_sets) overrides.push_back(parse_override(s));
  if (!hw::cuda_device_present()) throw Error("no CUDA device visible: replay needs a GPU");
  hw::print_device_identity(std::cout, hw::read_device_identity(static_cast<int>(device)));

  const Command* run = CommandRegistry::instance().find("run");
  if (run == nullptr) throw Error("flashsim replay: the run command is not linked into this program");
  if (scenarios.empty()) scenarios.push_back("");
  for (const std::string& file : scenarios) {
    const ScenarioDocument document =
        file.empty() ? ScenarioDocument::builtin_default(overrides) : ScenarioDocument::from_file(file, overrides);
    const std::string name = document.resolve(document.points().front()).name;
    const std::string dir = out + "/" + (label.empty() ? name : name + "-" + label);
    std::cout << "== replay " << (file.empty() ? "<builtin default>" : file) << " -> " << dir << "\n" << std::flush;
    std::vector<std::string> args{"run"};
    if (!file.empty()) args.push_back(file);
    for (const auto& s : all_sets) args.insert(args.end(), {"--set", s});
    args.insert(args.end(), {"--out", dir, "--jobs", "1"});
    if (force) args.push_back("--force");
    std::vector<char*> argv_run;
    for (std::string& a : args) argv_run.push_back(a.data());
    const int rc = run->run(static_cast<int>(argv_run.size()), argv_run.data());
    if (rc != 0) return rc;
    hw::print_replay_table(std::cout, dir);
  }
  return 0;
}

}  // namespace

FLASHSIM_REGISTER_COMMAND("replay", "replay [SCENARIO ...] [--out DIR] [--backing pinned|pageable] [--no-cache] ...",
                          "run the scenarios' policies on the GPU (flashsim run with engine gpu_replay): the same\n"
                          "policy objects, real copies and kernels; results in the simulator's schema",
                          &replay_command);

}  // namespace flashsim::cli
