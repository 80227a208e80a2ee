// The GPU replay driver: runs a trace on the H200 with the simulator's own
// FastTier (sim/cache/fast_tier.h), eviction policy and prefetcher objects
// deciding every access, so a policy's hit ratio and stall can be checked
// on hardware.
//
// The decisions are the access protocol's (sim/cache/tier_session.h), made
// by the CUDA-free ReplayDriver (sim/engine/gpu_replay/replay_driver.h) that tests also
// drive through a fake backend; this file is its CUDA backend. Per access i
// of the trace, in trace order, on one compute stream:
//   1. throttle: the host waits until access i - run_ahead has finished on
//      the GPU (cudaEventSynchronize), then marks prefetches whose copies
//      have completed as arrived (TierSession::arrived);
//   2. decide (host time measured: ReplayRun::decision_ns): TierSession::access
//      -- hit, delayed hit, miss (the policy picks victims), bypass, or a
//      KV write allocation / write-through;
//   3. issue: a miss is a cudaMemcpyAsync from the host store into the
//      block's slot of the device pool (slot offset = the allocator's) on a
//      copy stream, after any fence on reused space (the last consumer of an
//      evicted block must have finished); a bypass copies into a staging
//      buffer; the compute stream waits on the copy's event, then the
//      consume kernel (kernels/replay_kernels.h) reads every byte (or does a
//      bf16 GEMV), stamps start/end with %globaltimer, checksums the data
//      and holds the SM until the access's compute_ns (the trace's, or the
//      scenario's gap when the trace has none) has passed on the GPU clock.
//      A write allocation launches a kernel writing the block's pattern
//      (pattern_write.h) into its slot instead of the copy, so checksums
//      and write-backs carry the host store's bytes; one the tier cannot
//      admit is written into a staging buffer and through to the host (D2H);
//   4. then each prefetcher's on_access, with this driver as IFastTierView /
//      IPrefetchActions. As in the engine, a hit or write allocation
//      completes before the prefetchers run and a demand fetch or delayed
//      hit after them (its block, in flight in the engine, cannot be
//      evicted by them); the last access of a request frees the request's
//      KV pages (dropped, not written back), and with kv_resident the pages
//      are held in use until then.
//   A dirty block leaving the tier (evicted, or invalidated by a size
//   change) is written back: a D2H cudaMemcpyAsync of its slot into the
//   host store after its last consumer, which any reuse of the slot and
//   any later copy of the block wait for (counted in bytes_written_back as
//   the engine counts it: the slot's bytes).
//   A demand-fetched block is marked arrived right after its consumer is
//   enqueued: in closed-loop issue the next access starts after this one
//   completed, and stream order guarantees the copy finished by then.
//   Prefetched blocks stay in flight until the host sees their copy event
//   complete, so whether a prefetch was timely is the hardware's answer.
//
// Timing (all GPU time, ns, from the first consume kernel's start):
//   latency of access i = start_i - end_{i-1} (issue = completion of the
//   previous access in closed loop; the first access has latency 0);
//   stall = that latency for misses and delayed hits, 0 for hits (a hit's
//   gap is launch overhead, not waiting for data); simulated_ns = the span
//   of the run. link_busy_ns per window from the copies' CUDA events.
//
// Equality with the engine: for demand-only policies on a trace the engine
// issues in trace order (one stream, closed loop, or open loop with no
// overlapping fetches) and the same allocator, the per-access hit/miss
// sequence and the counters hits, misses, bytes_fetched, evictions,
// write_allocations and bytes_written_back are the engine's. With
// prefetchers, when a prefetch arrives is the hardware's answer: hit vs
// delayed hit, and the decisions that depend on which blocks are still in
// flight, may differ.
//
// Limits: accesses of all streams are replayed in trace order on one
// compute stream (the trace's stream_id is kept in the access log only);
// open-loop issue (`issue: timestamp`) holds each consume kernel until
// its recorded time offset on the GPU clock; the whole trace is held in
// host memory (about 100 B per record).
#pragma once
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "hw/nvml/nvml_sampler.h"
#include "hw/replay/host_store.h"
#include "kernels/replay_kernels.h"
#include "sim/engine/engine.h"
#include "sim/metrics/metrics.h"
#include "sim/prefetch/i_prefetcher.h"

namespace flashsim::hw {

struct ReplayOptions {
  HostMemory backing = HostMemory::pinned;
  /// No fast tier: every access copies its block into a staging buffer
  /// (what a framework's offload without a cache does); no policy runs.
  bool no_cache = false;
  kernels::ConsumeMode kernel = kernels::ConsumeMode::read;
  unsigned copy_streams = 1;        ///< misses and prefetches round-robin over these (>= 1)
  std::size_t run_ahead = 8;        ///< accesses the host may issue ahead of the GPU (>= 1)
  /// Probe device memory before every access (the block's tag at its slot)
  /// and clear an evicted slot's tag: ReplayRun::device_resident. Slower
  /// (copies then wait for compute); for tests.
  bool verify = false;
  /// Hold each access until its recorded time_ns (relative to the first
  /// record) on the GPU clock: the host-side gaps replayed as recorded.
  bool replay_gaps = false;
  /// L2 mode: the fast tier is the persisting L2 carve-out. Every block is
  /// first copied to an HBM backing buffer (the backing tier becomes HBM);
  /// the device pool (the scenario's capacity, at most the persisting
  /// maximum, 37.5 MiB on the H200) is a staging region covered by a stream
  /// access-policy window (hitRatio 1, hit persisting, miss streaming) with
  /// cudaLimitPersistingL2CacheSize = its size; misses are D2D copies into
  /// it, bypasses read HBM directly, the kernel uses L2-cached loads. The
  /// limit is restored and the persisting lines reset afterwards.
  bool l2_mode = false;
  /// L2 mode only: set the persisting limit and the window (false: the same
  /// staging region without them, the baseline the window is measured against).
  bool l2_window = true;
  /// PrefetcherRegistry name replacing the configuration's prefetchers;
  /// impl empty = EngineConfig::prefetchers, all of them in order, built
  /// with the engine's PrefetcherContext (meta, capacity, seed).
  ComponentChoice prefetcher;
  std::filesystem::path access_log; ///< the replay's own trace (.h5/.csv); empty = none
  bool nvml = true;                 ///< sample NVML every 100 ms
  int device = 0;
  std::uint64_t max_accesses = 0;   ///< replay only the first N accesses (0 = all)
};

struct ReplayRun {
  EngineResult result;              ///< the simulator's metrics, measured on the GPU
  std::string allocator;            ///< the slot allocator used (first_fit replaces "bytes", which places nothing)
  std::vector<AccessOutcome> outcomes;    ///< per access, as the fast tier classified it
  /// Verify mode: per access, 1 when device memory at the slot table's
  /// place held the block's tag before the access (and the tier had the
  /// block resident), 0 otherwise; empty without verify.
  std::vector<std::uint8_t> device_resident;
  std::uint64_t checksum_mismatches = 0;  ///< consume checksums that differ from the host block's
  std::uint64_t resident_checked = 0;     ///< resident slots checksummed after the run
  std::uint64_t resident_mismatches = 0;
  std::uint64_t write_backs = 0;          ///< D2H copies of dirty blocks leaving the tier
  // --- policy cost (host) ---
  std::uint64_t decisions = 0;            ///< accesses + prefetch arrivals decided
  /// Host time inside FastTier/policy/prefetcher calls, less the CUDA calls
  /// a prefetcher's actions make (the copies it asks for).
  Nanoseconds decision_ns_total = 0;
  LatencyHistogram decision_ns;           ///< per access
  /// The same demand decisions replayed on a fresh tier before the GPU run,
  /// with no CUDA call in between (prefetchers not included): the policy's
  /// own cost without the cache pollution of the driver's calls.
  LatencyHistogram decision_isolated_ns;
  Nanoseconds decision_isolated_ns_total = 0;  ///< wall time of that loop (timer reads included)
  double host_issue_seconds = 0.0;        ///< host wall time of the whole issue loop
  // --- tokens (token_index / request_id changes, trace order) ---
  std::vector<Nanoseconds> token_start_ns;       ///< GPU time of each token's first access
  std::vector<std::uint8_t> token_is_decode;
  double decode_token_ns = 0.0;           ///< mean gap between successive decode token starts (0 if < 2)
  double recorded_decode_token_ns = 0.0;  ///< the same from the trace's time_ns
  double tokens_per_second = 0.0;         ///< tokens / simulated (GPU) seconds
  std::vector<NvmlSample> nvml;
  std::string nvml_status;                ///< "ok" or why not sampled
  ByteCount host_store_bytes = 0;
  ByteCount device_pool_bytes = 0;
  std::uint64_t gemv_rows = 0;
};

/// Replays `trace` under `config` (its cache: capacity, eviction policy,
/// allocator, pins; its issue mode, gap and decision clock; window_ns for
/// the time series) on device options.device. Throws InputError for a bad
/// configuration (unknown policy/prefetcher, capacity larger than the
/// device's free memory) and Error for CUDA failures (naming the call).
ReplayRun replay_trace(ITraceSource& trace, const EngineConfig& config, const ReplayOptions& options);

}  // namespace flashsim::hw
