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
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/cli/cli_parse.h"
#include "sim/cli/command_registry.h"
#include "sim/cli/output_dir.h"
#include "sim/core/errors.h"
#include "sim/core/unit_parse.h"
#include "sim/engine/program/program_engine.h"
#include "sim/engine/program/program_executor.h"
#include "sim/engine/program/static_placement.h"
#include "sim/engine/program/step_regimes.h"
#include "sim/scenario/hardware_loader.h"
#include "sim/scenario/scenario.h"
#include "traces/atomic_file.h"
#include "traces/stats/footprint.h"
#include "traces/trace_formats.h"

namespace flashsim::cli {
namespace {

int predict_command(int argc, char** argv) {
  CLI::App app("Predicts a captured program's time per step with the execution model (host threads, streams,\n"
               "events, both copy directions, pageable staging): as it ran (--policy as_recorded) or with a\n"
               "fast tier, pinned host memory, or the first bytes it streams kept resident (docs/capture.md).",
               "flashsim predict");
  std::string trace, hardware = "h200-calibrated", policy = "as_recorded", capacity = "0", host_memory = "as_recorded",
              host_time = "calibrated", resident_first = "0", json_out, capture_gap = "measured",
              copy_curves = "capture", fresh_pages = "per-copy", regime = "steady", format;
  long long skip = 0;
  app.add_option("trace", trace,
                 "a trace with a program: flashsim capture's .h5 (schema 2 or 3), or its raw folder (--keep-raw)")
      ->required();
  app.add_option("-f,--format", format, "the trace's format (default: from its name; flashsim trace formats)");
  app.add_option("--hardware", hardware, "hardware profile with an execution: section")->capture_default_str();
  app.add_option("--policy", policy, "as_recorded (every copy the program made) or a fast-tier policy")
      ->capture_default_str();
  app.add_option("--capacity", capacity, "fast-tier capacity for --policy (bytes, e.g. 4GiB, or a share of the footprint, 50%)")->capture_default_str();
  app.add_option("--resident-first", resident_first,
                 "keep resident the streamed blocks (read more than once) first read, in order, up to this many bytes\n(static placement; added to --capacity)")
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
                 "recorded each copy's destination, schema 3), all, none")
      ->capture_default_str()
      ->check(CLI::IsMember({"per-copy", "all", "none"}));
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
  app.add_option("--json", json_out, "also write the prediction as JSON");
  if (!parse_command_line(app, argc, argv)) return 0;
  if (!json_out.empty()) check_output_path("--json", json_out);  // said before the prediction, not after
  if (skip < 0) throw InputError("--skip-steps: expected a count >= 0");

  const HardwareProfile hw = load_hardware_profile(hardware);
  if (!hw.execution.calibrated) {
    std::cerr << "flashsim predict: warning: profile '" << hw.name
              << "' has no execution: section; API costs are 0 and copies use the host link\n";
  }
  auto source = open_trace(trace, format);
  const TraceMeta meta = source->meta();
  if (!meta.program || meta.program->empty()) {
    const bool imported = meta.source.rfind("kineto", 0) == 0 || meta.source.rfind("nsys", 0) == 0;
    throw InputError(trace + ": the trace has no program (schema_version " + std::to_string(meta.schema_version) +
                     "): " +
                     (imported ? "import it again with the option program: on"
                               : "capture the program with `flashsim capture` (raw format 2) to predict it"));
  }
  const std::vector<AccessRecord> records = read_all_records(*source);

  ExecutorOptions o;
  o.host_time = host_time == "recorded" ? HostTime::recorded : HostTime::calibrated;
  o.host_memory = host_memory_mode(host_memory);
  o.capture_gap_ns = capture_gap == "measured"
                         ? kMeasuredCaptureGap
                         : static_cast<Nanoseconds>(parse_option("--capture-gap (measured, or a duration)",
                                                                 capture_gap, parse_duration_ns));
  o.recorded_copy_time = recorded_copies;
  o.copy_curves = copy_curves == "profile" ? CopyCurveSource::profile
                  : copy_curves == "fit"   ? CopyCurveSource::fit
                                           : CopyCurveSource::capture;
  if (d2h_fresh && fresh_pages != "per-copy" && fresh_pages != "all") {
    throw InputError("--d2h-fresh (= --fresh-pages all) contradicts --fresh-pages " + fresh_pages);
  }
  if (d2h_fresh) fresh_pages = "all";
  o.fresh_pages = fresh_pages == "all" ? FreshPages::all : fresh_pages == "none" ? FreshPages::none : FreshPages::per_copy;
  const ByteCount resident = parse_option("--resident-first", resident_first, parse_bytes);
  o.as_recorded = policy == kAsRecordedPolicy && resident == 0;
  if (!o.as_recorded) {
    o.cache.eviction.impl = policy == kAsRecordedPolicy ? "lru" : policy;
    if (capacity != "0") {
      // The scenario's rule (cache.capacity): bytes, or a share of the footprint.
      const CapacitySpec spec = parse_option("--capacity", capacity, CapacitySpec::parse);
      o.cache.capacity_bytes = spec.is_fraction ? spec.resolve(measure_footprint(*source).bytes) : spec.bytes;
    }
    if (resident > 0) {
      const StaticPlacement placed = first_streamed_blocks(records, resident);
      o.cache.pinned.blocks = placed.blocks;
      o.cache.capacity_bytes += placed.bytes;
    }
    if (o.cache.capacity_bytes == 0) throw InputError("--policy " + policy + " needs --capacity > 0");
  }
  if (o.as_recorded && capacity != "0") {
    std::cerr << "flashsim predict: warning: --capacity is ignored with --policy as_recorded (no fast tier)\n";
  }
  const ProgramPrediction p = run_program(meta, records, hw, o);
  for (const std::string& w : p.sources.warnings) std::cerr << "flashsim predict: warning: " << w << "\n";
  if (p.step_durations(static_cast<std::size_t>(skip)).empty()) {
    throw InputError(trace + ": " + std::to_string(p.step_start_ns.size()) + " step marks (rule '" +
                     meta.program->step_rule + "'); --skip-steps " + std::to_string(skip) +
                     " leaves no step to measure");
  }
  const std::size_t skip_n = static_cast<std::size_t>(skip);
  const auto steps = p.step_durations(skip_n);
  const auto recorded = p.step_durations(skip_n, true);
  const std::vector<Nanoseconds> starts(p.recorded_step_ns.begin() + static_cast<std::ptrdiff_t>(skip_n),
                                        p.recorded_step_ns.end());
  const RegimeSplit split = find_regimes(recorded, starts, meta.program->repeat_marks_ns);
  const StepRegime chosen =
      choose_regime(split, steps.size(), regime, skip_n > 0 ? "--regime (after --skip-steps)" : "--regime");
  const double median_ns = regime_median_ns(steps, chosen), recorded_median_ns = regime_median_ns(recorded, chosen);
  std::printf("program: %zu ops, %u thread(s), %u stream(s); step rule %s\n", meta.program->ops.size(),
              meta.program->thread_count, meta.program->stream_count, meta.program->step_rule.c_str());
  std::printf("sources: pageable H2D %s; pageable D2H %s; fresh-page D2H %s (fresh pages: %s); capture cost %s\n",
              p.sources.pageable_h2d.c_str(), p.sources.pageable_d2h.c_str(), p.sources.pageable_d2h_fresh.c_str(),
              p.sources.fresh_pages.c_str(), p.sources.capture_cost.c_str());
  std::printf("per step (ms, captured / predicted):");
  for (std::size_t i = 0; i < steps.size(); ++i) {
    std::printf("%s%zu: %.2f/%.2f", i % 6 == 0 ? "\n  " : "  ", i + skip_n, recorded[i] / 1e6, steps[i] / 1e6);
  }
  std::printf("\nregimes (%s):\n", split.rule.c_str());
  for (std::size_t r = 0; r < split.regimes.size(); ++r) {
    const StepRegime& g = split.regimes[r];
    std::printf("  %zu: steps %zu..%zu, median captured %.3f ms, predicted %.3f ms%s\n", r, g.first + skip_n,
                g.end - 1 + skip_n, regime_median_ns(recorded, g) / 1e6, regime_median_ns(steps, g) / 1e6,
                r + 1 == split.regimes.size() ? " (steady)" : "");
  }
  std::printf("steps: %zu measured after skipping %lld; regime %s: steps %zu..%zu\n", steps.size(), skip,
              regime.c_str(), chosen.first + skip_n, chosen.end - 1 + skip_n);
  std::printf("predicted time per step: median %.3f ms (as captured: %.3f ms)\n", median_ns / 1e6,
              recorded_median_ns / 1e6);
  std::printf("copies: %llu (%llu removed by the fast tier, %.3f GB not copied); H2D %.3f GB, D2H %.3f GB; "
              "host blocked %.3f ms\n",
              static_cast<unsigned long long>(p.copies), static_cast<unsigned long long>(p.copies_removed),
              static_cast<double>(p.bytes_removed) / 1e9, static_cast<double>(p.h2d_bytes) / 1e9,
              static_cast<double>(p.d2h_bytes) / 1e9, static_cast<double>(p.host_blocked_ns) / 1e6);
  for (int d = 0; d < 2; ++d) {
    for (int m = 0; m < 2; ++m) {
      if (p.copy_count[d][m] == 0) continue;
      std::printf("  %s %s copies: %llu, model %.3f ms, recorded GPU time %.3f ms\n", d == 0 ? "H2D" : "D2H",
                  m == 0 ? "pinned" : "pageable", static_cast<unsigned long long>(p.copy_count[d][m]),
                  static_cast<double>(p.copy_model_ns[d][m]) / 1e6, static_cast<double>(p.copy_recorded_ns[d][m]) / 1e6);
    }
  }
  if (!json_out.empty()) {
    nlohmann::json j;
    j["trace"] = trace;
    j["hardware"] = hw.name;
    j["policy"] = policy;
    j["capacity_bytes"] = o.cache.capacity_bytes;
    j["host_memory"] = host_memory;
    j["host_time"] = host_time;
    j["skip_steps"] = skip;
    j["regime"] = regime;
    j["regime_steps"] = {chosen.first + skip_n, chosen.end + skip_n};
    j["regime_rule"] = split.rule;
    nlohmann::json regimes = nlohmann::json::array();
    for (const StepRegime& g : split.regimes) {
      regimes.push_back({{"first_step", g.first + skip_n},
                         {"end_step", g.end + skip_n},
                         {"median_step_ns", regime_median_ns(steps, g)},
                         {"recorded_median_step_ns", regime_median_ns(recorded, g)}});
    }
    j["regimes"] = regimes;
    j["sources"] = {{"pageable_h2d", p.sources.pageable_h2d},
                    {"pageable_d2h", p.sources.pageable_d2h},
                    {"pageable_d2h_fresh", p.sources.pageable_d2h_fresh},
                    {"fresh_pages", p.sources.fresh_pages},
                    {"capture_cost", p.sources.capture_cost}};
    j["step_ns"] = steps;
    j["recorded_step_ns"] = recorded;
    j["median_step_ns"] = median_ns;
    j["recorded_median_step_ns"] = recorded_median_ns;
    j["copies"] = p.copies;
    j["copies_removed"] = p.copies_removed;
    j["bytes_removed"] = p.bytes_removed;
    j["h2d_bytes"] = p.h2d_bytes;
    j["d2h_bytes"] = p.d2h_bytes;
    j["host_blocked_ns"] = p.host_blocked_ns;
    j["hits"] = p.counters.hits;
    j["misses"] = p.counters.misses;
    write_file_atomically(json_out, j.dump(1) + "\n");
  }
  return 0;
}

}  // namespace

FLASHSIM_REGISTER_COMMAND("predict", "predict TRACE [--policy P --capacity C] [--host-memory M] ...",
                          "predict a captured program's time per step with the execution model (streams, events,\n"
                          "host time, pageable copies, both directions) as it ran or under what-ifs",
                          &predict_command);

}  // namespace flashsim::cli
