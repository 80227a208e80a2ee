#include "sim/engine/program/program_engine.h"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "sim/core/errors.h"
#include "sim/core/unit_parse.h"
#include "sim/engine/program/program_prefetch.h"
#include "sim/engine/program/static_placement.h"
#include "sim/engine/program/step_regimes.h"
#include "sim/metrics/metrics.h"

namespace flashsim {
namespace {

constexpr unsigned long long kMaxRegimeNumber = 100'000'000;

// The executor's options for one run: the scenario's fast tier (or every
// copy as recorded) with the engine's what-ifs; `resident_bytes` gets what
// the static placement keeps (0: nothing fits, and as_recorded stays so).
ExecutorOptions executor_options(const EngineConfig& config, const ProgramEngineOptions& options,
                                 const std::vector<AccessRecord>& records, ByteCount& resident_bytes) {
  ExecutorOptions o;
  o.host_time = options.host_time;
  o.host_memory = options.host_memory;
  o.capture_gap_ns = options.capture_gap_ns;
  o.recorded_copy_time = options.recorded_copy_time;
  o.copy_curves = options.copy_curves;
  o.fresh_pages = options.fresh_pages;
  o.cache = config.cache;
  const bool as_recorded = config.cache.eviction.impl == kAsRecordedPolicy;
  StaticPlacement placed;
  if (options.static_placement_bytes > 0) placed = first_streamed_blocks(records, options.static_placement_bytes);
  resident_bytes = placed.bytes;
  o.as_recorded = as_recorded && placed.bytes == 0;
  if (o.as_recorded) return o;
  if (as_recorded) {  // placement alone: the rest of the streamed blocks stay copies (LRU never keeps them)
    o.cache.eviction = ComponentChoice{"lru", {}};
    o.cache.capacity_bytes = 0;
  }
  o.cache.pinned.blocks.insert(o.cache.pinned.blocks.end(), placed.blocks.begin(), placed.blocks.end());
  o.cache.capacity_bytes += placed.bytes;
  if (o.cache.capacity_bytes == 0) {
    throw InputError("policy " + config.cache.eviction.impl + " needs a fast tier: cache.capacity > 0");
  }
  return o;
}

}  // namespace

void check_program_steps(const Program& program, const ProgramEngineOptions& options) {
  std::vector<Nanoseconds> starts;
  for (const ProgramOp& op : program.ops) {
    if (op.kind == ProgramOpKind::step) starts.push_back(op.host_start_ns);
  }
  const std::size_t skip = static_cast<std::size_t>(options.skip_steps);
  if (starts.size() < skip + 2) {
    throw InputError("engine.skip_steps " + std::to_string(skip) + ": the capture has " +
                     std::to_string(starts.size()) + " step marks (rule '" + program.step_rule +
                     "'), which leaves no step to measure");
  }
  starts.erase(starts.begin(), starts.begin() + static_cast<std::ptrdiff_t>(skip));
  std::vector<Nanoseconds> durations;
  for (std::size_t i = 1; i < starts.size(); ++i) durations.push_back(starts[i] - starts[i - 1]);
  choose_regime(find_regimes(durations, starts, program.repeat_marks_ns), durations.size(), options.regime,
                "engine.regime");
}

namespace {

const char* kDirection[2] = {"h2d", "d2h"};
const char* kMemory[2] = {"pinned", "pageable"};

std::vector<double> as_doubles(const std::vector<Nanoseconds>& v) { return {v.begin(), v.end()}; }

// The prediction as the `program` component: numbers, texts, series.
void report(const ProgramPrediction& p, const TraceMeta& meta, const HardwareProfile& hardware,
            const ProgramEngineOptions& options, ByteCount resident_bytes, ComponentStats& out) {
  const std::size_t skip = static_cast<std::size_t>(options.skip_steps);
  const std::vector<Nanoseconds> steps = p.step_durations(skip), recorded = p.step_durations(skip, true);
  const std::vector<Nanoseconds> starts(p.recorded_step_ns.begin() + static_cast<std::ptrdiff_t>(skip),
                                        p.recorded_step_ns.end());
  const RegimeSplit split = find_regimes(recorded, starts, meta.program->repeat_marks_ns);
  const StepRegime chosen = choose_regime(split, steps.size(), options.regime, "engine.regime");
  const std::string c = kProgramComponent;
  out.add(c, "median_step_ns", "ns", regime_median_ns(steps, chosen));
  out.add(c, "recorded_median_step_ns", "ns", regime_median_ns(recorded, chosen));
  out.add(c, "regime_first_step", "count", static_cast<double>(chosen.first + skip));
  out.add(c, "regime_end_step", "count", static_cast<double>(chosen.end + skip));
  out.add(c, "steps", "count", static_cast<double>(steps.size()));
  out.add(c, "skip_steps", "count", static_cast<double>(skip));
  out.add(c, "ops", "count", static_cast<double>(meta.program->ops.size()));
  out.add(c, "threads", "count", meta.program->thread_count);
  out.add(c, "streams", "count", meta.program->stream_count);
  out.add(c, "copies", "count", static_cast<double>(p.copies));
  out.add(c, "copies_removed", "count", static_cast<double>(p.copies_removed));
  out.add(c, "bytes_removed", "bytes", static_cast<double>(p.bytes_removed));
  out.add(c, "h2d_bytes", "bytes", static_cast<double>(p.h2d_bytes));
  out.add(c, "d2h_bytes", "bytes", static_cast<double>(p.d2h_bytes));
  out.add(c, "host_blocked_ns", "ns", static_cast<double>(p.host_blocked_ns));
  out.add(c, "static_placement_bytes", "bytes", static_cast<double>(resident_bytes));
  for (int d = 0; d < 2; ++d) {
    for (int m = 0; m < 2; ++m) {
      const std::string k = std::string(kDirection[d]) + "_" + kMemory[m];
      out.add(c, k + "_copies", "count", static_cast<double>(p.copy_count[d][m]));
      out.add(c, k + "_model_ns", "ns", static_cast<double>(p.copy_model_ns[d][m]));
      out.add(c, k + "_recorded_ns", "ns", static_cast<double>(p.copy_recorded_ns[d][m]));
    }
  }
  out.add_text(c, "step_rule", meta.program->step_rule);
  out.add_text(c, "regime", options.regime);
  out.add_text(c, "regime_rule", split.rule);
  out.add_text(c, "pageable_h2d_source", p.sources.pageable_h2d);
  out.add_text(c, "pageable_d2h_source", p.sources.pageable_d2h);
  out.add_text(c, "pageable_d2h_fresh_source", p.sources.pageable_d2h_fresh);
  out.add_text(c, "fresh_pages", p.sources.fresh_pages);
  out.add_text(c, "capture_cost", p.sources.capture_cost);
  std::vector<std::string> warnings = p.sources.warnings;
  if (!hardware.execution.calibrated) {
    warnings.insert(warnings.begin(), "profile '" + hardware.name +
                                          "' has no execution: section; API costs are 0 and copies use the host link");
  }
  std::string joined;
  for (const std::string& w : warnings) joined += (joined.empty() ? "" : "\n") + w;
  out.add_text(c, "warnings", joined);
  out.add_series(c, "step_ns", "ns", as_doubles(steps));
  out.add_series(c, "recorded_step_ns", "ns", as_doubles(recorded));
  std::vector<double> first, end, median, recorded_median;
  for (const StepRegime& g : split.regimes) {
    first.push_back(static_cast<double>(g.first + skip));
    end.push_back(static_cast<double>(g.end + skip));
    median.push_back(regime_median_ns(steps, g));
    recorded_median.push_back(regime_median_ns(recorded, g));
  }
  out.add_series(c, "regime_first_steps", "count", std::move(first));
  out.add_series(c, "regime_end_steps", "count", std::move(end));
  out.add_series(c, "regime_median_step_ns", "ns", std::move(median));
  out.add_series(c, "regime_recorded_median_step_ns", "ns", std::move(recorded_median));
}

}  // namespace

double program_number(const ComponentStats& components, const std::string& name) {
  const ComponentStat* s = components.find(kProgramComponent, name);
  if (!s) throw Error("the run reports no " + std::string(kProgramComponent) + "." + name + " (not a program engine run)");
  return s->value;
}

const std::string& program_text(const ComponentStats& components, const std::string& name) {
  const ComponentText* t = components.find_text(kProgramComponent, name);
  if (!t) throw Error("the run reports no " + std::string(kProgramComponent) + "." + name + " (not a program engine run)");
  return t->text;
}

const std::vector<double>& program_series(const ComponentStats& components, const std::string& name) {
  const ComponentSeries* s = components.find_series(kProgramComponent, name);
  if (!s) throw Error("the run reports no " + std::string(kProgramComponent) + "." + name + " (not a program engine run)");
  return s->values;
}

Nanoseconds parse_capture_gap(const std::string& text) {
  if (text == "measured") return kMeasuredCaptureGap;
  try {
    return parse_duration_ns(text);
  } catch (const UnitError& e) {
    throw InputError("'" + text + "' is neither measured nor a duration (e.g. 2us): " + e.what());
  }
}

const std::string& check_regime(const std::string& text) {
  const bool number = !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
  if (!number && text != "steady" && text != "first" && text != "all") {
    throw InputError("'" + text + "': expected steady, first, all or a regime number");
  }
  // A regime is a stretch of at least one step: no program has more than a step count's worth.
  if (number && (text.size() > 9 || std::stoull(text) > kMaxRegimeNumber)) {
    throw InputError("regime " + text + ": more than " + std::to_string(kMaxRegimeNumber) +
                     " (a regime number counts stretches of steps, from 0)");
  }
  return text;
}

EngineResult run_program_engine(ITraceSource& trace, const EngineConfig& config, const ProgramEngineOptions& options) {
  TraceMeta meta = trace.meta();
  const std::vector<AccessRecord> records = read_all_records(trace);
  ByteCount resident_bytes = 0;
  if (meta.program && !meta.program->empty()) check_program_steps(*meta.program, options);
  const ExecutorOptions o = executor_options(config, options, records, resident_bytes);
  if (options.prefetch_distance >= 0 && meta.program) {  // run_program names a trace without one
    meta.program = std::make_shared<const Program>(
        with_prefetch(*meta.program, static_cast<std::size_t>(options.prefetch_distance)));
  }
  const ProgramPrediction p = run_program(meta, records, config.hardware, o);
  const std::size_t skip = static_cast<std::size_t>(options.skip_steps);
  if (p.step_start_ns.size() < skip + 2) {
    throw InputError("trace '" + meta.source + "': " + std::to_string(p.step_start_ns.size()) + " step marks (rule '" +
                     meta.program->step_rule + "'); skip_steps " + std::to_string(skip) +
                     " leaves no step to measure");
  }
  EngineResult r;
  RunMetrics& m = r.metrics;
  m.total = p.counters;
  m.simulated_ns = p.end_ns;
  RequestMetrics q;
  q.arrival_ns = p.step_start_ns[skip];
  q.admitted_ns = q.arrival_ns;
  q.first_token_ns = p.step_start_ns[skip + 1];
  q.last_token_ns = p.step_start_ns.back();
  q.end_ns = q.last_token_ns;
  q.output_tokens = p.step_start_ns.size() - skip - 1;
  m.serving.requests.push_back(q);
  m.serving.summarise(q.end_ns - q.arrival_ns);
  // Per-step quantiles (summarise sees one request: its mean step).
  std::vector<Nanoseconds> steps = p.step_durations(skip);
  m.serving.tpot_p50_ns = p.median_step_ns(skip);
  m.serving.tpot_p99_ns = static_cast<double>(exact_quantile_ns(steps, 0.99));
  r.decision_clock = DecisionClock::engine;
  report(p, meta, config.hardware, options, resident_bytes, r.components);
  return r;
}

}  // namespace flashsim
