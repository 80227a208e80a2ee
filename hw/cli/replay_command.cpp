// flashsim replay [SCENARIO ...] [--out DIR] [--set KEY=VALUE ...] [options]
// The scenarios' runs on the GPU through hw/replay: the same policies,
// tier and allocator objects as `flashsim run`, results in the same schema.
#include <CLI/CLI.hpp>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "hw/cuda_check.h"
#include "hw/device_identity.h"
#include "hw/replay/replay_suite.h"
#include "sim/cli/cli_parse.h"
#include "sim/cli/command_registry.h"
#include "sim/core/errors.h"

namespace flashsim::cli {
namespace {

std::map<std::string, std::string> parse_params(const std::vector<std::string>& items, const char* option) {
  std::map<std::string, std::string> out;
  for (const std::string& s : items) {
    const auto eq = s.find('=');
    if (eq == std::string::npos || eq == 0) throw InputError(std::string(option) + " '" + s + "': expected KEY=VALUE");
    out[s.substr(0, eq)] = s.substr(eq + 1);
  }
  return out;
}

int replay_command(int argc, char** argv) {
  CLI::App app(
      "Runs each scenario's policies (at each sweep point) on the GPU: a device-memory pool of\n"
      "slots is the fast tier, a host buffer holding every block the backing tier; the\n"
      "simulator's policy objects decide every access, misses and prefetches are\n"
      "cudaMemcpyAsync, a kernel consumes each block. Writes results.h5 and summary.json\n"
      "(the simulator's schema plus /replay) and each run's access log under OUT/<scenario>/.",
      "flashsim replay");
  std::vector<std::string> scenarios, sets, prefetcher_params;
  std::string out = "flashsim-results/replay", label, backing = "pinned", kernel = "read", prefetcher;
  hw::ReplayOptions o;
  long long copy_streams = 1, run_ahead = 8, device = 0, max_accesses = 0;
  bool no_access_log = false, no_nvml = false;
  app.add_option("scenario", scenarios, "scenario YAML files (default: the embedded default scenario)");
  app.add_option("-o,--out", out, "results root; each scenario writes OUT/<name>[-LABEL]/")->capture_default_str();
  app.add_option("--label", label, "suffix of each scenario's results folder (e.g. pageable)");
  app.add_option("-s,--set", sets, "override a scenario key by dotted path (repeatable; the value is YAML)")
      ->allow_extra_args(false);
  app.add_option("--backing", backing, "host memory of the backing store: pinned or pageable")
      ->check(CLI::IsMember({"pinned", "pageable"}))
      ->capture_default_str();
  app.add_flag("--no-cache", o.no_cache, "no fast tier: every access copies its block (offload without a cache)");
  app.add_option("--kernel", kernel, "per-access kernel: read (every byte) or gemv (bf16 [rows x 4096] x vector)")
      ->check(CLI::IsMember({"read", "gemv"}))
      ->capture_default_str();
  app.add_option("--copy-streams", copy_streams, "copy streams for misses and prefetches")->capture_default_str();
  app.add_option("--run-ahead", run_ahead, "accesses the host may issue ahead of the GPU")->capture_default_str();
  app.add_option("--prefetcher", prefetcher,
                 "prefetcher replacing the scenario's prefetch lists (flashsim policies --all lists them); default:"
                 " the scenario's own, as `flashsim run` uses them");
  app.add_option("--prefetcher-param", prefetcher_params, "KEY=VALUE parameter of the prefetcher (repeatable)")
      ->allow_extra_args(false);
  app.add_flag("--replay-gaps", o.replay_gaps, "hold each access until its recorded time offset (host gaps as recorded)");
  app.add_flag("--l2-mode", o.l2_mode,
               "the fast tier is the persisting L2 carve-out over a staging region (capacity <= 37.5 MiB on the H200);"
               " blocks live in HBM");
  bool no_window = false;
  app.add_flag("--l2-no-window", no_window, "with --l2-mode: no persisting limit or window (the baseline)");
  app.add_flag("--verify", o.verify, "probe device memory per access (slot table against device memory); slower");
  app.add_flag("--no-nvml", no_nvml, "do not sample NVML");
  app.add_flag("--no-access-log", no_access_log, "do not write the access logs");
  app.add_option("--device", device, "CUDA device ordinal")->capture_default_str();
  app.add_option("--max-accesses", max_accesses, "replay only the first N accesses (0: all)")->capture_default_str();
  if (!parse_command_line(app, argc, argv)) return 0;

  if (copy_streams < 1 || copy_streams > 64) throw InputError("--copy-streams: expected 1 to 64");
  if (run_ahead < 1 || run_ahead > 4096) throw InputError("--run-ahead: expected 1 to 4096");
  if (max_accesses < 0) throw InputError("--max-accesses: expected >= 0");
  o.backing = backing == "pageable" ? hw::HostMemory::pageable : hw::HostMemory::pinned;
  o.kernel = kernel == "gemv" ? kernels::ConsumeMode::gemv : kernels::ConsumeMode::read;
  o.copy_streams = static_cast<unsigned>(copy_streams);
  o.run_ahead = static_cast<std::size_t>(run_ahead);
  o.device = static_cast<int>(device);
  o.max_accesses = static_cast<std::uint64_t>(max_accesses);
  o.nvml = !no_nvml;
  o.l2_window = !no_window;
  o.prefetcher.impl = prefetcher;
  o.prefetcher.params = parse_params(prefetcher_params, "--prefetcher-param");
  if (!hw::cuda_device_present()) throw Error("no CUDA device visible: replay needs a GPU");
  hw::print_device_identity(std::cout, hw::read_device_identity(o.device));

  std::vector<Override> overrides;
  for (const auto& s : sets) overrides.push_back(parse_override(s));
  if (scenarios.empty()) scenarios.push_back("");
  for (const std::string& file : scenarios) {
    const ScenarioDocument document =
        file.empty() ? ScenarioDocument::builtin_default(overrides) : ScenarioDocument::from_file(file, overrides);
    const Scenario first = document.resolve(document.points().front());
    const std::filesystem::path dir = std::filesystem::path(out) / (label.empty() ? first.name : first.name + "-" + label);
    std::cout << "== replay " << (file.empty() ? "<builtin default>" : file) << " (" << backing << ", "
              << (o.no_cache ? "no cache" : o.l2_mode ? "L2 fast tier" : "fast tier") << ", kernel " << kernel << ") -> " << dir.string() << "\n"
              << std::flush;
    const hw::ReplaySuite suite = hw::replay_scenario(document, o, no_access_log ? std::filesystem::path{} : dir, nullptr);
    hw::print_replay_table(std::cout, suite);
    hw::write_replay_results(dir, suite);
    std::cout << "results: " << (dir / "results.h5").string() << "\n" << std::flush;
  }
  return 0;
}

}  // namespace

FLASHSIM_REGISTER_COMMAND("replay", "replay [SCENARIO ...] [--out DIR] [--backing pinned|pageable] [--no-cache] ...",
                          "run the scenarios' policies on the GPU (hw/replay): same policy objects, real copies\n"
                          "and kernels; results.h5 in the simulator's schema plus /replay",
                          &replay_command);

}  // namespace flashsim::cli
