// What the event engine measures beyond EngineResult (sim/engine/engine.h):
// L2, TLB, per-link and per-tier counters. Returned through the overload of
// run_engine below, so engine.h's EngineResult stays as fixed.
//
// The event engine's model, in one place (engine.cpp implements it):
//   * Time. Integer ns; engine time 0 is the earliest record's time_ns.
//     Streams (stream_id) issue concurrently. IssueMode::timestamp issues
//     each record at time_ns (open loop); IssueMode::closed issues a
//     stream's first record at its time_ns and each later one when the
//     previous completes plus that previous record's compute_ns (gap_ns
//     when compute_ns == 0). Events at the same ns run in scheduling order.
//   * An access of block b with recorded bytes n, issued at t:
//       pre = TLB (miss penalty if the page of its first byte misses; the
//             address is the record's, else a synthetic one: blocks laid
//             out back to back in first-appearance order, each taking
//             its first access's bytes rounded up to 256 B, plus the
//             record's offset)
//           + contention (round(ns_per_mib × max(0, reserved − baseline) / MiB),
//             reserved = fast-tier slot bytes at issue)
//           + L2 (records with an address, L2 enabled: sim/engine/l2_model.h)
//     hit (b resident with size n): done = t + pre + tiers[0].hit_latency.
//     delayed hit (b in flight): done = max(arrival, t + pre) + tiers[0].hit_latency.
//     miss: FastTier::begin_fetch into tiers[0] (admitted or bypass); the
//       source is the first intermediate tier holding b with size n, else
//       the backing tier; each intermediate tier passed on the way is
//       filled (inclusive on fill; not enforced on eviction: no
//       back-invalidation) unless tiers[0] bypassed. The copy leaves the
//       source at t + pre + miss_penalty + tiers[src].hit_latency and moves
//       store-and-forward: hop i→i−1 over tiers[i].link_to_faster starts
//       when the whole block has reached tier i; a block being copied out
//       of a tier is in use there (not evictable). done = arrival in
//       tiers[0] + tiers[0].hit_latency. A bypassed block is copied the
//       same way and dropped after use.
//     A resident block whose size differs from n is dropped first
//     (FastTier::invalidate, not an eviction) and the access is a miss.
//     latency = done − t; stall = latency − tiers[0].hit_latency.
//   * Metrics (sim/metrics/metrics.h): an access counts in the window of
//     its issue time; bytes_fetched counts the recorded bytes of every miss
//     (bypasses included); evictions are the fast tier's. A window's
//     occupancy is the fast tier's reserved slot bytes at its end, its
//     link_busy_ns the time tiers[1]'s link carried data. With window_ns
//     == 0 there is one window and RunMetrics::window_ns = simulated_ns.
//   * Pinning: CacheConfig::pinned blocks (by id, or by layer/kind through
//     the trace's catalog) are fetched on first access and never evicted;
//     the policy is told the capacity less their catalog bytes. They are
//     also the L2's persisting blocks.
//   * Offline policies: next use from the trace when precomputed, else
//     computed in the first pass (8 bytes per record, in memory).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "sim/engine/engine.h"
#include "sim/engine/l2_model.h"

namespace flashsim {

struct TlbStats {
  std::uint64_t hits = 0;
  std::uint64_t misses = 0;
};

/// tiers[i].link_to_faster, i >= 1: carries blocks from tier i to tier i−1.
struct LinkStats {
  std::string from_tier;
  std::string to_tier;
  std::uint64_t transfers = 0;
  ByteCount bytes = 0;
  Nanoseconds busy_ns = 0;  ///< time data flowed
};

struct TierStats {
  std::string name;
  std::uint64_t served = 0;  ///< misses of tiers[0] whose copy came from this tier (0 for tiers[0])
  std::uint64_t evictions = 0;
  ByteCount bytes_evicted = 0;
  std::uint64_t bypasses = 0;
  ByteCount peak_reserved_bytes = 0;
};

struct EngineDetail {
  L2Stats l2;
  TlbStats tlb;
  std::vector<LinkStats> links;  ///< links[i−1] = tiers[i].link_to_faster
  std::vector<TierStats> tiers;  ///< one per tier; the backing tier only has `served`
};

/// run_engine (engine.h) that also fills `detail` when not null.
EngineResult run_engine(ITraceSource& trace, const EngineConfig& config, EngineDetail* detail);

}  // namespace flashsim
