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
//           + L2 (records with an address, L2 enabled: sim/engine/event/l2_model.h)
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
//   * Prefetch (EngineConfig::prefetchers): after each access is classified
//     and its demand fetch started, every prefetcher's on_access runs with
//     a view of tiers[0] by catalog BlockId (blocks the trace has not reached
//     yet are numbered on first mention, sized from TraceMeta::catalog).
//     A prefetch is FastTier::begin_fetch with PolicyAccess::is_prefetch
//     (next use unknown: kNeverAccessedAgain), then the same copy as a miss
//     (miss penalty, source tier, links), with nobody waiting; an access
//     finding it in flight is a delayed hit. Prefetcher evict() is
//     FastTier::evict_explicit, counted as an eviction. Accuracy, coverage
//     and timeliness: sim/metrics/metrics.h.
//   * Decisions are the access protocol's (sim/cache/tier_session.h); the
//     engine adds time. KV pages (catalog kind "kv_page"): a write to a page
//     never held nor accessed before allocates it in place (no transfer: the
//     append is produced on the GPU). A write makes its block dirty wherever
//     the block holds space (a hit, a delayed hit, an admitted miss); evicting
//     it counts its slot bytes in bytes_written_back (a D2H write-back,
//     which takes no simulated time: D2H uses the other direction of a
//     full-duplex PCIe link and the engine models H2D only); a later read
//     fetches it like any block. With EngineConfig::kv_resident a page is
//     held in use from its allocation until its request ends. When a
//     request's last access completes its pages are dropped
//     (FastTier::invalidate: freed, not evictions, not written back). An
//     append the tier cannot admit is the out-of-memory point
//     (metrics.h); it is written through, timed as a copy over the links.
//   * Requests (records with request_id): arrival, token completions and
//     end (metrics.h, "Serving"); bandwidth-reservation admission
//     (engine.h, ReservationSpec) holds a stream whose next record belongs
//     to a request not yet granted.
//   * Segment locking (EngineConfig::segment_shares): every link shares its
//     bandwidth by weight between segment classes (sim/engine/event/link.h); a
//     block's class is its catalog segment.
//   * Occupancy by kind: slot bytes of tiers[0] by the catalog kind of the
//     blocks holding them (metrics.h, OccupancySample), changed at each
//     admission and departure; sampled every occupancy_sample_ns.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "sim/engine/engine.h"
#include "sim/engine/event/l2_model.h"
#include "sim/prefetch/prefetcher_stats.h"

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

/// What one configured prefetcher reported about itself (IPrefetcherReport).
struct PrefetcherReport {
  std::string name;
  bool reported = false;  ///< false when the prefetcher does not report
  PrefetcherStats stats;
};

struct EngineDetail {
  L2Stats l2;
  TlbStats tlb;
  std::vector<LinkStats> links;  ///< links[i−1] = tiers[i].link_to_faster
  std::vector<TierStats> tiers;  ///< one per tier; the backing tier only has `served`
  std::vector<PrefetcherReport> prefetchers;  ///< in EngineConfig::prefetchers order
};

/// run_engine (engine.h) that also fills `detail` when not null.
EngineResult run_engine(ITraceSource& trace, const EngineConfig& config, EngineDetail* detail);

}  // namespace flashsim
