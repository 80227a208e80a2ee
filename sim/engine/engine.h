// What every engine shares: a run's configuration (EngineConfig) and result
// (EngineResult); and the discrete-event engine's entry point, run_engine
// (sim/engine/event/; the cache-only path, hits and bytes without time, is
// sim/cache/cache_only.h).
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "sim/cache/cache_config.h"
#include "sim/cache/cache_only.h"
#include "sim/core/decision_clock.h"
#include "sim/engine/hardware_profile.h"
#include "sim/metrics/component_stats.h"
#include "sim/metrics/metrics.h"
#include "traces/trace_source.h"

namespace flashsim {

/// When a stream issues its next access.
enum class IssueMode {
  timestamp,  ///< open loop: at its recorded time_ns (a stall does not delay later accesses)
  closed,     ///< closed loop: when the previous access of the stream completes, plus its
              ///< compute_ns (or `gap_ns` when the trace has no compute time)
};

/// Bandwidth-reservation admission (seed 000 §3.2, "带宽预约"): a request
/// needs  need = (L_in · input_coefficient + L_out · output_coefficient) ·
/// base_bandwidth  bytes/s, where L_in is its prompt length (1 + largest
/// prefill token_index) and L_out its decode token count (distinct decode
/// token indices), both from the trace's first pass. The engine *grants* a
/// request when the needs of the admitted, unfinished requests plus its own
/// stay within grant_share × the bandwidth of the link into the fast tier
/// (tiers[1].link); a request whose need alone exceeds that is granted when
/// nothing else is admitted (else it would wait forever). Requests are
/// granted in arrival order (FIFO, no overtaking); a stream whose next
/// record belongs to a request not granted yet issues nothing until it is.
/// A request's reservation is returned when its last access completes.
struct ReservationSpec {
  bool enabled = false;
  double input_coefficient = 0.8;   ///< seed: 0.8
  double output_coefficient = 1.2;  ///< seed: 1.2
  BytesPerSecond base_bandwidth = 0.0;  ///< per token; seed: "1.2 GB/s on an A100" (offline measurement)
  double grant_share = 1.0;         ///< share of the link's bandwidth that may be reserved, (0, 1]
};

struct EngineConfig {
  HardwareProfile hardware;
  CacheConfig cache;
  IssueMode issue = IssueMode::closed;
  Nanoseconds gap_ns = 0;          ///< closed loop: compute between accesses when compute_ns == 0
  DecisionClock decision_clock = DecisionClock::trace;
  Nanoseconds window_ns = 0;       ///< time-series window; 0 = one window for the whole run
  /// Prefetchers (PrefetcherRegistry names + params), called in this order
  /// after every access (sim/prefetch/i_prefetcher.h). Empty: no prefetch,
  /// and the engine's prefetch hook costs nothing.
  std::vector<ComponentChoice> prefetchers;
  std::uint64_t seed = 1;          ///< PrefetcherContext::seed
  /// Segment locking (seed 000 §3.2, "分段锁定"): minimum share of every
  /// link's bandwidth per model segment (BlockCatalogEntry::segment), e.g.
  /// {"cross_attention": 0.35}. Non-empty: links share bandwidth by
  /// generalised processor sharing (Parekh & Gallager, 1993) between
  /// segment classes -- each listed segment weighs its share, all other
  /// blocks together weigh 1 − Σ shares -- and equally within a class
  /// (sim/engine/event/link.h). Shares in (0, 1], summing to at most 1.
  std::map<std::string, double> segment_shares;
  ReservationSpec reservation;
  /// KV pages (catalog kind "kv_page") of a running request stay in the fast
  /// tier until the request ends (held in use, never evicted: vLLM keeps a
  /// running sequence's KV in HBM); false: they compete with weights and
  /// may be evicted (written back). Either way a request's pages are freed
  /// when its last access completes.
  bool kv_resident = false;
  /// Period of the occupancy-by-kind samples (RunMetrics::occupancy); 0 = none.
  Nanoseconds occupancy_sample_ns = 100'000'000;
};

/// At most this many time-series windows per run: a window too small for the
/// simulated span is an InputError naming outputs.window, not a runaway
/// allocation.
inline constexpr std::size_t kMaxTimeSeriesWindows = 1'000'000;

/// Throws InputError when window `index` of width `window_ns` is past
/// kMaxTimeSeriesWindows.
void check_window_index(std::size_t index, Nanoseconds window_ns);

struct EngineResult {
  RunMetrics metrics;
  DecisionClock decision_clock = DecisionClock::trace;  ///< the clock policies saw
  std::uint64_t events_processed = 0;
  ByteCount pinned_bytes = 0;
  ByteCount slot_reserved_peak_bytes = 0;
  std::uint64_t fragmentation_evictions = 0;  ///< evictions made only because free space was not contiguous
  /// What each component counted (sim/metrics/component_stats.h): the event
  /// engine's L2, TLB, links, tiers and prefetchers; empty on the cache-only path.
  ComponentStats components;
};

/// Replays `trace` through the event engine. Throws InputError on a bad
/// configuration (unknown policy, capacity 0, fewer than two tiers) or a
/// trace record that violates the schema (names the record index).
EngineResult run_engine(ITraceSource& trace, const EngineConfig& config);


}  // namespace flashsim
