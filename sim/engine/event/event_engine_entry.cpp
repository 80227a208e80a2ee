// `engine: event` (the default): the discrete-event engine of sim/engine/engine.h.
#include "sim/engine/engine_registry.h"

namespace flashsim {
namespace {

class EventEngine final : public IEngine {
 public:
  EngineResult run(ITraceSource& trace, const EngineConfig& config) override { return run_engine(trace, config); }
};

EngineTraits event_traits() {
  EngineTraits t;
  t.capabilities = {.models_time = true, .takes_prefetchers = true, .serving_metrics = true, .time_series = true};
  t.uses = {"hardware",
            "hardware.l2",
            "hardware.tlb",
            "hardware.contention",
            "hardware.miss_penalty",
            "workload.issue",
            "workload.gap",
            "decision_clock",
            "prefetch",
            "policies.prefetch",
            "policies.admission",
            "bandwidth.segment_shares",
            "bandwidth.reservation",
            "serving.kv_resident",
            "serving.occupancy_window",
            "outputs.window",
            "cache.granularity",
            "cache.allocator",
            "cache.pin",
            "cache.size_change"};
  t.statistics = cache_statistics();
  for (const char* s : {"delayed_hits", "bytes_prefetched", "prefetches", "prefetch_used_timely", "prefetch_used_late",
                        "prefetch_unused", "prefetch_accuracy", "prefetch_coverage", "prefetch_timeliness", "stall_ns",
                        "latency_p50_ns", "latency_p99_ns", "latency_max_ns", "simulated_ns", "events", "windows",
                        "requests", "output_tokens", "tokens_per_second", "ttft_mean_ns", "ttft_p50_ns", "ttft_p90_ns",
                        "ttft_p99_ns", "tpot_mean_ns", "tpot_p50_ns", "tpot_p99_ns", "e2e_p50_ns", "e2e_p90_ns",
                        "e2e_p99_ns", "peak_weights_bytes", "peak_kv_bytes", "peak_other_bytes", "peak_total_bytes",
                        "peak_total_at_ns", "oom_reached", "oom_time_ns", "oom_request_id", "oom_token_index",
                        "oom_block_id", "oom_kv_bytes", "oom_reserved_bytes", "oom_pinned_bytes"}) {
    t.statistics.emplace_back(s);
  }
  return t;
}

FLASHSIM_REGISTER(EngineRegistry,
                  (EngineRegistry::Entry{"event",
                                         "discrete-event engine: time, links, stalls, latency, prefetch, serving",
                                         {},
                                         [](const ParamValues&, const EngineContext&) -> std::unique_ptr<IEngine> {
                                           return std::make_unique<EventEngine>();
                                         },
                                         event_traits()}));

}  // namespace
}  // namespace flashsim
