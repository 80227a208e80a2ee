#include "sim/engine/program/program_engine.h"

#include <algorithm>
#include <string>
#include <vector>

#include "sim/core/errors.h"
#include "sim/engine/program/program_executor.h"
#include "sim/metrics/metrics.h"

namespace flashsim {

EngineResult run_program_engine(ITraceSource& trace, const EngineConfig& config, const ProgramEngineOptions& options) {
  const TraceMeta& meta = trace.meta();
  const std::vector<AccessRecord> records = read_all_records(trace);
  ExecutorOptions o;
  o.host_memory = options.host_memory;
  o.as_recorded = config.cache.eviction.impl == kAsRecordedPolicy;
  o.cache = config.cache;
  const ProgramPrediction p = run_program(meta, records, config.hardware, o);
  const std::size_t skip = static_cast<std::size_t>(options.skip_steps);
  if (p.step_start_ns.size() < skip + 2) {
    throw InputError("trace '" + meta.source + "': " + std::to_string(p.step_start_ns.size()) +
                     " step marks; engine.skip_steps " + std::to_string(skip) + " leaves fewer than one step");
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
  return r;
}

}  // namespace flashsim
