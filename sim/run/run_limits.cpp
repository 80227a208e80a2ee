#include "sim/run/run_limits.h"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "sim/core/errors.h"
#include "sim/core/hash_map.h"
#include "sim/core/memory_limit.h"
#include "sim/core/saturating.h"
#include "sim/engine/engine.h"
#include "traces/granularity.h"
#include "traces/stats/footprint.h"

namespace flashsim {

void check_sweep_memory(const ScenarioDocument& document, ByteCount limit_bytes) {
  const std::vector<SweepAxis>& axes = document.sweep();
  if (axes.empty() || limit_bytes == 0) return;
  std::uint64_t points = 1;
  for (const SweepAxis& a : axes) points = saturating_mul(points, a.values.size());
  const std::uint64_t bytes = saturating_mul(points, kRunBytesPerSweepPoint);
  if (bytes <= limit_bytes) return;
  throw InputError(axes.front().pos.file + ": sweep: " + std::to_string(points) + " points would hold about " +
                   gib_text(static_cast<double>(bytes)) + " (" + std::to_string(kRunBytesPerSweepPoint / 1024) +
                   " KiB a point), above the limit of " + gib_text(static_cast<double>(limit_bytes)) +
                   "; split the sweep or " + raise_memory_limit_advice(limit_bytes));
}

void check_granularity_memory(const Scenario& scenario, const TraceProvider& trace, unsigned concurrent_runs,
                              ByteCount limit_bytes) {
  const ByteCount g = scenario.cache.granularity_bytes;
  if (g == 0 || limit_bytes == 0 || trace.generator() != nullptr) return;
  auto source = trace.open();
  const TraceFootprint c = measure_footprint(*source, g);
  const std::uint64_t per_run =
      saturating_add(saturating_mul(c.pieces, kRunBytesPerBlock), saturating_mul(c.piece_accesses, kRunBytesPerAccess));
  const unsigned runs = std::max(1u, concurrent_runs);
  const std::uint64_t total = saturating_mul(per_run, runs);
  if (total <= limit_bytes) return;
  throw InputError(scenario.source + ": key 'cache.granularity': pieces of " + std::to_string(g) + " B split the trace into " +
                   std::to_string(c.pieces) + " distinct pieces and " + std::to_string(c.piece_accesses) +
                   " accesses: about " + gib_text(static_cast<double>(per_run)) + " per run" +
                   (runs > 1 ? ", " + gib_text(static_cast<double>(total)) + " for " + std::to_string(runs) + " runs at once" : "") +
                   ", above the limit of " + gib_text(static_cast<double>(limit_bytes)) +
                   "; choose a coarser granularity, fewer --jobs, or " + raise_memory_limit_advice(limit_bytes));
}

void check_window_count(const Scenario& scenario, const TraceProvider& trace) {
  if (!scenario.engine_traits().capabilities.time_series || scenario.workload.issue != IssueMode::timestamp) return;
  const Nanoseconds window = scenario.outputs.window_ns;
  if (window <= 0 || trace.generator() != nullptr) return;
  const TraceFootprint f = trace.footprint();
  const Nanoseconds span = f.last_time_ns - f.first_time_ns;
  const std::uint64_t windows = static_cast<std::uint64_t>(span / window) + 1;
  if (windows <= kMaxTimeSeriesWindows) return;
  throw InputError(scenario.source + ": key 'outputs.window': the trace spans " +
                   std::to_string(static_cast<double>(span) / 1e9) + " s of recorded time (issue: timestamp), " +
                   std::to_string(windows) + " windows of " + std::to_string(window) + " ns, more than the " +
                   std::to_string(kMaxTimeSeriesWindows) + " a run may have; choose a window of at least " +
                   std::to_string(span / static_cast<Nanoseconds>(kMaxTimeSeriesWindows) + 1) + " ns");
}

void check_pinned_blocks(const Scenario& scenario, const TraceProvider& trace) {
  const std::vector<BlockId>& pinned = scenario.cache.pinned.blocks;
  if (pinned.empty() || trace.generator() != nullptr) return;
  HashSet<BlockId> missing(pinned.begin(), pinned.end());
  std::unique_ptr<ITraceSource> source = trace.open();
  if (scenario.cache.granularity_bytes > 0) {
    source = std::make_unique<GranularityTraceSource>(std::move(source), scenario.cache.granularity_bytes);
  }
  std::vector<AccessRecord> buffer(buffer_records_for(source->meta(), 65536));
  while (!missing.empty()) {
    const std::size_t n = source->read(buffer);
    if (n == 0) break;
    for (std::size_t i = 0; i < n; ++i) missing.erase(buffer[i].block_id);
  }
  if (missing.empty()) return;
  std::vector<BlockId> ids(missing.begin(), missing.end());
  std::sort(ids.begin(), ids.end());
  std::string list;
  for (std::size_t i = 0; i < ids.size() && i < 5; ++i) list += (i ? ", " : "") + std::to_string(ids[i]);
  if (ids.size() > 5) list += ", ... (" + std::to_string(ids.size()) + " in all)";
  throw InputError(scenario.source + ": key 'cache.pin.blocks': block " + list + " never accessed in the trace" +
                   (scenario.cache.granularity_bytes > 0 ? " (with cache.granularity, pins name piece ids)" : ""));
}

}  // namespace flashsim
