// The GPU replay's decisions, without CUDA: the trace held in memory, the
// access protocol (sim/cache/tier_session.h) deciding every access in trace
// order, the scenario's prefetchers, and an IReplayBackend doing what the
// decisions ask (copies, write-backs, fences, consume kernels). The CUDA
// backend is hw/replay/replay.cpp; tests drive the same code through a fake
// backend on machines without a GPU, so the replay's decisions are checked
// against the event engine in CI.
//
// Per access i, in trace order (hw/replay/replay.h states the timing):
//   1. backend.wait_access_done(i − run_ahead); prefetch copies the backend
//      reports finished are arrived() in the session (in issue order);
//   2. TierSession::access decides; every departure goes to
//      backend.departed (write-back of a dirty block, fence on its space);
//   3. a miss: backend.fetch into the block's slot; a delayed hit waits for
//      the copy in flight; the session is told the block arrived (stream
//      order guarantees it has by the time the consumer runs);
//      backend.consume runs the access's consumer;
//   4. as in the engine, a hit or write allocation completes before the
//      prefetchers run, a demand fetch or delayed hit after them (its block,
//      in flight in the engine, is held in use meanwhile); the last access
//      of a request ends the request (TierSession::end_request).
#pragma once
#include <chrono>
#include <cstdint>
#include <memory>
#include <vector>

#include "sim/cache/tier_session.h"
#include "sim/engine/engine.h"
#include "sim/metrics/metrics.h"
#include "sim/prefetch/i_prefetcher.h"
#include "traces/trace_source.h"

namespace flashsim::hw {

/// A backend's handle of one copy into the fast tier.
using CopyId = std::uint32_t;
inline constexpr CopyId kNoCopy = 0xFFFFFFFFu;

/// What the replay driver asks of the machine it runs on. Every call is in
/// trace order; a backend throws Error for a failure of its device.
class IReplayBackend {
 public:
  virtual ~IReplayBackend() = default;
  /// The host waits until access `index`'s consumer has finished (run-ahead throttle).
  virtual void wait_access_done(std::uint64_t index) = 0;
  /// Whether copy `id` has finished; with `wait`, returns once it has.
  virtual bool copy_done(CopyId id, bool wait) = 0;
  /// Block d.block left the tier while access `access` was decided: write
  /// it back when d.dirty, and keep its space d.slot from being reused
  /// before its last reader (and write-back) finished.
  virtual void departed(const Departure& d, std::uint64_t access) = 0;
  /// Starts copying `bytes` of block `block` from the backing tier into
  /// `slot` of the fast tier; nobody waits for a prefetch.
  virtual CopyId fetch(BlockIndex block, ByteCount bytes, const SlotRange& slot, bool prefetch) = 0;
  /// Runs access `index`'s consumer of record `r` (block `block`). Where
  /// its data is: hit, delayed_hit, miss, write_allocated -> in `slot`
  /// (after copy `wait` when it is not kNoCopy; write_allocated: the
  /// consumer writes it there); written_through -> written and sent to the
  /// backing tier; bypass -> copied into a staging buffer and read there.
  virtual void consume(std::uint64_t index, AccessKind kind, BlockIndex block, const AccessRecord& r,
                       const SlotRange& slot, CopyId wait) = 0;
};

struct ReplayDriverOptions {
  bool no_cache = false;           ///< no fast tier: every access is a bypass, no policy runs
  std::size_t run_ahead = 8;       ///< accesses the host may issue ahead of the device (>= 1)
  std::string allocator;           ///< slot allocator replacing the scenario's ("" = the scenario's)
  ComponentChoice prefetcher;      ///< replaces EngineConfig::prefetchers when impl is set
  std::uint64_t max_accesses = 0;  ///< replay only the first N accesses (0 = all)
};

/// One copy the driver asked for.
struct ReplayCopy {
  CopyId id = kNoCopy;
  BlockIndex block = 0;
  ByteCount bytes = 0;
  Nanoseconds decided_ns = 0;      ///< decision clock of the fetch decision
  std::uint64_t access_index = 0;  ///< the access whose decision issued it
  bool prefetch = false;
  bool arrived = false;            ///< the tier was told
};

class ReplayDriver final : private IPrefetchActions {
 public:
  /// Reads `trace` into memory (about 100 B per record), numbers blocks in
  /// trace order (then catalog blocks, which prefetchers may name) and
  /// requests, computes next use. Throws InputError for a trace without
  /// records or a record with bytes 0 (naming it), and what TierSession
  /// throws for a bad cache configuration.
  ReplayDriver(ITraceSource& trace, const EngineConfig& config, const ReplayDriverOptions& options);

  // ---- what the backend needs before the run ----
  const TraceMeta& meta() const { return meta_; }
  const std::vector<AccessRecord>& records() const { return records_; }
  BlockIndex block_of(std::size_t access) const { return record_index_[access]; }
  /// Per block: its id, and the most bytes any record or the catalog gives it (host store sizes).
  const std::vector<BlockId>& block_ids() const { return ids_; }
  const std::vector<ByteCount>& max_bytes() const { return max_bytes_; }
  /// The session (null with no_cache).
  const TierSession* session() const { return session_.get(); }
  ByteCount capacity_bytes() const { return options_.no_cache ? 0 : config_.cache.capacity_bytes; }
  std::string allocator() const;

  /// The same demand decisions on a fresh session with nothing in between:
  /// the policy's own cost (per access, ns) and the loop's wall time.
  void isolated_decisions(LatencyHistogram& per_access_ns, Nanoseconds& total_ns) const;

  /// Replays every access through `backend`. Call once.
  void run(IReplayBackend& backend);

  // ---- what the run decided ----
  const std::vector<AccessKind>& kinds() const { return kinds_; }
  /// Per access: slot bytes of dirty blocks its decisions made leave.
  const std::vector<ByteCount>& written_back_bytes() const { return written_back_bytes_; }
  /// Per access: the tier's reserved bytes after it.
  const std::vector<ByteCount>& occupancy() const { return occupancy_; }
  /// Counters over the whole run as the session counted them.
  const AccessCounters& totals() const { return totals_; }
  const std::vector<ReplayCopy>& copies() const { return copies_; }
  const OutOfMemoryPoint& oom() const { return oom_; }
  std::size_t oom_access() const { return oom_access_; }
  std::uint64_t decisions() const { return decisions_; }
  const LatencyHistogram& decision_ns() const { return decision_ns_; }
  Nanoseconds decision_ns_total() const { return decision_ns_total_; }
  static AccessOutcome outcome(AccessKind kind) { return outcome_of(kind); }

 private:
  using Clock = std::chrono::steady_clock;
  bool prefetch(BlockId id) override;
  bool evict(BlockId id) override;
  void poll_arrivals(bool wait_all);
  void departed(std::uint64_t access);
  void end_request_of(std::size_t access);
  Nanoseconds decision_now(const AccessRecord& r) const;
  Nanoseconds host_ns_since(Clock::time_point t) const {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t).count();
  }

  const EngineConfig& config_;
  ReplayDriverOptions options_;
  TraceMeta meta_;
  std::vector<AccessRecord> records_;
  std::vector<BlockIndex> record_index_;
  std::vector<std::uint64_t> next_use_;
  std::vector<BlockId> ids_;
  std::vector<ByteCount> max_bytes_;
  std::vector<std::uint32_t> request_of_;          // per access: dense request index or kNoRequestIndex
  std::vector<std::uint64_t> request_remaining_;   // per request: accesses not yet done
  std::unique_ptr<TierSession> session_;
  std::vector<std::unique_ptr<IPrefetcher>> prefetchers_;

  IReplayBackend* backend_ = nullptr;
  Clock::time_point origin_;
  std::uint64_t current_access_ = 0;
  Nanoseconds current_now_ = 0;
  AccessCounters totals_;
  std::vector<ReplayCopy> copies_;
  std::size_t first_unarrived_ = 0;
  std::vector<std::size_t> inflight_copy_;         // per block: index into copies_ + 1 (0 = none)
  std::vector<AccessKind> kinds_;
  std::vector<ByteCount> written_back_bytes_;
  std::vector<ByteCount> occupancy_;
  Nanoseconds backend_in_actions_ns_ = 0;          // host time of backend calls made inside prefetcher actions
  std::uint64_t decisions_ = 0;
  LatencyHistogram decision_ns_;
  Nanoseconds decision_ns_total_ = 0;
  OutOfMemoryPoint oom_;
  std::size_t oom_access_ = ~std::size_t{0};
};

}  // namespace flashsim::hw
