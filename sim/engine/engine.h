// The simulator's entry points: the full discrete-event engine, and the
// cache-only path (hits and bytes, no time) used for sweeps and benchmarks.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "sim/core/decision_clock.h"
#include "sim/engine/hardware_profile.h"
#include "sim/metrics/metrics.h"
#include "traces/trace_source.h"

namespace flashsim {

/// Which registered implementation to build, with its parameters (value text).
struct ComponentChoice {
  std::string impl;
  std::map<std::string, std::string> params;
};

/// Blocks the fast tier never evicts: by id, or by group through the trace's
/// block catalog (every block of a layer, or of a kind such as "embedding").
struct PinSpec {
  std::vector<BlockId> blocks;
  std::vector<std::int32_t> layers;
  std::vector<std::string> kinds;
  bool empty() const { return blocks.empty() && layers.empty() && kinds.empty(); }
};

struct CacheConfig {
  ByteCount capacity_bytes = 0;                       ///< fast-tier capacity
  ComponentChoice eviction{"lru", {}};                ///< PolicyRegistry name + params
  ComponentChoice allocator{"bytes", {}};             ///< SlotAllocatorRegistry name + params
  PinSpec pinned;
};

/// When a stream issues its next access.
enum class IssueMode {
  timestamp,  ///< open loop: at its recorded time_ns (a stall does not delay later accesses)
  closed,     ///< closed loop: when the previous access of the stream completes, plus its
              ///< compute_ns (or `gap_ns` when the trace has no compute time)
};

struct EngineConfig {
  HardwareProfile hardware;
  CacheConfig cache;
  IssueMode issue = IssueMode::closed;
  Nanoseconds gap_ns = 0;          ///< closed loop: compute between accesses when compute_ns == 0
  DecisionClock decision_clock = DecisionClock::trace;
  Nanoseconds window_ns = 0;       ///< time-series window; 0 = one window for the whole run
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
};

/// Replays `trace` through the event engine. Throws InputError on a bad
/// configuration (unknown policy, capacity 0, fewer than two tiers) or a
/// trace record that violates the schema (names the record index).
EngineResult run_engine(ITraceSource& trace, const EngineConfig& config);

/// Replays `trace` through the fast tier's policy only: no time, no links,
/// byte capacity with variable-size blocks. simulated_ns stays 0 and
/// latency is empty. Same hit/miss/eviction definitions as run_engine.
RunMetrics run_cache_only(ITraceSource& trace, const CacheConfig& cache);

}  // namespace flashsim
