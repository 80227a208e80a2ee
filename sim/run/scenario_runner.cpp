#include "sim/run/scenario_runner.h"

#include "sim/run/progress.h"
#include "sim/run/run_limits.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <tuple>
#include <thread>

#include "sim/run/trace_provider.h"
#include "traces/granularity.h"

namespace flashsim {

EngineResult run_with_engine(ITraceSource& trace, const EngineConfig& config, const ComponentChoice& engine,
                             const EngineContext& context) {
  return run_registered_engine(trace, config, engine, context);
}

std::vector<Scenario> resolve_points(const ScenarioDocument& document, std::ostream* progress, bool terminal) {
  const std::vector<SweepPoint> points = document.points();
  // Resolving is milliseconds a point: only a large sweep is worth a line.
  ProgressReporter reporter(points.size() >= 1000 ? progress : nullptr, terminal, "resolving sweep points",
                            points.size());
  std::vector<Scenario> out;
  out.reserve(points.size());
  for (const SweepPoint& p : points) {
    out.push_back(document.resolve(p));
    reporter.done(p.label());
  }
  // A capacity no point reads (every policy as_recorded everywhere) is refused, not ignored.
  if (!out.empty() && std::all_of(out.begin(), out.end(), [](const Scenario& s) { return s.cache.unused_capacity; })) {
    throw_at(*out.front().cache.unused_capacity, "cache.capacity",
             "every policy is as_recorded (the program's own copies: no fast tier), so no run reads the capacity; "
             "leave it out, or add a policy that keeps a fast tier (e.g. policies: [as_recorded, lru])");
  }
  return out;
}

namespace {

struct Task {
  std::size_t point = 0;
  std::size_t policy = 0;
};

// The engine's own checks of its parameters against the trace (skip_steps of
// a capture), every chosen point before the first run: a sweep fails at
// once, not midway. A source is opened once per trace (opening a streamed
// one starts its reader) and closed before the runs.
void check_engine_parameters(const std::vector<Scenario>& scenarios, const std::vector<SweepPoint>& points,
                             const std::vector<std::size_t>& chosen, const std::vector<TraceProvider*>& provider_of) {
  std::map<const TraceProvider*, std::unique_ptr<ITraceSource>> opened;
  for (const std::size_t p : chosen) {
    const Scenario& s = scenarios[p];
    const EngineRegistry::Entry& entry = EngineRegistry::instance().find(s.engine.impl);
    if (!entry.traits.check_trace) continue;
    try {
      std::unique_ptr<ITraceSource>& trace = opened[provider_of[p]];
      if (!trace) trace = provider_of[p]->open();
      entry.traits.check_trace(trace->meta(), ParamValues::resolve("engine " + s.engine.impl, entry.params, s.engine.params));
    } catch (const InputError& e) {
      const std::string label = points[p].label();
      throw InputError(s.source + (label.empty() ? "" : " [point " + label + "]") + ": " + e.what());
    }
  }
}

}  // namespace

ScenarioResults run_scenario(const ScenarioDocument& document, const RunnerOptions& options) {
  check_sweep_memory(document, options.max_memory_bytes);
  return run_scenario(document, resolve_points(document, options.progress, options.progress_terminal), options);
}

ScenarioResults run_scenario(const ScenarioDocument& document, std::vector<Scenario> scenarios,
                             const RunnerOptions& options) {
  const auto wall_start = std::chrono::steady_clock::now();
  const std::vector<SweepPoint> points = document.points();
  for (Scenario& s : scenarios) s.workload.generator_context.memory_limit_bytes = options.max_memory_bytes;

  ScenarioResults results;
  results.scenario_name = scenarios.front().name;
  results.scenario_source = scenarios.front().source;
  results.input_text = document.input_text();
  results.tool_version = tool_version_string();
  for (std::size_t p = 0; p < scenarios.size(); ++p) {
    results.resolved_texts.push_back(to_yaml_text(scenarios[p].resolved));
    results.point_labels.push_back(points[p].label());
  }

  std::vector<std::size_t> chosen = options.points;
  if (chosen.empty()) {
    for (std::size_t p = 0; p < scenarios.size(); ++p) chosen.push_back(p);
  }
  for (std::size_t i = 0; i < chosen.size(); ++i) {
    if (chosen[i] >= scenarios.size() || (i > 0 && chosen[i] <= chosen[i - 1])) {
      throw Error("run_scenario: points must be ascending sweep point numbers below " + std::to_string(scenarios.size()));
    }
  }
  // Run numbers of the whole sweep: point-major, then policy.
  std::vector<std::size_t> first_run(scenarios.size() + 1, 0);
  for (std::size_t p = 0; p < scenarios.size(); ++p) first_run[p + 1] = first_run[p] + scenarios[p].policies.size();

  // One provider per distinct trace; footprints before any run (needed for "50%").
  std::map<std::string, std::shared_ptr<TraceProvider>> providers;
  std::vector<TraceProvider*> provider_of(scenarios.size());
  std::vector<ByteCount> capacity(scenarios.size()), footprint(scenarios.size());
  for (const std::size_t p : chosen) {
    const std::string key = trace_key(scenarios[p].workload);
    auto& slot = providers[key];
    if (!slot) {
      slot = options.trace_cache ? options.trace_cache->get(scenarios[p].workload, options.memory_limit_records)
                                 : std::make_shared<TraceProvider>(scenarios[p].workload, options.memory_limit_records);
    }
    provider_of[p] = slot.get();
    if (scenarios[p].cache.capacity.is_fraction) {
      // With sizes ignored every block is one unit: a share of the blocks.
      footprint[p] = scenarios[p].cache.ignore_sizes ? slot->footprint().blocks : slot->footprint().bytes;
      capacity[p] = scenarios[p].cache.capacity.resolve(footprint[p]);
      if (capacity[p] == 0) {
        const bool blocks = scenarios[p].cache.ignore_sizes;
        throw InputError(scenarios[p].source + ": key 'cache.capacity': " + scenarios[p].cache.capacity.text +
                         " of the trace's " + (blocks ? "distinct blocks (" : "footprint (") +
                         std::to_string(footprint[p]) + (blocks ? ") is 0 blocks" : " B) is 0 bytes"));
      }
    } else {
      capacity[p] = scenarios[p].cache.capacity.bytes;
    }
  }

  std::vector<Task> tasks;
  std::vector<std::size_t> first_task(scenarios.size(), 0);
  for (const std::size_t p : chosen) {
    first_task[p] = tasks.size();
    for (std::size_t k = 0; k < scenarios[p].policies.size(); ++k) tasks.push_back(Task{p, k});
  }
  // Policies of each point still running; the last one to finish reports the point.
  std::vector<std::atomic<std::size_t>> unfinished(scenarios.size());
  for (const std::size_t p : chosen) unfinished[p].store(scenarios[p].policies.size());
  std::mutex point_done_mutex;
  results.runs.resize(tasks.size());
  std::vector<std::exception_ptr> errors(tasks.size());

  const EngineFunction engine = options.engine ? options.engine : EngineFunction(run_with_engine);
  unsigned jobs = options.jobs ? options.jobs : std::max(1u, std::thread::hardware_concurrency());
  jobs = static_cast<unsigned>(std::min<std::size_t>(jobs, tasks.size()));
  for (const std::size_t p : chosen) {  // one device: its runs one after another, in run order
    if (scenarios[p].engine_traits().capabilities.needs_gpu) jobs = 1;
  }
  // What can be known before any run is checked before any run.
  // Each check is a pass over the trace: once per trace and what it reads.
  std::set<std::tuple<const TraceProvider*, ByteCount, std::vector<BlockId>, Nanoseconds, IssueMode, std::string>> checked;
  for (const std::size_t p : chosen) {
    const Scenario& s = scenarios[p];
    if (!checked.emplace(provider_of[p], s.cache.granularity_bytes, s.cache.pinned.blocks, s.outputs.window_ns,
                         s.workload.issue, s.engine.impl).second) {
      continue;
    }
    check_granularity_memory(s, *provider_of[p], jobs, options.max_memory_bytes);
    check_window_count(s, *provider_of[p]);
    check_pinned_blocks(s, *provider_of[p]);
  }
  // The engine's own checks of its parameters against the trace (skip_steps of
  // a capture), every point before the first run: a sweep fails at once, not midway.
  check_engine_parameters(scenarios, points, chosen, provider_of);
  if (options.progress != nullptr && !tasks.empty()) {
    // At once: the first run may take minutes, and a log should say what is under way.
    *options.progress << "running " << tasks.size() << " run" << (tasks.size() == 1 ? "" : "s") << " ("
                      << chosen.size() << " sweep point" << (chosen.size() == 1 ? "" : "s") << ") on " << std::max(1u, jobs)
                      << " thread" << (jobs > 1 ? "s" : "") << "\n"
                      << std::flush;
  }
  ProgressReporter progress(options.progress, options.progress_terminal, "", tasks.size());
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};

  auto work = [&] {
    while (!failed.load()) {
      const std::size_t i = next.fetch_add(1);
      if (i >= tasks.size()) return;
      const Task& t = tasks[i];
      const Scenario& s = scenarios[t.point];
      RunResult& r = results.runs[i];
      r.index = first_run[t.point] + t.policy;
      r.point_index = t.point;
      r.point_label = points[t.point].label();
      r.policy_index = t.policy;
      r.policy = s.policies[t.policy].choice.impl;
      r.policy_label = s.policies[t.policy].label();
      r.policy_params = s.policies[t.policy].choice.params;
      r.engine = s.engine.impl;
      r.seed = s.seed;
      r.capacity_text = s.cache.capacity.text;
      r.size_unit = s.cache.ignore_sizes ? "blocks" : "bytes";
      r.capacity_bytes = capacity[t.point];
      r.footprint_bytes = footprint[t.point];
      try {
        std::unique_ptr<ITraceSource> trace = provider_of[t.point]->open();
        if (s.cache.granularity_bytes > 0) {
          trace = std::make_unique<GranularityTraceSource>(std::move(trace), s.cache.granularity_bytes);
        }
        const auto start = std::chrono::steady_clock::now();
        r.result = engine(*trace, s.engine_config(t.policy, capacity[t.point]), s.engine,
                          EngineContext{r.index, options.artifacts_dir});
        r.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        r.decision_clock = std::string(to_string(r.result.decision_clock));
      } catch (const InputError& e) {
        // Name the scenario file and, in a sweep, the point: the error came
        // from inside a run (pins against the trace's catalog, a record).
        const std::string what = e.what();
        const std::string where =
            s.source + (r.point_label.empty() ? "" : " [point " + r.point_label + "]") + ", policy " + r.policy_label + ": ";
        errors[i] = std::make_exception_ptr(InputError(what.rfind(s.source, 0) == 0 ? what : where + what));
        failed.store(true);
        return;
      } catch (...) {
        errors[i] = std::current_exception();
        failed.store(true);
        return;
      }
      if (options.on_point_done && unfinished[t.point].fetch_sub(1) == 1) {
        try {
          const auto begin = results.runs.begin() + static_cast<std::ptrdiff_t>(first_task[t.point]);
          const std::vector<RunResult> point_runs(begin, begin + static_cast<std::ptrdiff_t>(s.policies.size()));
          std::lock_guard lock(point_done_mutex);
          options.on_point_done(t.point, point_runs);
        } catch (...) {
          errors[i] = std::current_exception();
          failed.store(true);
          return;
        }
      }
      progress.done(r.point_label.empty() ? "policy=" + r.policy_label
                                          : r.point_label + " policy=" + r.policy_label);
    }
  };

  if (jobs <= 1) {
    work();
  } else {
    std::vector<std::jthread> threads;
    for (unsigned j = 0; j < jobs; ++j) threads.emplace_back(work);
  }
  for (const auto& e : errors) {
    if (e) std::rethrow_exception(e);
  }

  results.host = HostInfo::current();
  results.host.jobs = std::max(1u, jobs);
  results.host.total_wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  return results;
}

}  // namespace flashsim
