// flashsim predict TRACE: the execution model of real programs
// (sim/engine/program/program_executor.h) on a captured trace with its program
// (schema 2 or 3): the program as it ran (policy as_recorded) or with a fast
// tier, its host memory pinned or pageable, or the first bytes it streams
// kept resident (static placement, accelerate's device_map).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <filesystem>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "sim/cli/cli_parse.h"
#include "sim/cli/engine_warnings.h"
#include "sim/cli/command_registry.h"
#include "sim/cli/output_dir.h"
#include "sim/scenario/quick_scenario.h"
#include "sim/core/errors.h"
#include "sim/core/unit_parse.h"
#include "sim/engine/program/program_engine.h"
#include "sim/policy/i_eviction_policy.h"
#include "sim/scenario/hardware_loader.h"
#include "sim/scenario/scenario.h"
#include "sim/results/results_writer.h"
#include "sim/run/scenario_runner.h"
#include "sim/scenario/scenario_document.h"
#include "traces/atomic_file.h"
#include "traces/trace_formats.h"

namespace flashsim::cli {
namespace {

// The `program` component's figures (sim/engine/program/program_engine.h).
struct ProgramFigures {
  const ComponentStats& c;
  double number(const std::string& name) const { return program_number(c, name); }
  const std::string& text(const std::string& name) const { return program_text(c, name); }
  const std::vector<double>& series(const std::string& name) const { return program_series(c, name); }
};

// The terminal printer of a program run.
void print_prediction(const RunResult& run) {
  const ProgramFigures f{run.result.components};
  const auto count = [&](const std::string& name) { return static_cast<unsigned long long>(f.number(name)); };
  const std::size_t skip = static_cast<std::size_t>(f.number("skip_steps"));
  std::printf("program: %llu ops, %llu thread(s), %llu stream(s); step rule %s\n", count("ops"), count("threads"),
              count("streams"), f.text("step_rule").c_str());
  std::printf("sources: pageable H2D %s; pageable D2H %s; fresh-page D2H %s (fresh pages: %s); capture cost %s\n",
              f.text("pageable_h2d_source").c_str(), f.text("pageable_d2h_source").c_str(),
              f.text("pageable_d2h_fresh_source").c_str(), f.text("fresh_pages").c_str(), f.text("capture_cost").c_str());
  const std::vector<double>& steps = f.series("step_ns");
  const std::vector<double>& recorded = f.series("recorded_step_ns");
  std::printf("per step (ms, captured / predicted):");
  for (std::size_t i = 0; i < steps.size(); ++i) {
    std::printf("%s%zu: %.2f/%.2f", i % 6 == 0 ? "\n  " : "  ", i + skip, recorded[i] / 1e6, steps[i] / 1e6);
  }
  const std::vector<double>& first = f.series("regime_first_steps");
  const std::vector<double>& end = f.series("regime_end_steps");
  std::printf("\nregimes (%s):\n", f.text("regime_rule").c_str());
  for (std::size_t r = 0; r < first.size(); ++r) {
    std::printf("  %zu: steps %.0f..%.0f, median captured %.3f ms, predicted %.3f ms%s\n", r, first[r], end[r] - 1,
                f.series("regime_recorded_median_step_ns")[r] / 1e6, f.series("regime_median_step_ns")[r] / 1e6,
                r + 1 == first.size() ? " (steady)" : "");
  }
  std::printf("steps: %zu measured after skipping %zu; regime %s: steps %llu..%llu\n", steps.size(), skip,
              f.text("regime").c_str(), count("regime_first_step"), count("regime_end_step") - 1);
  std::printf("predicted time per step: median %.3f ms (as captured: %.3f ms)\n", f.number("median_step_ns") / 1e6,
              f.number("recorded_median_step_ns") / 1e6);
  std::printf("copies: %llu (%llu removed by the fast tier, %.3f GB not copied); H2D %.3f GB, D2H %.3f GB; "
              "host blocked %.3f ms\n",
              count("copies"), count("copies_removed"), f.number("bytes_removed") / 1e9, f.number("h2d_bytes") / 1e9,
              f.number("d2h_bytes") / 1e9, f.number("host_blocked_ns") / 1e6);
  for (const char* d : {"h2d", "d2h"}) {
    for (const char* m : {"pinned", "pageable"}) {
      const std::string k = std::string(d) + "_" + m;
      if (count(k + "_copies") == 0) continue;
      std::printf("  %s %s copies: %llu, model %.3f ms, recorded GPU time %.3f ms\n", d[0] == 'h' ? "H2D" : "D2H", m,
                  count(k + "_copies"), f.number(k + "_model_ns") / 1e6, f.number(k + "_recorded_ns") / 1e6);
    }
  }
}

// An error of the scenario run in predict's own words: the runner's prefix
// (its generated scenario, the policy) left out, engine.KEY named as --KEY.
std::string as_options(std::string message, const QuickScenario& q) {
  for (const std::string& prefix : {"flashsim predict, policy " + q.policies.front() + ": ", std::string("flashsim predict: ")}) {
    if (message.rfind(prefix, 0) == 0) message.erase(0, prefix.size());
  }
  for (const auto& param : q.engine_params) {
    const std::string key = "engine." + param.first;
    std::string option = "--" + param.first;
    std::replace(option.begin(), option.end(), '_', '-');
    for (std::size_t at = message.find(key); at != std::string::npos; at = message.find(key, at + option.size())) {
      message.replace(at, key.size(), option);
    }
  }
  return message;
}

int predict_command(int argc, char** argv) {
  CLI::App app("Predicts a captured program's time per step with the execution model (host threads, streams,\n"
               "events, both copy directions, pageable staging): as it ran (--policy as_recorded) or with a\n"
               "fast tier, pinned host memory, or the first bytes it streams kept resident (docs/capture.md).",
               "flashsim predict");
  std::string trace, hardware = "h200-calibrated", policy = "as_recorded", capacity = "0", host_memory = "as_recorded",
              host_time = "calibrated", static_placement = "0", json_out, capture_gap = "measured",
              copy_curves = "capture", fresh_pages = "per_copy", regime = "steady", format;
  long long skip = 0;
  app.add_option("trace", trace,
                 "a trace with a program: flashsim capture's .h5 (schema 2 or 3), or its raw folder (--keep-raw)")
      ->required();
  app.add_option("-f,--format", format, "the trace's format (default: from its name; flashsim trace formats)");
  app.add_option("--hardware", hardware, "hardware profile with an execution: section")->capture_default_str();
  app.add_option("--policy", policy, "as_recorded (every copy the program made) or a fast-tier policy")
      ->capture_default_str();
  app.add_option("--capacity", capacity, "fast-tier capacity for --policy (bytes, e.g. 4GiB, or a share of the footprint, 50%)")->capture_default_str();
  app.add_option("--static-placement,--resident-first", static_placement,
                 "keep resident the streamed blocks (read more than once) first read, in order, up to this many bytes\n"
                 "(added to --capacity; --resident-first is its old name)")
      ->capture_default_str();
  app.add_option("--host-memory", host_memory, "as_recorded | pinned | pageable: the program's host buffers")
      ->capture_default_str()
      ->check(CLI::IsMember({"as_recorded", "pinned", "pageable"}));
  app.add_option("--host-time", host_time,
                 "calibrated (the profile's API costs for launches, copies, events) or recorded (the capture's)")
      ->capture_default_str()
      ->check(CLI::IsMember({"calibrated", "recorded"}));
  app.add_option("--capture-gap", capture_gap,
                 "the capture's cost taken off the recorded gaps between calls: measured (the trace's probe figures,\n"
                 "schema 3; none in older traces) or ns per gap")
      ->capture_default_str();
  app.add_option("--copy-curves", copy_curves,
                 "pageable copy time: capture (the curves the capture fitted from its own copies, schema 3; else\n"
                 "the profile's), fit (fitted now from the trace's copies: older traces too) or profile (--hardware's)")
      ->capture_default_str()
      ->check(CLI::IsMember({"capture", "fit", "profile"}));
  app.add_option("--fresh-pages", fresh_pages,
                 "pageable D2H copies into host pages never touched (first-touch faults): per-copy (as the capture\n"
                 "recorded each copy's destination, schema 3; per-copy is its old spelling), all, none")
      ->capture_default_str()
      ->check(CLI::IsMember({"per_copy", "per-copy", "all", "none"}));
  app.add_option("--regime", regime,
                 "the steps the median is of: steady (the last regime), first, all, or a regime number\n"
                 "(regimes: one per flashsim.repeat mark, else change points over the captured step times)")
      ->capture_default_str();
  bool recorded_copies = false;
  bool d2h_fresh = false;
  app.add_flag("--d2h-fresh", d2h_fresh, "the same as --fresh-pages all (kept for older scripts)");
  app.add_flag("--recorded-copy-time", recorded_copies,
               "copies take their recorded GPU time (attribution: how much error is the copy model's)");
  app.add_option("--skip-steps", skip, "steps left out of the median (warm-up)")->capture_default_str();
  app.add_option("--json", json_out,
                 "also write the prediction as JSON: the run's summary.json (runs[0]: the metrics, the `program`\n"
                 "component's numbers, texts and per-step series)");
  if (!parse_command_line(app, argc, argv)) return 0;
  if (app.count("--json") > 0 && json_out.empty()) throw InputError("--json: an empty file name");
  if (!json_out.empty()) check_output_path("--json", json_out);  // said before the prediction, not after
  if (std::error_code ec; !json_out.empty() && std::filesystem::equivalent(json_out, trace, ec)) {
    throw InputError("--json " + json_out + ": that is the trace; name another file");
  }
  if (skip < 0) throw InputError("--skip-steps: expected a count >= 0");
  (void)parse_option("--capture-gap (measured, or a duration)", capture_gap, parse_capture_gap);
  const ByteCount resident = parse_option("--static-placement", static_placement, parse_bytes);
  if (fresh_pages == "per-copy") fresh_pages = "per_copy";  // the engine parameter's spelling
  if (d2h_fresh && fresh_pages != "per_copy" && fresh_pages != "all") {
    throw InputError("--d2h-fresh (= --fresh-pages all) contradicts --fresh-pages " + fresh_pages);
  }
  if (d2h_fresh) fresh_pages = "all";
  if (policy != kAsRecordedPolicy && capacity == "0") {
    throw InputError("--policy " + policy + " needs --capacity > 0" +
                     (resident > 0 ? " (the tier beside the resident blocks; --policy as_recorded --static-placement "
                                     "keeps the blocks alone)"
                                   : ""));
  }
  if (policy == kAsRecordedPolicy && capacity != "0") {
    std::cerr << "flashsim predict: warning: --capacity is ignored with --policy as_recorded (no fast tier)\n";
  }
  // Each option is checked as itself before the scenario it becomes would name its key.
  if (!format.empty() && !TraceFormatRegistry::instance().has(format)) {
    throw InputError("--format " + format + ": unknown trace format (flashsim trace formats lists them)");
  }
  (void)parse_option("--hardware", hardware, [](const std::string& name) { return load_hardware_profile(name); });
  if (policy != kAsRecordedPolicy && !PolicyRegistry::instance().has(policy)) {
    throw InputError("--policy " + policy + ": unknown policy (as_recorded, or one `flashsim policies` lists)");
  }
  if (capacity != "0") (void)parse_option("--capacity", capacity, CapacitySpec::parse);
  (void)parse_option("--regime", regime, check_regime);
  {  // the trace's own words for a trace without a program, before a scenario names it
    const TraceMeta meta = open_trace(trace, format)->meta();
    if (!meta.program || meta.program->empty()) {
      throw InputError(trace + ": the trace " + no_program_reason(meta));
    }
  }

  // The prediction is a scenario run: this trace on engine program with the options as its parameters.
  QuickScenario q;
  q.trace = trace;
  q.trace_option = "";  // positional
  q.format = format;
  q.engine = "program";
  q.hardware = hardware;
  q.policies = {policy};
  if (policy != kAsRecordedPolicy) q.capacities = {capacity};
  q.description = "flashsim predict " + trace;
  q.engine_params = {{"host_memory", host_memory},
                     {"host_time", host_time},
                     {"capture_gap", capture_gap},
                     {"copy_curves", copy_curves},
                     {"fresh_pages", fresh_pages},
                     {"recorded_copy_time", recorded_copies ? "true" : "false"},
                     {"static_placement", static_placement},
                     {"skip_steps", std::to_string(skip)},
                     {"regime", regime}};
  const ScenarioDocument document =
      ScenarioDocument::from_text(quick_scenario_yaml(q), "flashsim predict", std::filesystem::current_path());
  RunnerOptions runner;
  runner.jobs = 1;
  ScenarioResults results;
  try {
    results = run_scenario(document, runner);
  } catch (const InputError& e) {
    throw InputError(trace + ": " + as_options(e.what(), q));
  }
  const RunResult& run = results.runs.at(0);
  print_engine_warnings(std::cerr, "flashsim predict", results);
  print_prediction(run);
  if (!json_out.empty()) write_file_atomically(json_out, summary_json_text(results));
  return 0;
}

}  // namespace

FLASHSIM_REGISTER_COMMAND("predict", "predict TRACE [--policy P --capacity C] [--host-memory M] ...",
                          "predict a captured program's time per step with the execution model (streams, events,\n"
                          "host time, pageable copies, both directions) as it ran or under what-ifs",
                          &predict_command);

}  // namespace flashsim::cli
