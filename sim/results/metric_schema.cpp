#include "sim/results/metric_schema.h"

#include "sim/core/errors.h"

namespace flashsim {
namespace {

RunMetricValue u(std::uint64_t v) {
  RunMetricValue m;
  m.type = MetricType::u64;
  m.u64 = v;
  return m;
}
RunMetricValue i(std::int64_t v) {
  RunMetricValue m;
  m.type = MetricType::i64;
  m.i64 = v;
  return m;
}
RunMetricValue f(double v) {
  RunMetricValue m;
  m.type = MetricType::f64;
  m.f64 = v;
  return m;
}
RunMetricValue t(std::string v) {
  RunMetricValue m;
  m.type = MetricType::text;
  m.text = std::move(v);
  return m;
}

const AccessCounters& c(const RunResult& r) { return r.result.metrics.total; }
const ServingMetrics& sv(const RunResult& r) { return r.result.metrics.serving; }
const OccupancyMetrics& occ(const RunResult& r) { return r.result.metrics.occupancy; }
const OutOfMemoryPoint& oom(const RunResult& r) { return r.result.metrics.out_of_memory; }

using A = Aggregation;
using T = MetricType;

// clang-format off
const std::vector<RunMetricSpec> kSchema = {
  // --- what the run is ---
  {"run", "", T::u64, A::label, "run number: point × policies + policy", [](const RunResult& r) { return u(r.index); }},
  {"point", "", T::u64, A::label, "sweep point", [](const RunResult& r) { return u(r.point_index); }},
  {"point_label", "", T::text, A::label, "the sweep point's overrides, e.g. cache.capacity=50%", [](const RunResult& r) { return t(r.point_label); }},
  {"policy_index", "", T::u64, A::label, "position in the scenario's policies list", [](const RunResult& r) { return u(r.policy_index); }},
  {"policy", "", T::text, A::label, "registered policy name", [](const RunResult& r) { return t(r.policy); }},
  {"policy_label", "", T::text, A::label, "policy name with the parameters the user gave", [](const RunResult& r) { return t(r.policy_label); }},
  {"params", "", T::text, A::label, "every policy parameter as resolved, 'k=v k=v' (an object in summary.json)", [](const RunResult& r) { return t(params_text(r.policy_params)); }},
  {"engine", "", T::text, A::label, "event | cache_only", [](const RunResult& r) { return t(r.engine); }},
  {"decision_clock", "", T::text, A::label, "trace | engine: the clock policies saw", [](const RunResult& r) { return t(r.decision_clock); }},
  {"seed", "", T::u64, A::label, "random seed", [](const RunResult& r) { return u(r.seed); }},
  {"capacity_text", "", T::text, A::label, "fast-tier capacity as written: 50%, 2GiB", [](const RunResult& r) { return t(r.capacity_text); }},
  {"size_unit", "", T::text, A::label, "bytes, or blocks with cache.ignore_sizes: the unit of every bytes field of the run", [](const RunResult& r) { return t(r.size_unit); }},
  {"capacity_bytes", "bytes", T::u64, A::label, "fast-tier capacity used (blocks with cache.ignore_sizes)", [](const RunResult& r) { return u(r.capacity_bytes); }},
  {"footprint_bytes", "bytes", T::u64, A::label, "trace footprint (0 when not measured)", [](const RunResult& r) { return u(r.footprint_bytes); }},
  // --- accesses ---
  {"accesses", "count", T::u64, A::sum, "accesses replayed", [](const RunResult& r) { return u(c(r).accesses); }},
  {"hits", "count", T::u64, A::sum, "accesses that found their block resident", [](const RunResult& r) { return u(c(r).hits); }},
  {"delayed_hits", "count", T::u64, A::sum, "accesses that found their block in flight", [](const RunResult& r) { return u(c(r).delayed_hits); }},
  {"misses", "count", T::u64, A::sum, "accesses that found their block absent", [](const RunResult& r) { return u(c(r).misses); }},
  {"bypasses", "count", T::u64, A::sum, "misses served without caching", [](const RunResult& r) { return u(c(r).bypasses); }},
  {"hit_ratio_by_access", "1", T::f64, A::ratio, "hits / accesses", [](const RunResult& r) { return f(c(r).hit_ratio_by_access()); }},
  {"hit_ratio_by_byte", "1", T::f64, A::ratio, "bytes_hit / bytes_accessed", [](const RunResult& r) { return f(c(r).hit_ratio_by_byte()); }},
  {"bytes_accessed", "bytes", T::u64, A::sum, "recorded bytes of every access", [](const RunResult& r) { return u(c(r).bytes_accessed); }},
  {"bytes_hit", "bytes", T::u64, A::sum, "recorded bytes of the hits", [](const RunResult& r) { return u(c(r).bytes_hit); }},
  {"bytes_fetched", "bytes", T::u64, A::sum, "moved into the fast tier (H2D), demand and prefetch", [](const RunResult& r) { return u(c(r).bytes_fetched); }},
  {"bytes_prefetched", "bytes", T::u64, A::sum, "of which by prefetches", [](const RunResult& r) { return u(c(r).bytes_prefetched); }},
  {"evictions", "count", T::u64, A::sum, "blocks evicted from the fast tier", [](const RunResult& r) { return u(c(r).evictions); }},
  {"bytes_evicted", "bytes", T::u64, A::sum, "bytes of the evicted blocks", [](const RunResult& r) { return u(c(r).bytes_evicted); }},
  {"write_allocations", "count", T::u64, A::sum, "KV appends allocated in place (no transfer)", [](const RunResult& r) { return u(c(r).write_allocations); }},
  {"bytes_written_back", "bytes", T::u64, A::sum, "D2H write-backs of written blocks leaving the tier, and write-throughs", [](const RunResult& r) { return u(c(r).bytes_written_back); }},
  // --- prefetch ---
  {"prefetches", "count", T::u64, A::sum, "prefetches issued", [](const RunResult& r) { return u(c(r).prefetches); }},
  {"prefetch_used_timely", "count", T::u64, A::sum, "prefetched blocks first found resident", [](const RunResult& r) { return u(c(r).prefetch_used_timely); }},
  {"prefetch_used_late", "count", T::u64, A::sum, "prefetched blocks first found in flight", [](const RunResult& r) { return u(c(r).prefetch_used_late); }},
  {"prefetch_unused", "count", T::u64, A::sum, "prefetched blocks never accessed before leaving or the end", [](const RunResult& r) { return u(c(r).prefetch_unused); }},
  {"prefetch_accuracy", "1", T::f64, A::ratio, "used / issued", [](const RunResult& r) { return f(c(r).prefetch_accuracy()); }},
  {"prefetch_coverage", "1", T::f64, A::ratio, "used / (used + demand misses)", [](const RunResult& r) { return f(c(r).prefetch_coverage()); }},
  {"prefetch_timeliness", "1", T::f64, A::ratio, "timely / used", [](const RunResult& r) { return f(c(r).prefetch_timeliness()); }},
  // --- time ---
  {"stall_ns", "ns", T::i64, A::sum, "summed latency of accesses that found their data absent", [](const RunResult& r) { return i(c(r).stall_ns); }},
  {"latency_p50_ns", "ns", T::i64, A::quantile, "median access latency, issue to data ready", [](const RunResult& r) { return i(r.result.metrics.latency.quantile_ns(0.50)); }},
  {"latency_p99_ns", "ns", T::i64, A::quantile, "99th percentile access latency", [](const RunResult& r) { return i(r.result.metrics.latency.quantile_ns(0.99)); }},
  {"latency_max_ns", "ns", T::i64, A::max, "largest access latency", [](const RunResult& r) { return i(r.result.metrics.latency.max_ns()); }},
  {"simulated_ns", "ns", T::i64, A::max, "simulated span of the run (0 on the cache-only path)", [](const RunResult& r) { return i(r.result.metrics.simulated_ns); }},
  {"events", "count", T::u64, A::sum, "engine events processed", [](const RunResult& r) { return u(r.result.events_processed); }},
  {"windows", "count", T::u64, A::max, "time-series windows", [](const RunResult& r) { return u(r.result.metrics.windows.size()); }},
  // --- the tier ---
  {"pinned_bytes", "bytes", T::u64, A::max, "slot bytes of pinned blocks at the end", [](const RunResult& r) { return u(r.result.pinned_bytes); }},
  {"slot_reserved_peak_bytes", "bytes", T::u64, A::max, "largest slot bytes reserved at once", [](const RunResult& r) { return u(r.result.slot_reserved_peak_bytes); }},
  {"fragmentation_evictions", "count", T::u64, A::sum, "evictions made only because free space was not contiguous", [](const RunResult& r) { return u(r.result.fragmentation_evictions); }},
  // --- serving ---
  {"requests", "count", T::u64, A::sum, "serving requests", [](const RunResult& r) { return u(sv(r).requests.size()); }},
  {"output_tokens", "tokens", T::u64, A::sum, "tokens produced", [](const RunResult& r) { return u(sv(r).output_tokens); }},
  {"tokens_per_second", "tokens/s", T::f64, A::ratio, "output tokens / simulated seconds", [](const RunResult& r) { return f(sv(r).tokens_per_second); }},
  {"ttft_mean_ns", "ns", T::f64, A::mean, "mean time to first token", [](const RunResult& r) { return f(sv(r).ttft_mean_ns); }},
  {"ttft_p50_ns", "ns", T::i64, A::quantile, "median time to first token", [](const RunResult& r) { return i(sv(r).ttft_p50_ns); }},
  {"ttft_p90_ns", "ns", T::i64, A::quantile, "90th percentile time to first token", [](const RunResult& r) { return i(sv(r).ttft_p90_ns); }},
  {"ttft_p99_ns", "ns", T::i64, A::quantile, "99th percentile time to first token", [](const RunResult& r) { return i(sv(r).ttft_p99_ns); }},
  {"tpot_mean_ns", "ns", T::f64, A::mean, "mean time per output token (requests with >= 2 tokens)", [](const RunResult& r) { return f(sv(r).tpot_mean_ns); }},
  {"tpot_p50_ns", "ns", T::f64, A::quantile, "median time per output token", [](const RunResult& r) { return f(sv(r).tpot_p50_ns); }},
  {"tpot_p99_ns", "ns", T::f64, A::quantile, "99th percentile time per output token", [](const RunResult& r) { return f(sv(r).tpot_p99_ns); }},
  {"e2e_p50_ns", "ns", T::i64, A::quantile, "median request latency, arrival to last token", [](const RunResult& r) { return i(sv(r).e2e_p50_ns); }},
  {"e2e_p90_ns", "ns", T::i64, A::quantile, "90th percentile request latency", [](const RunResult& r) { return i(sv(r).e2e_p90_ns); }},
  {"e2e_p99_ns", "ns", T::i64, A::quantile, "99th percentile request latency", [](const RunResult& r) { return i(sv(r).e2e_p99_ns); }},
  // --- occupancy by kind ---
  {"peak_weights_bytes", "bytes", T::u64, A::max, "largest slot bytes held by weight blocks", [](const RunResult& r) { return u(occ(r).peak_weights_bytes); }},
  {"peak_kv_bytes", "bytes", T::u64, A::max, "largest slot bytes held by KV pages", [](const RunResult& r) { return u(occ(r).peak_kv_bytes); }},
  {"peak_other_bytes", "bytes", T::u64, A::max, "largest slot bytes held by other blocks", [](const RunResult& r) { return u(occ(r).peak_other_bytes); }},
  {"peak_total_bytes", "bytes", T::u64, A::max, "largest slot bytes held altogether", [](const RunResult& r) { return u(occ(r).peak.total_bytes()); }},
  {"peak_total_at_ns", "ns", T::i64, A::label, "when peak_total_bytes was reached", [](const RunResult& r) { return i(occ(r).peak.time_ns); }},
  // --- the out-of-memory point (metrics.h) ---
  {"oom_reached", "count", T::u64, A::max, "1 when a KV append could not be admitted", [](const RunResult& r) { return u(oom(r).reached ? 1 : 0); }},
  {"oom_time_ns", "ns", T::i64, A::label, "when the first one was issued", [](const RunResult& r) { return i(oom(r).time_ns); }},
  {"oom_request_id", "", T::u64, A::label, "its request", [](const RunResult& r) { return u(oom(r).request_id); }},
  {"oom_token_index", "", T::i64, A::label, "its token", [](const RunResult& r) { return i(oom(r).token_index); }},
  {"oom_block_id", "", T::u64, A::label, "its KV page", [](const RunResult& r) { return u(oom(r).block_id); }},
  {"oom_kv_bytes", "bytes", T::u64, A::label, "KV slot bytes in the fast tier then", [](const RunResult& r) { return u(oom(r).kv_bytes); }},
  {"oom_reserved_bytes", "bytes", T::u64, A::label, "all slot bytes then", [](const RunResult& r) { return u(oom(r).reserved_bytes); }},
  {"oom_pinned_bytes", "bytes", T::u64, A::label, "pinned slot bytes then", [](const RunResult& r) { return u(oom(r).pinned_bytes); }},
};
// clang-format on

}  // namespace

std::string_view to_string(MetricType type) {
  switch (type) {
    case MetricType::u64: return "u64";
    case MetricType::i64: return "i64";
    case MetricType::f64: return "f64";
    case MetricType::text: return "text";
  }
  return "?";
}

std::string_view to_string(Aggregation aggregation) {
  switch (aggregation) {
    case Aggregation::label: return "label";
    case Aggregation::sum: return "sum";
    case Aggregation::ratio: return "ratio";
    case Aggregation::quantile: return "quantile";
    case Aggregation::max: return "max";
    case Aggregation::mean: return "mean";
  }
  return "?";
}

double RunMetricValue::number() const {
  switch (type) {
    case MetricType::u64: return static_cast<double>(u64);
    case MetricType::i64: return static_cast<double>(i64);
    case MetricType::f64: return f64;
    case MetricType::text: return 0.0;
  }
  return 0.0;
}

const std::vector<RunMetricSpec>& run_metric_schema() { return kSchema; }

const RunMetricSpec& metric_spec(std::string_view name) {
  for (const RunMetricSpec& s : kSchema) {
    if (s.name == name) return s;
  }
  throw Error("no metric named '" + std::string(name) + "' in the results schema");
}

}  // namespace flashsim
