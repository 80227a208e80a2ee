// run_cache_only (sim/cache/cache_only.h): the access protocol with nothing
// around it. Lean on purpose: records are read in place when the source
// lends them (no copy), and a chunk of them is numbered first (the
// table lookups are independent, so the core overlaps their cache misses),
// then each access is one TierSession::access, with the block's tier entry
// prefetched a few records ahead.
//
// Memory: the session's per-block record and tier entry, the policy's own
// per-block metadata, the id table; for offline policies without a
// precomputed next use, 8 bytes per record (next_use_in_memory, traces/next_use.h).
#include <string>
#include <vector>

#include "sim/cache/cache_only.h"
#include "sim/cache/tier_session.h"
#include "sim/core/errors.h"
#include "traces/next_use.h"

namespace flashsim {
namespace {

// Records per pass: small enough that a chunk (about 100 bytes a record)
// stays in a core's L2 cache between its numbering pass and the replay.
constexpr std::size_t kChunkRecords = 4 * 1024;
// How many records ahead the replay prefetches a block's state, and the
// numbering its id (a lookup is a few ns when cached: hints go further ahead).
constexpr std::size_t kPrefetchAhead = 8;
constexpr std::size_t kNeighboursAhead = 4;  // the policy's second hint (TierSession::prefetch_neighbours)
constexpr std::size_t kNumberAhead = 48;

}  // namespace

RunMetrics run_cache_only(ITraceSource& trace, const CacheConfig& cache, CacheOnlyTier* tier) {
  const TraceMeta& meta = trace.meta();
  TierSessionOptions options;
  options.prefetches = false;  // the cache-only path runs no prefetcher
  TierSession session(cache, meta, options);
  std::vector<std::uint64_t> computed_next_use;
  const bool next_use_from_trace = meta.has_next_use;
  const bool compute = session.needs_next_use() && !next_use_from_trace;
  if (compute) computed_next_use = next_use_in_memory(trace);

  RunMetrics metrics;
  AccessCounters& c = metrics.total;
  const std::size_t chunk_records = buffer_records_for(trace.meta(), kChunkRecords);
  std::vector<AccessRecord> own;  // for a source that cannot lend its records
  std::vector<BlockIndex> chunk_index(chunk_records);
  std::uint64_t i = 0;
  trace.rewind();
  for (std::span<const AccessRecord> chunk; !(chunk = next_records(trace, own, chunk_records)).empty();) {
    const std::size_t n = chunk.size();
    for (std::size_t k = 0; k < n; ++k) {
      if (k + kNumberAhead < n) session.prefetch_number(chunk[k + kNumberAhead].block_id);
      if (chunk[k].bytes == 0) {
        throw InputError("trace '" + meta.source + "', record " + std::to_string(i + k) + ": bytes must be > 0");
      }
      chunk_index[k] = session.number(chunk[k].block_id);
    }
    for (std::size_t k = 0; k < n; ++k, ++i) {
      if (k + kPrefetchAhead < n) session.prefetch_block(chunk_index[k + kPrefetchAhead]);
      if (k + kNeighboursAhead < n) session.prefetch_neighbours(chunk_index[k + kNeighboursAhead]);
      const AccessRecord& r = chunk[k];
      PolicyAccess a;
      a.now_ns = r.time_ns;
      a.block = chunk_index[k];
      a.bytes = r.bytes;
      a.access_index = i;
      a.next_use_index = next_use_from_trace ? r.next_use_index
                         : compute             ? computed_next_use[i]
                                               : kNeverAccessedAgain;
      a.op = r.op;
      if (session.access(a, TierSession::kNoRequestIndex, c) == AccessKind::miss) session.arrived(a);
    }
  }
  if (tier != nullptr) {
    const FastTier& t = session.tier();
    tier->pinned_bytes = t.pinned_bytes();
    tier->slot_reserved_peak_bytes = t.peak_reserved_bytes();
    tier->fragmentation_evictions = t.counters().fragmentation_evictions;
    t.report("tier.fast", tier->components);
    session.report_experts("tier.fast", tier->components);
  }
  return metrics;
}

}  // namespace flashsim
