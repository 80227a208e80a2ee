// The cache-only path: the access protocol (sim/cache/tier_session.h) with
// no time, no links and the "bytes" allocator of the scenario -- hits,
// misses and bytes for sweeps, miss-ratio curves and benchmarks.
#pragma once
#include "sim/cache/cache_config.h"
#include "sim/metrics/component_stats.h"
#include "sim/metrics/metrics.h"
#include "traces/trace_source.h"

namespace flashsim {

/// What the tier reports besides the counters (EngineResult's fields of the same names).
struct CacheOnlyTier {
  ByteCount pinned_bytes = 0;             ///< slot bytes of pinned blocks at the end
  ByteCount slot_reserved_peak_bytes = 0;
  std::uint64_t fragmentation_evictions = 0;
  ComponentStats components;              ///< the tier's own statistics ("tier.fast")
};

/// Replays `trace` through the fast tier's policy only: every decision is
/// TierSession::access (the event engine's definitions), a fetch arrives at
/// once (no delayed hits), simulated_ns stays 0, windows and latency stay
/// empty. The decision clock is the record's time_ns. Throws InputError for
/// a bad configuration (capacity 0, unknown policy, pins) or a record with
/// bytes 0 (naming the record), Error when a policy misbehaves.
/// With `tier` not null, also fills it.
RunMetrics run_cache_only(ITraceSource& trace, const CacheConfig& cache, CacheOnlyTier* tier = nullptr);

}  // namespace flashsim
