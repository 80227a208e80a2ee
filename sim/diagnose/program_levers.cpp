#include "sim/diagnose/program_levers.h"

#include <filesystem>
#include <utility>

#include "sim/core/errors.h"
#include "sim/diagnose/registered_policies.h"
#include "sim/engine/program/program_engine.h"
#include "sim/run/scenario_runner.h"
#include "sim/scenario/quick_scenario.h"
#include "sim/scenario/scenario_document.h"

namespace flashsim::diagnose {
ProgramLevers simulate_program_levers(const std::string& trace, const TraceMeta& meta, const LeverOptions& options) {
  if (!meta.program || meta.program->empty()) throw InputError(trace + ": the trace " + no_program_reason(meta));
  ProgramLevers out;
  const auto traces = std::make_shared<TraceProviderCache>();  // the capture read once for every lever
  // One scenario a lever: the capture on engine program, every step after the skip (regime all).
  // Each lever's scenario is a point of out.runs labelled lever=NAME, so that its runs tell which lever they are.
  auto run = [&](const std::string& lever, std::vector<std::string> policies,
                 std::vector<std::pair<std::string, std::string>> params) {
    QuickScenario q;
    q.trace = trace;
    q.trace_option = "";  // diagnose TRACE: positional
    q.format = options.format;
    q.engine = "program";
    q.hardware = options.hardware;
    q.description = "flashsim diagnose's levers on " + trace;
    q.policies = std::move(policies);
    if (q.policies.front() != kAsRecordedPolicy) q.capacities = {options.tier_capacity};
    q.engine_params = {{"skip_steps", std::to_string(options.skip_steps)}, {"regime", "all"}};
    q.engine_params.insert(q.engine_params.end(), params.begin(), params.end());
    RunnerOptions runner;
    runner.jobs = options.jobs;
    runner.trace_cache = traces;
    ScenarioResults r = run_scenario(
        ScenarioDocument::from_text(quick_scenario_yaml(q), "flashsim diagnose", std::filesystem::current_path()),
        runner);
    const std::size_t point = out.runs.point_labels.size();
    if (point == 0) {
      out.runs = r;
      out.runs.runs.clear();
      out.runs.point_labels.clear();
      out.runs.resolved_texts.clear();
    }
    out.runs.point_labels.push_back("lever=" + lever);
    out.runs.resolved_texts.push_back(r.resolved_texts.empty() ? std::string() : r.resolved_texts.front());
    for (RunResult& x : r.runs) {
      x.index = out.runs.runs.size();
      x.point_index = point;
      // The tier scenario's runs are one lever each: lever=tier:POLICY, as LeverResult::name.
      x.point_label = lever == "tier" ? "lever=tier:" + x.policy : out.runs.point_labels.back();
      out.runs.runs.push_back(std::move(x));
    }
    return std::vector<RunResult>(out.runs.runs.end() - static_cast<std::ptrdiff_t>(r.runs.size()), out.runs.runs.end());
  };
  const RunResult as_captured = run("as_captured", {kAsRecordedPolicy}, {}).front();
  out.recorded_median_step_ms = program_number(as_captured.result.components, "recorded_median_step_ns") / 1e6;
  out.model_median_step_ms = program_number(as_captured.result.components, "median_step_ns") / 1e6;
  out.model_error = (out.model_median_step_ms - out.recorded_median_step_ms) / out.recorded_median_step_ms;
  auto add = [&](std::string name, std::string what, const RunResult& r, bool offline = false) {
    const double ms = program_number(r.result.components, "median_step_ns") / 1e6;
    out.levers.push_back({std::move(name), std::move(what), ms,
                          (ms - out.model_median_step_ms) / out.model_median_step_ms, offline, r.index});
    return ms;
  };
  add("as_captured", "the program as captured (the model's baseline)", as_captured);
  add("pinned", "host buffers pinned (cudaHostRegister / pin_memory): DMA without the driver's staging",
      run("pinned", {kAsRecordedPolicy}, {{"host_memory", "pinned"}}).front());
  add("prefetch",
      options.prefetch_distance == 0
          ? "pinned, and every H2D copy on a copy stream of its own at its own place (no longer queued behind kernels)"
          : "pinned, and every H2D copy on a copy stream issued " + std::to_string(options.prefetch_distance) +
                " copy(ies) early (double buffering)",
      run("prefetch", {kAsRecordedPolicy},
          {{"host_memory", "pinned"}, {"prefetch_distance", std::to_string(options.prefetch_distance)}})
          .front());
  if (options.tier_capacity.empty()) return out;

  const std::vector<std::string> names = options.policies.empty() ? registered_policy_names(&meta) : options.policies;
  const std::vector<RunResult> tiers = run("tier", names, {});
  out.tier_capacity_bytes = tiers.front().capacity_bytes;
  const RunResult resident =
      run("static_placement", {kAsRecordedPolicy}, {{"static_placement", std::to_string(out.tier_capacity_bytes)}}).front();
  out.static_placement_bytes = static_cast<ByteCount>(program_number(resident.result.components, "static_placement_bytes"));
  if (out.static_placement_bytes > 0) {
    add("static_placement", "the first " + std::to_string(out.static_placement_bytes) +
                              " B of streamed blocks kept on the GPU (static placement: accelerate device_map, "
                              "llama.cpp -ngl)",
        resident);
  }
  double best = 0;
  for (const RunResult& r : tiers) {
    const std::string& name = r.policy;
    const bool offline = is_offline_policy(name);
    const double ms = add("tier:" + name,
                          "a fast tier of " + std::to_string(out.tier_capacity_bytes) + " B under " + name +
                              (offline ? " (offline: knows the future; a reference)" : ""),
                          r, offline);
    if (!offline && ms < out.model_median_step_ms && (out.best_policy.empty() || ms < best)) {
      best = ms;
      out.best_policy = name;
    }
  }
  return out;
}

}  // namespace flashsim::diagnose
