// What the event engine can tell an observer as it runs: each access's
// decision and completion, each copy over a link, compute between accesses,
// blocks leaving the fast tier, prefetches and the fast tier's occupancy.
// For tools that need per-event data the results do not keep (the
// timeline, sim/report/timeline.h). Every hook has a no-op default; a run
// without an observer (run_engine of engine.h) pays one null test per hook.
//
// Times are engine ns (engine_detail.h: 0 = the earliest record's time_ns).
// Hooks come in event order (non-decreasing now_ns), except that a copy and
// an access completion are reported when they end, with their start.
#pragma once
#include <cstdint>

#include "sim/cache/tier_session.h"
#include "sim/core/units.h"
#include "sim/engine/engine.h"
#include "traces/access_record.h"

namespace flashsim {

struct EngineDetail;

/// An access as the fast tier decided it.
struct ObservedAccess {
  std::uint64_t record = 0;      ///< position in the trace (unique per access; pairs with on_access_done)
  std::uint32_t stream_id = 0;   ///< the record's stream_id
  BlockId block = 0;             ///< the record's block_id
  ByteCount bytes = 0;           ///< the record's bytes
  AccessKind kind = AccessKind::hit;
  Nanoseconds issue_ns = 0;
};

/// One hop of a copy toward tiers[0]: over tiers[from_tier].link_to_faster
/// into tiers[from_tier − 1].
struct ObservedCopy {
  BlockId block = 0;
  ByteCount bytes = 0;
  std::uint32_t from_tier = 1;
  bool prefetch = false;  ///< a prefetcher asked for it (nobody waited when it started)
  bool bypass = false;    ///< tiers[0] does not keep it (bypass or KV write-through)
  /// fifo link: when the link took it (after the transfers before it) to
  /// its end, latency included; fair link: from submit (its latency is
  /// waited there) to completion, sharing the bandwidth meanwhile.
  Nanoseconds start_ns = 0, end_ns = 0;
};

/// Why a block left the fast tier.
enum class DepartureCause : std::uint8_t {
  eviction,            ///< made room for an access or a prefetch (or a size change dropped it)
  prefetcher_evicted,  ///< IPrefetchActions::evict
  request_ended,       ///< its request's KV pages freed
};

class IEngineObserver {
 public:
  virtual ~IEngineObserver() = default;
  /// Access `a` was decided at a.issue_ns (before its copy, if any, starts).
  virtual void on_access(const ObservedAccess& a) { (void)a; }
  /// Access `record` completed at done_ns; `stalled`: its whole latency is
  /// stall (a miss, delayed hit, bypass, write allocation or write-through).
  virtual void on_access_done(std::uint64_t record, Nanoseconds done_ns, bool stalled) {
    (void)record, (void)done_ns, (void)stalled;
  }
  /// Closed loop: stream `stream_id` computes over [start_ns, end_ns)
  /// before its next access issues (the record's compute_ns, else gap_ns).
  virtual void on_compute(std::uint32_t stream_id, Nanoseconds start_ns, Nanoseconds end_ns) {
    (void)stream_id, (void)start_ns, (void)end_ns;
  }
  /// A hop of a copy finished (reported at c.end_ns).
  virtual void on_copy(const ObservedCopy& c) { (void)c; }
  /// Block `block` (`bytes` of slot) left tiers[0] at now_ns; `dirty`: it
  /// is written back (D2H; the engine gives that no time, engine_detail.h).
  virtual void on_departure(Nanoseconds now_ns, BlockId block, ByteCount bytes, bool dirty, DepartureCause cause) {
    (void)now_ns, (void)block, (void)bytes, (void)dirty, (void)cause;
  }
  /// A prefetcher's request for `block` was issued at now_ns (its copy follows).
  virtual void on_prefetch(Nanoseconds now_ns, BlockId block, ByteCount bytes) {
    (void)now_ns, (void)block, (void)bytes;
  }
  /// tiers[0]'s reserved slot bytes after a decision changed them (may
  /// repeat the last value).
  virtual void on_occupancy(Nanoseconds now_ns, ByteCount reserved_bytes) { (void)now_ns, (void)reserved_bytes; }
};

/// run_engine (engine_detail.h) with `observer` (may be null) told every
/// event above. Throws as run_engine, and whatever the observer throws.
EngineResult run_engine(ITraceSource& trace, const EngineConfig& config, EngineDetail* detail,
                        IEngineObserver* observer);

}  // namespace flashsim
