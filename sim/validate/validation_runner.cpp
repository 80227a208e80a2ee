#include "sim/validate/validation_runner.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <mutex>
#include <thread>

#include "sim/run/scenario_runner.h"
#include "sim/run/trace_provider.h"

namespace flashsim {

SimulatedEntry simulate_entry(const ValidationSuite& suite, const SuiteEntry& entry, const std::vector<Override>& extra) {
  const ScenarioDocument doc = entry.document(extra);
  const auto points = doc.points();
  const std::string where = entry.pos.describe() + ": entry '" + entry.name + "'";
  if (points.size() != 1)
    throw InputError(where + ": resolves to " + std::to_string(points.size()) +
                     " sweep points; an entry must be one run (set the swept key in `set:`)");
  const Scenario scenario = doc.resolve(points.front());
  if (scenario.policies.size() != 1)
    throw InputError(where + ": has " + std::to_string(scenario.policies.size()) + " policies; an entry must be one run");
  RunnerOptions options;
  options.jobs = 1;
  ScenarioResults results = run_scenario(doc, options);
  SimulatedEntry s;
  s.run = std::move(results.runs.at(0));
  TraceProvider provider(scenario.workload);
  const auto source = provider.open();
  s.tokens = count_tokens(*source);
  s.distinct_blocks = provider.footprint().blocks;
  if (s.run.footprint_bytes == 0) s.run.footprint_bytes = provider.footprint().bytes;
  const PolicyChoice& policy = scenario.policies.front();
  for (const ComponentChoice& p : policy.has_prefetch ? policy.prefetchers : scenario.prefetchers)
    s.prefetch += (s.prefetch.empty() ? "" : "+") + p.impl;
  s.demand_only = s.prefetch.empty();
  (void)suite;
  return s;
}

std::vector<SimulatedEntry> simulate_suite(const ValidationSuite& suite, const std::vector<const SuiteEntry*>& entries,
                                           unsigned jobs, std::ostream* progress, const std::vector<Override>& extra) {
  std::vector<SimulatedEntry> out(entries.size());
  std::vector<std::exception_ptr> errors(entries.size());
  if (jobs == 0) jobs = std::max(1u, std::thread::hardware_concurrency());
  jobs = static_cast<unsigned>(std::min<std::size_t>(jobs, entries.size()));
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  std::mutex progress_mutex;
  std::size_t done = 0;
  auto worker = [&] {
    for (std::size_t i; !failed && (i = next++) < entries.size();) {
      try {
        out[i] = simulate_entry(suite, *entries[i], extra);
      } catch (...) {
        errors[i] = std::current_exception();
        failed = true;
      }
      if (progress) {
        std::lock_guard lock(progress_mutex);
        *progress << "[sim " << ++done << "/" << entries.size() << "] " << entries[i]->name << "\n" << std::flush;
      }
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < jobs; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);
  return out;
}

BaselineEntry record_entry(const ValidationSuite& suite, const SuiteEntry& entry, const SimulatedEntry& simulated,
                           const IHwBackend& backend, unsigned repeats, DeviceIdentity& device) {
  const ScenarioDocument doc = entry.document();
  BaselineEntry b;
  b.name = entry.name;
  b.scenario_fingerprint = suite_entry_fingerprint(suite, entry);
  b.inputs_fingerprint = entry_inputs_fingerprint(entry);
  b.replay = entry.replay;
  b.tokens = simulated.tokens;
  b.footprint_bytes = simulated.run.footprint_bytes;
  device = backend.identity(entry.replay.device);
  std::map<std::string, std::vector<double>> values;
  std::vector<RunSeries> series;
  for (unsigned k = 0; k < suite.warmup; ++k) (void)backend.replay(doc, entry.replay);
  for (unsigned k = 0; k < repeats; ++k) {
    HwReplayOutcome outcome = backend.replay(doc, entry.replay);
    if (outcome.results.runs.size() != 1)
      throw Error("entry '" + entry.name + "': the replay returned " + std::to_string(outcome.results.runs.size()) + " runs, expected 1");
    const RunResult& run = outcome.results.runs.front();
    for (const auto& [name, v] : metrics_of(run, simulated.tokens)) values[name].push_back(v);
    series.push_back(series_of(run));
    b.accesses = run.result.metrics.total.accesses;
    b.capacity_bytes = run.capacity_bytes;
  }
  for (auto& [name, v] : values) b.metrics.emplace(name, summarize_repeats(v));
  // The series of the repeat closest to the median time per token.
  const auto& t = b.metrics.at("time_per_token_ns");
  std::size_t best = 0;
  for (std::size_t k = 1; k < t.values.size(); ++k)
    if (std::fabs(t.values[k] - t.median) < std::fabs(t.values[best] - t.median)) best = k;
  b.series = series.at(best);
  return b;
}

EntryComparison compare_entry(const ValidationSuite& suite, const SuiteEntry& entry, const SimulatedEntry& simulated,
                              const BaselineEntry* hw) {
  EntryComparison e;
  e.name = entry.name;
  e.group = entry.group;
  e.fit = entry.fit;
  e.policy = simulated.run.policy_label;
  e.prefetch = simulated.prefetch;
  e.demand_only = simulated.demand_only;
  e.footprint_bytes = simulated.run.footprint_bytes;
  e.capacity_bytes = simulated.run.capacity_bytes;
  e.block_bytes = simulated.distinct_blocks ? e.footprint_bytes / simulated.distinct_blocks : 0;
  e.capacity_fraction = e.footprint_bytes ? static_cast<double>(e.capacity_bytes) / static_cast<double>(e.footprint_bytes) : 0.0;
  e.tokens = simulated.tokens;
  e.accesses = simulated.run.result.metrics.total.accesses;
  const MetricValues sim = metrics_of(simulated.run, simulated.tokens);
  for (const MetricSpec& spec : suite.metrics) {
    const MeasuredValue* measured = nullptr;
    if (hw) {
      const auto it = hw->metrics.find(spec.name);
      if (it != hw->metrics.end()) measured = &it->second;
    }
    e.rows.push_back(compare_metric(spec, sim.at(spec.name), measured, metric_applies(spec, e.demand_only)));
  }
  e.sim_series = series_of(simulated.run);
  if (hw) e.hw_series = hw->series;
  return e;
}

bool ValidationReport::passed() const {
  return problems.empty() && std::all_of(entries.begin(), entries.end(), [](const EntryComparison& e) { return e.passed(); });
}

}  // namespace flashsim

namespace flashsim {
namespace {

std::string profile_name_of(const std::filesystem::path& file) {
  const ConfigNode root = parse_yaml_file(file);
  const ConfigNode* name = root.find("name");
  return name && name->is_scalar() ? name->scalar : file.stem().string();
}

}  // namespace

ValidationReport run_validation(const ValidationSuite& suite, const ValidationOptions& options, std::ostream* progress) {
  std::vector<const SuiteEntry*> entries;
  if (options.only.empty()) {
    for (const SuiteEntry& e : suite.entries) entries.push_back(&e);
  } else {
    for (const std::string& name : options.only) {
      const SuiteEntry* e = suite.find(name);
      if (!e) throw InputError("--only '" + name + "': no such entry in " + suite.file.string());
      if (std::find(entries.begin(), entries.end(), e) != entries.end()) throw InputError("--only '" + name + "': given twice");
      entries.push_back(e);
    }
  }
  const IHwBackend* backend = hw_backend();
  const bool gpu = backend && backend->device_present();
  bool live = options.hw == HwSource::live || (options.hw == HwSource::automatic && gpu) || options.record;
  if (live && !gpu)
    throw InputError(std::string(backend ? "no CUDA device visible" : "this flashsim was built without CUDA") +
                     ": live hardware figures (--hw live / --record) need a GPU");
  if (options.record) {
    if (suite.profile.empty()) throw InputError(suite.file.string() + ": --record needs the suite's `profile:` (the calibrated profile in force)");
    if (options.commit.empty()) throw InputError("--record needs --commit SHA (the 40 hex digits of the commit being measured)");
  }
  const unsigned repeats = options.repeats ? options.repeats : suite.repeats;
  if (options.record && repeats < 5) throw InputError("--record: a baseline needs at least 5 repeats (got " + std::to_string(repeats) + ")");

  ValidationReport report;
  report.suite = &suite;
  report.hw_source = live ? "live" : options.hw == HwSource::none ? "none" : "recorded";
  report.baseline_file = (options.baseline.empty() ? suite.baseline : options.baseline).string();
  if (!suite.profile.empty()) {
    report.profile_name = profile_name_of(suite.profile);
    report.profile_fingerprint = content_fingerprint(read_text_file(suite.profile, suite.profile.string()));
  } else {
    report.profile_name = "(each scenario's own)";
  }

  const std::vector<SimulatedEntry> simulated = simulate_suite(suite, entries, options.jobs, progress, options.extra);
  Baseline baseline;
  if (live) {
    baseline.suite = suite.name;
    for (std::size_t i = 0; i < entries.size(); ++i) {
      if (progress) *progress << "[hw " << (i + 1) << "/" << entries.size() << "] " << entries[i]->name << " x" << repeats << "\n" << std::flush;
      baseline.entries.push_back(record_entry(suite, *entries[i], simulated[i], *backend, repeats, baseline.provenance.device));
    }
    BaselineProvenance& p = baseline.provenance;
    p.commit = options.commit;
    p.tool_version = tool_version_string();
    const HostInfo host = HostInfo::current();
    p.date_utc = host.date_utc;
    p.host = host.hostname;
    p.repeats = repeats;
    if (!suite.profile.empty()) {
      p.profile_name = report.profile_name;
      p.profile_file = suite.profile.filename().string();
      p.profile_text = read_text_file(suite.profile, suite.profile.string());
      p.profile_fingerprint = content_fingerprint(p.profile_text);
    }
    if (options.record) write_baseline(report.baseline_file, baseline);
    report.provenance = p;
  } else if (options.hw != HwSource::none) {
    baseline = read_baseline(report.baseline_file);
    report.provenance = baseline.provenance;
  }
  if (!live && options.hw != HwSource::none && baseline.suite != suite.name)
    report.problems.push_back(report.baseline_file + ": recorded for suite '" + baseline.suite + "', not '" + suite.name + "'");
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const SuiteEntry& entry = *entries[i];
    const BaselineEntry* hw = baseline.find(entry.name);
    if (options.hw == HwSource::none) {
      hw = nullptr;
    } else if (!hw) {
      report.problems.push_back(entry.name + ": no hardware figures in " + report.baseline_file);
    } else if (!live && hw->scenario_fingerprint != suite_entry_fingerprint(suite, entry)) {
      report.problems.push_back(entry.name + ": its scenario or overrides changed since the baseline was recorded (" +
                                hw->scenario_fingerprint + " then, " + suite_entry_fingerprint(suite, entry) +
                                " now): record it again");
      hw = nullptr;
    } else if (!live && !hw->inputs_fingerprint.empty() && hw->inputs_fingerprint != entry_inputs_fingerprint(entry)) {
      report.problems.push_back(entry.name + ": a file its scenario reads (model, table, trace) changed since the baseline was recorded: record it again");
      hw = nullptr;
    } else if (!live) {
      if (!(hw->replay == entry.replay))
        report.problems.push_back(entry.name + ": recorded with replay " + to_string(hw->replay) + ", the suite says " +
                                  to_string(entry.replay));
    }
    EntryComparison c = compare_entry(suite, entry, simulated[i], hw);
    for (std::size_t m = 0; m < c.rows.size() && hw; ++m) {
      const MetricSpec& spec = suite.metrics[m];
      if (spec.gate && metric_applies(spec, c.demand_only) && !c.rows[m].hw)
        report.problems.push_back(entry.name + ": the baseline has no '" + spec.name + "' (a gated metric)");
    }
    report.entries.push_back(std::move(c));
  }
  report.summary = summarize(suite.metrics, report.entries, suite.log_span);
  return report;
}

}  // namespace flashsim
