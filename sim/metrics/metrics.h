// Interface (e) of the core: one definition of the metrics, used by both
// engines. An access is
//   * a hit          when its block is resident (or in use) at issue time;
//   * a delayed hit  when its block is in flight at issue time (a late
//                    prefetch or another stream's fetch): it waits, moves no
//                    new bytes, and counts as a miss in the hit ratio;
//   * a miss         otherwise (a fetch is issued, or a bypass).
// Hit ratio is reported per access (hits / accesses) and per byte
// (bytes of hits / bytes accessed). Stall is the time an access waits for
// data beyond the fast tier's hit latency; latency is issue to data ready.
#pragma once
#include <array>
#include <cstdint>
#include <vector>

#include "sim/core/units.h"

namespace flashsim {

/// Log-linear histogram of non-negative ns values: exact below 128 ns, then
/// 64 sub-buckets per power of two, so a reported percentile is within
/// 1/64 (1.6%) of the true value, and deterministic (HdrHistogram's scheme,
/// Tene, "HdrHistogram", 2012). Max is exact.
class LatencyHistogram {
 public:
  void add(Nanoseconds value_ns);
  void merge(const LatencyHistogram& other);
  std::uint64_t count() const { return count_; }
  Nanoseconds max_ns() const { return max_ns_; }
  /// q in [0, 1]; the upper edge of the bucket holding the q-quantile; 0 if empty.
  Nanoseconds quantile_ns(double q) const;

 private:
  std::vector<std::uint64_t> buckets_;
  std::uint64_t count_ = 0;
  Nanoseconds max_ns_ = 0;
};

/// Counters of one run (or one window of it).
struct AccessCounters {
  std::uint64_t accesses = 0;
  std::uint64_t hits = 0;
  std::uint64_t delayed_hits = 0;
  std::uint64_t misses = 0;          ///< accesses - hits - delayed_hits
  std::uint64_t bypasses = 0;        ///< misses served without caching (block too large / nothing evictable)
  ByteCount bytes_accessed = 0;
  ByteCount bytes_hit = 0;
  ByteCount bytes_fetched = 0;       ///< moved into the fast tier (H2D for a PCIe-backed tier), demand + prefetch
  ByteCount bytes_prefetched = 0;
  std::uint64_t evictions = 0;
  ByteCount bytes_evicted = 0;
  Nanoseconds stall_ns = 0;          ///< summed over accesses

  double hit_ratio_by_access() const { return accesses ? double(hits) / double(accesses) : 0.0; }
  double hit_ratio_by_byte() const { return bytes_accessed ? double(bytes_hit) / double(bytes_accessed) : 0.0; }
  double miss_ratio_by_access() const { return accesses ? 1.0 - hit_ratio_by_access() : 0.0; }
  double miss_ratio_by_byte() const { return bytes_accessed ? 1.0 - hit_ratio_by_byte() : 0.0; }
  void merge(const AccessCounters& other);
};

/// One window of the time series.
struct MetricsWindow {
  Nanoseconds start_ns = 0;
  AccessCounters counters;
  Nanoseconds link_busy_ns = 0;   ///< time the link to the next tier carried data in this window
  ByteCount occupancy_bytes = 0;  ///< fast-tier bytes reserved at the window's end
};

/// Everything one policy run reports.
struct RunMetrics {
  AccessCounters total;
  LatencyHistogram latency;        ///< per access, issue to data ready, ns
  Nanoseconds simulated_ns = 0;    ///< engine time at the end of the run (0 on the cache-only path)
  Nanoseconds window_ns = 0;       ///< width of each time-series window
  std::vector<MetricsWindow> windows;
};

}  // namespace flashsim
