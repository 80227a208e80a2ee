// Interface (e) of the core: one definition of the metrics, used by both
// engines. An access is
//   * a hit          when its block is resident (or in use) at issue time;
//   * a delayed hit  when its block is in flight at issue time (a late
//                    prefetch or another stream's fetch): it waits, moves no
//                    new bytes, and counts as a miss in the hit ratio;
//   * a miss         otherwise (a fetch is issued, or a bypass).
// Hit ratio is reported per access (hits / accesses) and per byte
// (bytes of hits / bytes accessed). Latency is issue to data ready. Stall is
// the whole latency of an access that did not find its data resident (a
// miss, a delayed hit, a write allocation) and 0 for a hit -- the GPU
// replay's definition (hw/replay/replay.h), so the two compare directly.
//
// Prefetch (Srinath, Mutlu, Kim, Patt, "Feedback Directed Prefetching",
// HPCA 2007, §2.2): a prefetch is *used* when the first demand access of
// its block after the prefetch finds it in the fast tier -- *timely* when
// resident (a hit), *late* when still in flight (a delayed hit) -- and
// *unused* when the block leaves the tier (eviction, invalidation) or the
// run ends before any access. Then
//   accuracy   = used / issued
//   coverage   = used / (used + demand misses)
//   timeliness = timely / used
// where demand misses are AccessCounters::misses (accesses that found the
// block absent). A prefetch the tier refused (bypass) is not issued.
//
// Serving (per request, from the records' request_id / token_index /
// phase; definitions as vLLM's and llmperf's benchmarks use them):
//   arrival      the time the request's first access was due to issue
//                (before any wait for bandwidth-reservation admission)
//   first token  the completion of the request's last prefill access; a
//                request without prefill records: the completion of the
//                last access of its smallest token_index
//   token k      (decode) the completion of the last access of token_index k
//   TTFT         first token − arrival. In generated serving workloads a
//                request's first record is the admission copy of its prompt
//                (block "input.rN", kind "io", H2D at the start of the step
//                that first serves it, before that step's weight reads), so
//                TTFT runs from the admission copy of the request's prompt
//                to the completion of its first output token
//   TPOT         (last token − first token) / (output tokens − 1): the mean
//                gap between successive token completions; 0 with < 2 tokens
//   output tokens  1 for the prefill (when present) + distinct decode token
//                indices (counted as new largest indices in completion
//                order: token indices are assumed increasing per request)
//   end-to-end   completion of the request's last access − arrival
//   tokens/s     output tokens of all requests / simulated seconds
// Percentiles over requests are exact (nearest rank).
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
  // --- prefetch (definitions at the top of this file) ---
  std::uint64_t prefetches = 0;             ///< issued: admitted by the fast tier and sent over the links
  std::uint64_t prefetch_used_timely = 0;   ///< first access found the block resident
  std::uint64_t prefetch_used_late = 0;     ///< first access found it in flight (a delayed hit)
  std::uint64_t prefetch_unused = 0;        ///< left the tier, or the run ended, before any access
  // --- writes ---
  std::uint64_t write_allocations = 0;      ///< KV appends to never-seen pages: allocated in place, no transfer
  ByteCount bytes_written_back = 0;         ///< written (dirty) blocks evicted: D2H write-back bytes

  double hit_ratio_by_access() const { return accesses ? double(hits) / double(accesses) : 0.0; }
  double hit_ratio_by_byte() const { return bytes_accessed ? double(bytes_hit) / double(bytes_accessed) : 0.0; }
  double miss_ratio_by_access() const { return accesses ? 1.0 - hit_ratio_by_access() : 0.0; }
  double miss_ratio_by_byte() const { return bytes_accessed ? 1.0 - hit_ratio_by_byte() : 0.0; }
  std::uint64_t prefetch_used() const { return prefetch_used_timely + prefetch_used_late; }
  /// used / issued (0 when none issued).
  double prefetch_accuracy() const { return prefetches ? double(prefetch_used()) / double(prefetches) : 0.0; }
  /// used / (used + demand misses) (0 when both are 0).
  double prefetch_coverage() const {
    const std::uint64_t d = prefetch_used() + misses;
    return d ? double(prefetch_used()) / double(d) : 0.0;
  }
  /// timely / used (0 when none used).
  double prefetch_timeliness() const {
    return prefetch_used() ? double(prefetch_used_timely) / double(prefetch_used()) : 0.0;
  }
  void merge(const AccessCounters& other);
};

/// One window of the time series.
struct MetricsWindow {
  Nanoseconds start_ns = 0;
  AccessCounters counters;
  Nanoseconds link_busy_ns = 0;   ///< time the link to the next tier carried data in this window
  ByteCount occupancy_bytes = 0;  ///< fast-tier bytes reserved at the window's end
};

/// One request of a serving trace (definitions at the top of this file).
struct RequestMetrics {
  std::uint64_t request_id = 0;
  Nanoseconds arrival_ns = 0;
  Nanoseconds admitted_ns = 0;      ///< = arrival unless bandwidth reservation held it in the queue
  Nanoseconds first_token_ns = 0;
  Nanoseconds last_token_ns = 0;
  Nanoseconds end_ns = 0;           ///< completion of its last access
  std::uint64_t output_tokens = 0;
  std::uint64_t input_tokens = 0;   ///< L_in: 1 + largest prefill token_index (0 without prefill)
  std::uint64_t accesses = 0;
  Nanoseconds ttft_ns() const { return first_token_ns - arrival_ns; }
  /// Mean ns between successive token completions (0 with fewer than 2 tokens).
  double tpot_ns() const {
    return output_tokens >= 2 ? double(last_token_ns - first_token_ns) / double(output_tokens - 1) : 0.0;
  }
  Nanoseconds e2e_ns() const { return end_ns - arrival_ns; }
  Nanoseconds queue_ns() const { return admitted_ns - arrival_ns; }
};

/// Exact nearest-rank quantile (q in [0, 1]) of `values` (sorted in place); 0 if empty.
Nanoseconds exact_quantile_ns(std::vector<Nanoseconds>& values, double q);
double exact_quantile(std::vector<double>& values, double q);

/// Serving metrics of a run: per request and over requests.
struct ServingMetrics {
  std::vector<RequestMetrics> requests;  ///< in order of first appearance in the trace
  std::uint64_t output_tokens = 0;
  double tokens_per_second = 0.0;        ///< output tokens / simulated seconds
  Nanoseconds ttft_p50_ns = 0, ttft_p90_ns = 0, ttft_p99_ns = 0;
  double ttft_mean_ns = 0.0;
  double tpot_mean_ns = 0.0;             ///< mean over requests with >= 2 tokens
  double tpot_p50_ns = 0.0, tpot_p99_ns = 0.0;
  Nanoseconds e2e_p50_ns = 0, e2e_p90_ns = 0, e2e_p99_ns = 0;
  /// Fills the aggregates from `requests` over a run of `simulated_ns`.
  void summarise(Nanoseconds simulated_ns);
};

/// Fast-tier slot bytes by the catalog kind of the blocks holding them:
/// kv = kind "kv_page"; other = no catalog entry, empty kind, "io",
/// "activation"; weights = every other kind (weight, expert, embedding, ...).
struct OccupancySample {
  Nanoseconds time_ns = 0;
  ByteCount weights_bytes = 0;
  ByteCount kv_bytes = 0;
  ByteCount other_bytes = 0;
  ByteCount total_bytes() const { return weights_bytes + kv_bytes + other_bytes; }
};

struct OccupancyMetrics {
  Nanoseconds sample_ns = 0;              ///< sampling period (0 = not sampled)
  std::vector<OccupancySample> samples;   ///< at 0, sample_ns, 2·sample_ns, ... (state before events at that ns), then the end state at simulated_ns
  OccupancySample peak;                   ///< the split at the moment the total peaked (exact, not sampled)
  ByteCount peak_weights_bytes = 0;       ///< each kind's own peak
  ByteCount peak_kv_bytes = 0;
  ByteCount peak_other_bytes = 0;
};

/// The out-of-memory point of KV growth: the first KV append (a write to a
/// block of catalog kind "kv_page") that the fast tier could not admit --
/// FastTier::begin_fetch answered bypass because every byte it could free is
/// pinned, in use (KV pages of running requests when they are held
/// resident) or in flight, or the page could never fit beside the pinned
/// blocks. The append is then written through to the backing tier.
struct OutOfMemoryPoint {
  bool reached = false;
  Nanoseconds time_ns = 0;                 ///< engine time the append issued
  std::uint64_t request_id = 0;
  std::int32_t token_index = -1;
  BlockId block_id = 0;
  ByteCount kv_bytes = 0;                  ///< KV slot bytes in the fast tier then
  ByteCount reserved_bytes = 0;            ///< all slot bytes then
  ByteCount pinned_bytes = 0;
};

/// Everything one policy run reports.
struct RunMetrics {
  AccessCounters total;
  LatencyHistogram latency;        ///< per access, issue to data ready, ns
  Nanoseconds simulated_ns = 0;    ///< engine time at the end of the run (0 on the cache-only path)
  Nanoseconds window_ns = 0;       ///< width of each time-series window
  std::vector<MetricsWindow> windows;
  ServingMetrics serving;          ///< event engine, traces with request ids; empty otherwise
  OccupancyMetrics occupancy;      ///< event engine only
  OutOfMemoryPoint out_of_memory;  ///< event engine only
};

}  // namespace flashsim
