// flashsim diagnose: the "Flash health" check of seed 000 §4 made real.
//   flashsim diagnose [options] -- COMMAND ...   run COMMAND under capture (and NVML sampling;
//                                                 with --counters a second run under Nsight Compute)
//   flashsim diagnose [options] TRACE.h5         a capture made earlier
//   flashsim diagnose [options] RESULTS          a results folder of flashsim run / replay
// Measures the table's three inputs (sim/diagnose/health_table.h), says
// which row fires and why, and simulates the levers (program_levers.h,
// results_health.h) so the advice comes with numbers.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "sim/cli/cli_parse.h"
#include "sim/cli/engine_warnings.h"
#include "sim/cli/command_registry.h"
#include "sim/cli/output_dir.h"
#include "sim/core/errors.h"
#include "sim/core/temp_folder.h"
#include "sim/diagnose/health_table.h"
#include "sim/diagnose/ncu_l2.h"
#include "sim/diagnose/ncu_run.h"
#include "sim/diagnose/pcie_sampler.h"
#include "sim/diagnose/program_health.h"
#include "sim/diagnose/program_levers.h"
#include "sim/diagnose/results_health.h"
#include "sim/engine/program/program_engine.h"
#include "sim/policy/i_eviction_policy.h"
#include "sim/results/results_writer.h"
#include "sim/scenario/hardware_loader.h"
#include "sim/scenario/scenario.h"
#include "traces/atomic_file.h"
#include "traces/importers/capture_launch.h"
#include "traces/stats/footprint.h"
#include "traces/trace_formats.h"

namespace flashsim::cli {
namespace {

using json = nlohmann::ordered_json;
using namespace flashsim::diagnose;

struct Options {
  std::string hardware = "h200-calibrated", tier_capacity = "50%", json_out, weight_kernels, ncu = "ncu", ncu_csv,
              keep_trace, step_marker = "flashsim.step", step_kernel;
  std::vector<std::string> thresholds, policies;
  long long skip = 0, prefetch_distance = 1, ncu_launches = NcuRunOptions::kDefaultNcuLaunches, run = -1;
  double counters_timeout_s = NcuRunOptions::kDefaultNcuTimeoutSeconds;
  bool counters = false, no_levers = false;
  unsigned jobs = 0;
};


std::string pct(double r) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f%%", r * 100.0);
  return b;
}

json decision_json(const HealthDecision& d, const HealthInputs& in) {
  json j;
  auto opt = [](const std::optional<double>& v) { return v ? json(*v) : json(nullptr); };
  j["inputs"] = {{"l2_hit_rate", opt(in.l2_hit_rate)},
                 {"pcie_utilisation", opt(in.pcie_utilisation)},
                 {"weight_load_ms", opt(in.weight_load_ms)}};
  j["fired"] = d.fired;
  j["nearest"] = d.nearest;
  j["explanation"] = d.explain();
  for (const HealthRow& r : d.rows) {
    json row = {{"row", r.name}, {"lever", r.lever}, {"met", r.met}, {"measured", r.measured}};
    for (const HealthCondition& c : r.conditions) {
      row["conditions"].push_back({{"input", c.input}, {"condition", c.condition}, {"measured", c.measured}, {"met", c.met}});
    }
    j["rows"].push_back(row);
  }
  return j;
}

void print_decision(const HealthDecision& d) {
  std::printf("decision (seed 000 §4.4):\n");
  for (const HealthRow& r : d.rows) {
    std::printf("  %-20s", r.name.c_str());
    for (const HealthCondition& c : r.conditions) {
      std::printf("  %s %s %s", c.input.c_str(), c.condition.c_str(), !c.measured ? "(-)" : c.met ? "(yes)" : "(no)");
    }
    std::printf("\n");
  }
  std::printf("  -> %s\n", d.explain().c_str());
}

HealthThresholds thresholds_of(const Options& o) {
  HealthThresholds t;
  for (const auto& s : o.thresholds) t.set(s);
  return t;
}

/// A capture's diagnosis: measurements, the table, the levers.
json diagnose_trace(const std::string& trace, const Options& o, const HardwareProfile& hw,
                    const std::optional<NcuL2>& l2, const std::optional<PcieSummary>& pcie,
                    const std::string& pcie_why_not) {
  auto source = open_trace(trace);
  const TraceMeta meta = source->meta();
  if (!meta.program || meta.program->empty()) {
    throw InputError(trace + ": the trace " + no_program_reason(meta) +
                     " (diagnose also takes a results folder, or a command after --)");
  }
  ProgramHealth h;
  try {
    h = measure_program_health(*meta.program, hw, static_cast<std::size_t>(o.skip));
  } catch (const InputError& e) {
    throw InputError(std::string("--skip-steps: ") + e.what());
  }
  HealthInputs in;
  in.pcie_utilisation = h.pcie_utilisation();
  in.weight_load_ms = h.median_weight_load_ms;
  if (l2 && l2->matched > 0) in.l2_hit_rate = l2->hit_rate();
  const HealthDecision d = evaluate_health(in, thresholds_of(o));

  std::printf("flashsim diagnose: %s (profile %s)\n", trace.c_str(), hw.name.c_str());
  if (h.whole_program) {
    std::printf("steps: no step marks (rule '%s'): the whole GPU timeline is one step\n", meta.program->step_rule.c_str());
  } else {
    std::printf("steps: %zu measured after skipping %zu\n", h.steps.size(), h.skipped_steps);
  }
  std::printf("  time per step       median %.3f ms (kernels busy %s of it)\n", h.median_step_ms,
              pct(h.median_kernel_share).c_str());
  std::printf("  weight load (H2D)   median %.3f ms per step; D2H %.3f ms\n", h.median_weight_load_ms, h.median_d2h_ms);
  std::printf("  PCIe use            H2D %s of %.2f GB/s, D2H %s of %.2f GB/s (bytes per step / step time)\n",
              pct(h.median_h2d_utilisation).c_str(), h.h2d_ceiling / 1e9, pct(h.median_d2h_utilisation).c_str(),
              h.d2h_ceiling / 1e9);
  std::printf("  while copying       H2D %.2f GB/s (%s of the ceiling), D2H %.2f GB/s (%s)\n",
              h.h2d_while_copying_bytes_per_s / 1e9, pct(h.h2d_ceiling > 0 ? h.h2d_while_copying_bytes_per_s / h.h2d_ceiling : 0).c_str(),
              h.d2h_while_copying_bytes_per_s / 1e9, pct(h.d2h_ceiling > 0 ? h.d2h_while_copying_bytes_per_s / h.d2h_ceiling : 0).c_str());
  if (pcie && pcie->busy_samples > 0 && h.h2d_while_copying_bytes_per_s > 0 &&
      pcie->p90_rx_bytes_per_s < 0.1 * h.h2d_while_copying_bytes_per_s) {
    // Seen on the H200 machine (2026-12-02): NVML's rx stayed near 16 MB/s while copies ran at 55 GB/s.
    std::printf("  NVML PCIe           disagrees with the capture (rx p90 %.3f GB/s while H2D copies ran at %.2f GB/s):"
                " this NVML's PCIe counter is not used\n",
                pcie->p90_rx_bytes_per_s / 1e9, h.h2d_while_copying_bytes_per_s / 1e9);
  } else if (pcie) {
    std::printf("  NVML PCIe           rx median %.2f GB/s (p90 %.2f), tx median %.2f GB/s (p90 %.2f) over %zu busy of %zu samples\n",
                pcie->median_rx_bytes_per_s / 1e9, pcie->p90_rx_bytes_per_s / 1e9, pcie->median_tx_bytes_per_s / 1e9,
                pcie->p90_tx_bytes_per_s / 1e9, pcie->busy_samples, pcie->samples);
  } else if (!pcie_why_not.empty()) {
    std::printf("  NVML PCIe           not sampled: %s\n", pcie_why_not.c_str());
  }
  if (l2 && l2->matched > 0) {
    std::printf("  L2 hit rate         %s of SM sector lookups over %zu weight-reading kernel launches (ncu; %.3f GB "
                "looked up: compare with the bytes those kernels read)\n",
                pct(l2->hit_rate()).c_str(), l2->matched, (l2->hits + l2->misses) * 32.0 / 1e9);
  } else if (l2) {
    std::printf("  L2 hit rate         not measured: no profiled kernel matched --weight-kernels\n");
  } else {
    std::printf("  L2 hit rate         not measured (--counters runs Nsight Compute)\n");
  }
  std::printf("  stall share         median %s of a step the GPU ran copies and no kernel\n",
              pct(h.median_stall_share).c_str());
  print_decision(d);

  json j;
  j["input"] = trace;
  j["hardware"] = hw.name;
  j["whole_program"] = h.whole_program;
  j["skip_steps"] = h.skipped_steps;
  j["median_step_ms"] = h.median_step_ms;
  j["median_weight_load_ms"] = h.median_weight_load_ms;
  j["median_d2h_ms"] = h.median_d2h_ms;
  j["h2d_ceiling_bytes_per_s"] = h.h2d_ceiling;
  j["d2h_ceiling_bytes_per_s"] = h.d2h_ceiling;
  j["median_h2d_utilisation"] = h.median_h2d_utilisation;
  j["median_d2h_utilisation"] = h.median_d2h_utilisation;
  j["median_stall_share"] = h.median_stall_share;
  j["median_kernel_share"] = h.median_kernel_share;
  j["h2d_while_copying_bytes_per_s"] = h.h2d_while_copying_bytes_per_s;
  j["d2h_while_copying_bytes_per_s"] = h.d2h_while_copying_bytes_per_s;
  for (const StepHealth& s : h.steps) {
    j["steps"].push_back({{"start_ns", s.start_ns},
                          {"duration_ns", s.duration_ns},
                          {"h2d_bytes", s.h2d_bytes},
                          {"d2h_bytes", s.d2h_bytes},
                          {"h2d_busy_ns", s.h2d_busy_ns},
                          {"d2h_busy_ns", s.d2h_busy_ns},
                          {"kernel_busy_ns", s.kernel_busy_ns},
                          {"copy_stall_ns", s.copy_stall_ns}});
  }
  if (pcie) {
    j["nvml"] = {{"samples", pcie->samples},
                 {"busy_samples", pcie->busy_samples},
                 {"median_rx_bytes_per_s", pcie->median_rx_bytes_per_s},
                 {"median_tx_bytes_per_s", pcie->median_tx_bytes_per_s},
                 {"p90_rx_bytes_per_s", pcie->p90_rx_bytes_per_s},
                 {"p90_tx_bytes_per_s", pcie->p90_tx_bytes_per_s},
                 {"peak_memory_used_bytes", pcie->peak_memory_used_bytes}};
  }
  if (l2) {
    j["ncu"] = {{"weight_kernel_launches", l2->matched},
                {"profiled_launches", l2->kernels.size()},
                {"sector_lookup_hits", l2->hits},
                {"sector_lookup_misses", l2->misses},
                {"l2_hit_rate", l2->matched ? json(l2->hit_rate()) : json(nullptr)},
                {"max_lts__t_sector_hit_rate_pct", l2->max_ncu_pct}};
  }
  j["decision"] = decision_json(d, in);
  if (o.no_levers) return j;

  LeverOptions lo;
  lo.hardware = o.hardware;
  lo.skip_steps = h.whole_program ? 0 : static_cast<std::size_t>(o.skip);
  lo.prefetch_distance = static_cast<std::size_t>(o.prefetch_distance);
  lo.policies = o.policies;
  lo.jobs = o.jobs;
  lo.tier_capacity = o.tier_capacity;
  if (h.whole_program) {
    std::printf("levers: not simulated: the execution model measures time per step and the program has no step marks\n");
    return j;
  }
  const ProgramLevers lv = simulate_program_levers(trace, meta, lo);
  print_engine_warnings(std::cerr, "flashsim diagnose", lv.runs);
  std::printf("levers (execution model; as captured it predicts %.3f ms per step against %.3f ms recorded, %+.1f%%):\n",
              lv.model_median_step_ms, lv.recorded_median_step_ms, lv.model_error * 100.0);
  int name_width = 18;  // the widest lever name, so that the columns stay aligned (tier:static_fraction)
  for (const LeverResult& l : lv.levers) name_width = std::max(name_width, static_cast<int>(l.name.size()));
  for (const LeverResult& l : lv.levers) {
    std::printf("  %-*s %10.3f ms  %+6.1f%%  %s\n", name_width, l.name.c_str(), l.median_step_ms, l.change * 100.0,
                l.what.c_str());
    j["levers"].push_back({{"lever", l.name}, {"what", l.what}, {"median_step_ms", l.median_step_ms},
                           {"change", l.change}, {"offline", l.offline}, {"run", l.run}});
  }
  // Every lever's run as summary.json has it (the same printer as `flashsim run`'s).
  j["lever_runs"] = json::parse(summary_json_text(lv.runs)).at("runs");
  bool resident = false;
  for (const LeverResult& l : lv.levers) resident = resident || l.name == "static_placement";
  if (lv.tier_capacity_bytes > 0 && !resident) {
    std::printf("  static_placement: no streamed block fits in %llu B\n", static_cast<unsigned long long>(lv.tier_capacity_bytes));
  }
  if (lv.tier_capacity_bytes > 0) {
    if (lv.best_policy.empty()) {
      std::printf("  no online policy shortens the step with a fast tier of %llu B\n",
                  static_cast<unsigned long long>(lv.tier_capacity_bytes));
    } else {
      std::printf("  best online policy with a fast tier of %llu B: %s\n",
                  static_cast<unsigned long long>(lv.tier_capacity_bytes), lv.best_policy.c_str());
    }
  }
  j["model_median_step_ms"] = lv.model_median_step_ms;
  j["recorded_median_step_ms"] = lv.recorded_median_step_ms;
  j["model_error"] = lv.model_error;
  j["best_policy"] = lv.best_policy;
  j["tier_capacity_bytes"] = lv.tier_capacity_bytes;
  return j;
}

json diagnose_results(const std::string& input, const Options& o, const HardwareProfile& hw) {
  const ResultsHealth results = read_results_health(input, hw);
  const std::vector<RunHealth>& runs = results.runs;
  std::optional<ResultsLevers> levers;  // made at the first run that has levers (reads results.h5)
  const HealthThresholds t = thresholds_of(o);
  json j;
  j["input"] = input;
  std::printf("flashsim diagnose: %s (%zu run(s))\n", input.c_str(), runs.size());
  bool found = false;
  for (const RunHealth& r : runs) {
    if (o.run >= 0 && r.run != static_cast<std::size_t>(o.run)) continue;
    found = true;
    const HealthDecision d = evaluate_health(r.inputs, t);
    std::printf("\nrun %zu: %s%s%s (%s engine)\n", r.run, r.policy_label.c_str(), r.point_label.empty() ? "" : " at ",
                r.point_label.c_str(), r.engine.c_str());
    std::printf("  hit rate            %s (%s)\n",
                r.inputs.l2_hit_rate ? pct(*r.inputs.l2_hit_rate).c_str() : "-", r.hit_rate_source.c_str());
    if (r.inputs.pcie_utilisation) {
      std::printf("  PCIe use            %s of the run's time the host link was busy\n",
                  pct(*r.inputs.pcie_utilisation).c_str());
      std::printf("  weight load         %.3f ms per step (%llu steps)\n", *r.inputs.weight_load_ms,
                  static_cast<unsigned long long>(r.steps));
    }
    if (!r.note.empty()) {
      std::printf("  note                %s\n", r.note.c_str());
    } else {
      std::printf("  stall share         %s (%.3f of %.3f ms)\n", pct(r.stall_share).c_str(), r.stall_ms, r.simulated_ms);
    }
    print_decision(d);
    json run = {{"run", r.run}, {"policy", r.policy}, {"point_label", r.point_label}, {"engine", r.engine}, {"note", r.note},
                {"hit_rate_source", r.hit_rate_source}, {"stall_share", r.stall_share},
                {"simulated_ms", r.simulated_ms}, {"steps", r.steps}};
    run["decision"] = decision_json(d, r.inputs);
    if (!o.no_levers && r.note.empty()) {
      std::printf("  levers (re-run from results.h5's resolved scenario):\n");
      if (!levers) levers.emplace(results, o.jobs);
      for (const ResultsLever& l : levers->simulate(r)) {
        std::printf("    %-22s %10.3f ms  %+6.1f%%  (stall %.3f ms)%s\n", l.name.c_str(), l.simulated_ms,
                    l.change * 100.0, l.stall_ms, l.offline ? "  offline reference" : "");
        run["levers"].push_back({{"lever", l.name}, {"simulated_ms", l.simulated_ms}, {"stall_ms", l.stall_ms},
                                 {"change", l.change}, {"offline", l.offline}});
      }
    }
    j["runs"].push_back(run);
  }
  if (!found) throw InputError("--run " + std::to_string(o.run) + ": " + input + " has runs 0.." + std::to_string(runs.size() - 1));
  return j;
}

/// A results folder, or its summary.json (any .json: a summary is the only JSON diagnose reads).
bool is_results(const std::string& input) {
  std::error_code ec;
  return std::filesystem::is_directory(input, ec) || std::filesystem::path(input).extension() == ".json";
}

/// Options given that this input does not use, said on stderr.
void warn_unused(const CLI::App& app, bool results) {
  const std::vector<const char*> for_programs = {"--tier-capacity", "--policies", "--prefetch-distance",
                                                 "--skip-steps", "--ncu-csv"};
  const std::vector<const char*> for_live = {"--keep-trace", "--step-marker", "--step-kernel", "--ncu",
                                             "--ncu-launches", "--counters-timeout"};
  std::string unused;
  for (const char* name : for_live) {
    if (app.count(name) > 0) unused += std::string(unused.empty() ? "" : ", ") + name;
  }
  if (results) {
    for (const char* name : for_programs) {
      if (app.count(name) > 0) unused += std::string(unused.empty() ? "" : ", ") + name;
    }
  }  // --jobs: the results levers' threads, and the policy levers' on a capture
  if (!unused.empty()) {
    std::cerr << "flashsim diagnose: warning: " << unused << " do(es) not apply to "
              << (results ? "results" : "a capture file") << " and are ignored\n";
  }
}

int diagnose_command(int argc, char** argv) {
  CLI::App app("Is the fast tier the bottleneck, and which lever to pull? Measures L2 hit rate, PCIe use and weight\n"
               "load time per step, applies seed 000's decision table (thresholds settable) and simulates the\n"
               "levers (pinned memory, prefetch, a fast tier under every policy) with the execution model.",
               "flashsim diagnose");
  app.footer("forms: flashsim diagnose [OPTIONS] -- COMMAND [ARGS...]   (live: capture + NVML; --counters: + ncu)\n"
             "       flashsim diagnose [OPTIONS] TRACE.h5               (a capture with its program)\n"
             "       flashsim diagnose [OPTIONS] RESULTS                (a results folder or its summary.json)\n"
             "docs/diagnose.md");
  Options o;
  o.weight_kernels = "gemm|gemv|matmul|cutlass|xmma|nvjet|linear";
  std::string input;
  std::vector<std::string> command;  // after --
  app.add_option("input", input, "a capture trace (.h5 with a program) or a results folder / summary.json");
  app.add_option("--hardware", o.hardware, "hardware profile: the copy ceilings and the execution model")->capture_default_str();
  app.add_option("--threshold", o.thresholds,
                 "KEY=VALUE of the decision table: l2_low, l2_high, pcie_low, pcie_high (0.8 or 80%), load_low_ms, "
                 "load_high_ms");
  app.add_option("--skip-steps", o.skip, "warm-up steps left out of the medians")->capture_default_str();
  app.add_option("--tier-capacity", o.tier_capacity, "fast tier for the policy levers: bytes or a share of the footprint")
      ->capture_default_str();
  app.add_option("--policies", o.policies, "policies for the tier lever (default: every registered one)")->delimiter(',');
  app.add_option("--prefetch-distance", o.prefetch_distance,
                 "copies the prefetch lever issues early (0: on a copy stream at its own place; at most 1024)")
      ->capture_default_str();
  app.add_flag("--no-levers", o.no_levers, "measure and decide only");
  CLI::Option* run_option = app.add_option("--run", o.run, "results: only this run (default: every run)");
  app.add_option("--jobs", o.jobs, "threads for the levers' runs (0: all cores)")->capture_default_str();
  app.add_option("--json", o.json_out, "also write the diagnosis as JSON");
  app.add_flag("--counters", o.counters, "with a command: run it again under Nsight Compute for the L2 hit rate");
  app.add_option("--ncu", o.ncu, "the Nsight Compute CLI")->capture_default_str();
  app.add_option("--ncu-csv", o.ncu_csv, "read the L2 hit rate from this `ncu --csv` output instead of running ncu");
  app.add_option("--ncu-launches", o.ncu_launches,
                 "kernel launches ncu profiles (--launch-count); the default takes about a minute on an offload "
                 "program (docs/diagnose.md)")
      ->capture_default_str();
  app.add_option("--counters-timeout", o.counters_timeout_s,
                 "seconds the run under Nsight Compute may take before it is ended (0: no limit)")
      ->capture_default_str();
  app.add_option("--weight-kernels", o.weight_kernels, "regex of the kernels that read weights (ncu's -k regex:)")
      ->capture_default_str();
  app.add_option("--keep-trace", o.keep_trace, "with a command: keep the capture here (.h5)");
  app.add_option("--step-marker", o.step_marker, "with a command: NVTX mark that starts a step")->capture_default_str();
  app.add_option("--step-kernel", o.step_kernel, "with a command: a kernel-name substring that starts a step");
  // Everything after the first "--" is the program: split here, since CLI11
  // would hand its first word to the `input` positional.
  std::vector<std::string> args;
  bool after_dashes = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (!after_dashes && a == "--") {
      after_dashes = true;
      continue;
    }
    (after_dashes ? command : args).push_back(a);
  }
  if (after_dashes && command.empty()) throw InputError("no command after --");
  if (!parse_command_line(app, args)) return 0;
  if (input.empty() && command.empty()) {
    throw InputError("give an input (a capture trace or a results folder) or a command after -- (--help)");
  }
  if (!input.empty() && !command.empty()) {
    throw InputError("give an input (" + input + ") or a command after --, not both");
  }
  if (run_option->count() > 0 && o.run < 0) throw InputError("--run " + std::to_string(o.run) + ": expected a run number >= 0");
  if (run_option->count() > 0 && command.empty() && !is_results(input)) {
    throw InputError("--run applies to a results folder, not to " + input);
  }
  if (app.count("--json") > 0 && o.json_out.empty()) throw InputError("--json: an empty file name");
  if (!o.json_out.empty()) check_output_path("--json", o.json_out);
  // The levers' options, said before the health table (and before a live program runs).
  if (o.prefetch_distance < 0 || o.prefetch_distance > 1024) {
    throw InputError("--prefetch-distance " + std::to_string(o.prefetch_distance) + ": expected 0 to 1024 copies");
  }
  (void)parse_option("--tier-capacity", o.tier_capacity, CapacitySpec::parse);
  if (std::error_code ec; !o.json_out.empty() && !input.empty() && std::filesystem::equivalent(o.json_out, input, ec)) {
    throw InputError("--json " + o.json_out + ": that is the input; name another file");
  }
  if (!o.keep_trace.empty()) {
    const std::string ext = std::filesystem::path(o.keep_trace).extension().string();
    if (ext != ".h5" && ext != ".hdf5") throw InputError("--keep-trace " + o.keep_trace + ": the capture is written as .h5");
    check_output_path("--keep-trace", o.keep_trace);
  }
  for (const auto& p : o.policies) {
    if (!PolicyRegistry::instance().has(p)) {
      throw InputError("--policies: unknown policy '" + p + "' (flashsim policies lists them)");
    }
  }
  if (!o.ncu_csv.empty()) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(o.ncu_csv, ec)) throw InputError("--ncu-csv " + o.ncu_csv + ": not a file");
  }
  if (!input.empty()) {
    std::error_code ec;
    if (!std::filesystem::exists(input, ec)) throw InputError(input + ": no such file or folder");
    if (std::filesystem::path(input).filename() == "results.h5") {
      throw InputError(input + ": give the results folder (or its summary.json), not results.h5");
    }
    warn_unused(app, is_results(input));
  }
  if (o.skip < 0) throw InputError("--skip-steps: expected a count >= 0");
  if (o.prefetch_distance < 0) throw InputError("--prefetch-distance: expected a count >= 0");
  if (o.ncu_launches < 1) throw InputError("--ncu-launches: expected a count >= 1");
  if (!(o.counters_timeout_s >= 0) || o.counters_timeout_s > 7 * 24 * 3600.0) {
    throw InputError("--counters-timeout: expected seconds in [0, 604800] (0: no limit)");
  }
  if (std::error_code ec; !o.json_out.empty() && std::filesystem::is_directory(o.json_out, ec)) {
    throw InputError("--json: " + o.json_out + " is a directory, not a file");
  }
  thresholds_of(o).check();  // bad thresholds are said before any work
  std::regex weight;
  try {
    weight = std::regex(o.weight_kernels, std::regex::extended);
  } catch (const std::regex_error& e) {
    throw InputError("--weight-kernels '" + o.weight_kernels + "': not a regular expression (" + e.what() + ")");
  }
  const HardwareProfile hw =
      parse_option("--hardware", o.hardware, [](const std::string& name) { return load_hardware_profile(name); });
  std::optional<NcuL2> l2;
  if (!o.ncu_csv.empty()) {
    std::ifstream in(o.ncu_csv);
    if (!in) throw InputError("--ncu-csv " + o.ncu_csv + ": cannot read");
    l2 = read_ncu_l2(in, o.ncu_csv, weight);
  }
  json j;
  if (!command.empty() && o.counters && !l2 && capture::find_executable(o.ncu).empty()) {
    // Said now, not after the whole capture run.
    throw InputError("--ncu " + o.ncu + ": no such executable" +
                     (o.ncu.find('/') == std::string::npos ? " on PATH" : "") +
                     " (is Nsight Compute installed? it is usually /usr/local/cuda/bin/ncu)");
  }
  if (!command.empty()) {
    TempFolder tmp("flashsim-diagnose-");
    const std::string trace = o.keep_trace.empty() ? (tmp.path() / "capture.h5").string() : o.keep_trace;
    std::string why_not;
    std::unique_ptr<IPcieSampler> sampler = make_pcie_sampler(why_not);
    std::vector<std::string> args = {"capture", "--out", trace, "--step-marker", o.step_marker};
    if (!o.step_kernel.empty()) args.insert(args.end(), {"--step-kernel", o.step_kernel});
    args.push_back("--");
    args.insert(args.end(), command.begin(), command.end());
    std::vector<char*> cargv;
    for (auto& a : args) cargv.push_back(a.data());
    const Command* capture = CommandRegistry::instance().find("capture");
    if (capture == nullptr) throw Error("this flashsim has no capture command");
    if (sampler) sampler->start();
    const int rc = capture->run(static_cast<int>(cargv.size()), cargv.data());
    std::optional<PcieSummary> pcie;
    if (sampler) pcie = summarise_pcie(sampler->stop());
    if (rc != 0) return rc;
    if (o.counters && !l2) {
      NcuRunOptions ncu;
      ncu.ncu = o.ncu;
      ncu.launches = o.ncu_launches;
      ncu.timeout_s = o.counters_timeout_s;
      ncu.weight_kernels = o.weight_kernels;
      l2 = run_ncu_l2(command, ncu, tmp.path(), weight, std::cerr, isatty(STDERR_FILENO) != 0);
    }
    j = diagnose_trace(trace, o, hw, l2, pcie, why_not);
    j["command"] = command;
  } else {
    const bool results = is_results(input);
    if (o.counters) throw InputError("--counters needs a command after -- (Nsight Compute runs the program)");
    j = results ? diagnose_results(input, o, hw) : diagnose_trace(input, o, hw, l2, std::nullopt, "");
  }
  if (!o.json_out.empty()) {
    write_file_atomically(o.json_out, j.dump(1) + "\n");
    std::printf("wrote %s\n", o.json_out.c_str());
  }
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) throw Error("cannot write to standard output");
  return 0;
}

}  // namespace

FLASHSIM_REGISTER_COMMAND("diagnose", "diagnose [options] -- COMMAND ... | diagnose TRACE.h5 | diagnose RESULTS",
                          "is the fast tier the bottleneck? seed 000's health table on a program (captured live or\n"
                          "earlier) or on run results, with the levers simulated",
                          &diagnose_command);

}  // namespace flashsim::cli
