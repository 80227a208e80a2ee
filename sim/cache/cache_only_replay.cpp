// run_cache_only (sim/engine/engine.h): the fast tier's policy alone, no
// time, no links, no slot allocator: a byte capacity with variable-size
// blocks. Used for sweeps, miss-ratio curves and the speed benchmarks, so
// the loop is lean: one table lookup (BlockId -> dense BlockIndex) and one
// virtual call per access, per-block state in a vector.
//
// Definitions (the same as the event engine's where both apply):
//   hit      the block is resident with the size this access records;
//   miss     otherwise; policy.on_miss(a), then policy.evict() until
//            used + bytes <= capacity, then policy.on_insert(a);
//   bypass   a miss that is not cached: its bytes exceed capacity less the
//            pinned bytes resident (it could never fit; no eviction is made),
//            or the policy had no victim left. A bypass still moves its bytes
//            over the link, so bytes_fetched counts every miss's bytes
//            (demand fetches; there is no prefetch here).
//   size change  a resident block accessed with a different size: the old
//            copy is dropped (policy.remove; not counted as an eviction) and
//            the access is a miss of the new size. A block's size is the
//            size recorded by the access that inserted it.
//   pinning  blocks named in CacheConfig::pinned (by id, or by layer/kind
//            through the trace's catalog) never enter the policy: they are
//            fetched on their first access (a miss like any other), count
//            against the capacity and are never evicted. The policy is told
//            capacity less the catalog bytes of the pinned blocks; pinning
//            by layer or kind needs a catalog (InputError otherwise), and
//            pinned catalog bytes above the capacity are an InputError.
// Decision clock: the record's time_ns (the cache-only path has no engine
// clock). RunMetrics::windows stays empty, simulated_ns 0, latency empty.
//
// Offline policies (needs_next_use()): when the trace has no precomputed
// next use, one extra forward pass computes it in memory: next_use[i] for
// every record, 8 bytes per record (160 MB for 20 M records), plus 8 bytes
// per distinct block while it is computed. Long traces should have next use
// precomputed into the trace instead (traces/).
//
// Memory otherwise: 8 bytes per distinct block here, the policy's own
// per-block metadata, and the id table (4 bytes per id below 2^24 that the
// trace's ids span, as touched pages; a hash map entry per larger id).
#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "sim/cache/pinning.h"
#include "sim/core/hash_map.h"
#include "sim/core/errors.h"
#include "sim/engine/engine.h"
#include "sim/policy/i_eviction_policy.h"

namespace flashsim {
namespace {

// Records per read: small enough that a chunk (about 100 bytes a record)
// stays in a core's L2 cache between the reader filling it and the replay.
constexpr std::size_t kChunkRecords = 4 * 1024;
// How many records ahead the replay prefetches a block's slot.
constexpr std::size_t kPrefetchAhead = 8;


/// The driver's state of one block in 8 bytes (so that the table stays
/// small in cache): resident bytes (0 = absent) and the pinned bit.
struct BlockSlot {
  static constexpr ByteCount kPinnedBit = ByteCount{1} << 63;
  ByteCount word = 0;
  ByteCount resident_bytes() const { return word & ~kPinnedBit; }
  bool pinned() const { return (word & kPinnedBit) != 0; }
  void set_resident_bytes(ByteCount bytes) { word = (word & kPinnedBit) | bytes; }
};

/// Dense BlockId -> BlockIndex numbering in order of first appearance.
/// Ids below kDirectIds (most traces number their blocks densely) go
/// through a direct table of index + 1 (0 = unseen), obtained from calloc so
/// that only the pages ids actually touch become resident (4 bytes per id
/// of the touched range); other ids through a hash map.
class BlockNumbering {
 public:
  BlockNumbering(const PinnedSet& pins, std::size_t hint)
      : pins_(pins), direct_(static_cast<BlockIndex*>(std::calloc(kDirectIds, sizeof(BlockIndex)))) {
    if (direct_ == nullptr) throw Error("out of memory for the block numbering table");
    slots_.reserve(hint);
  }
  ~BlockNumbering() { std::free(direct_); }
  BlockNumbering(const BlockNumbering&) = delete;
  BlockNumbering& operator=(const BlockNumbering&) = delete;

  BlockIndex index_of(BlockId id) {
    if (id < kDirectIds) {
      BlockIndex& d = direct_[id];
      if (d == 0) d = add(id) + 1;
      return d - 1;
    }
    auto [it, added] = ids_.try_emplace(id, 0);
    if (added) it->second = add(id);
    return it->second;
  }

  std::vector<BlockSlot>& slots() { return slots_; }

 private:
  static constexpr BlockId kDirectIds = BlockId{1} << 24;  // 64 MiB of address space
  static constexpr std::size_t kMaxBlocks = 0xFFFFFFFEu;  // kNoBlock and index + 1 stay representable

  BlockIndex add(BlockId id) {
    if (slots_.size() == kMaxBlocks) throw InputError("trace has more than 2^32 - 2 distinct blocks");
    const bool pinned = !pins_.ids.empty() && pins_.ids.contains(id);
    slots_.push_back(BlockSlot{pinned ? BlockSlot::kPinnedBit : 0});
    return static_cast<BlockIndex>(slots_.size() - 1);
  }

  const PinnedSet& pins_;
  BlockIndex* direct_;
  HashMap<BlockId, BlockIndex> ids_;
  std::vector<BlockSlot> slots_;
};

std::string record_where(const TraceMeta& meta, std::uint64_t index) {
  return "trace '" + meta.source + "', record " + std::to_string(index);
}

/// next_use[i] = index of the next access of record i's block (kNeverAccessedAgain if none).
std::vector<std::uint64_t> compute_next_use(ITraceSource& trace, BlockNumbering& numbering) {
  std::vector<std::uint64_t> next_use;
  next_use.reserve(trace.meta().record_count);
  std::vector<std::uint64_t> last;  // per BlockIndex: last record index seen
  std::vector<AccessRecord> chunk(kChunkRecords);
  std::uint64_t i = 0;
  trace.rewind();
  for (std::size_t n; (n = trace.read(chunk)) > 0;) {
    for (std::size_t k = 0; k < n; ++k, ++i) {
      const BlockIndex b = numbering.index_of(chunk[k].block_id);
      if (b >= last.size()) last.resize(std::max<std::size_t>(b + 1, last.size() * 2), kNeverAccessedAgain);
      if (last[b] != kNeverAccessedAgain) next_use[last[b]] = i;
      last[b] = i;
      next_use.push_back(kNeverAccessedAgain);
    }
  }
  return next_use;
}

}  // namespace

RunMetrics run_cache_only(ITraceSource& trace, const CacheConfig& cache) {
  const TraceMeta& meta = trace.meta();
  if (cache.capacity_bytes == 0) throw InputError("cache.capacity_bytes must be > 0");
  const PinnedSet pins = resolve_pins(cache.pinned, meta, cache.capacity_bytes);

  PolicyContext context;
  context.capacity_bytes = cache.capacity_bytes - pins.catalog_bytes;
  context.block_count = meta.catalog.size();
  const std::unique_ptr<IEvictionPolicy> policy_owner =
      PolicyRegistry::instance().create(cache.eviction.impl, cache.eviction.params, context);
  IEvictionPolicy& policy = *policy_owner;

  BlockNumbering numbering(pins, meta.catalog.size());
  std::vector<std::uint64_t> computed_next_use;
  const bool next_use_from_trace = meta.has_next_use;
  const bool compute = policy.needs_next_use() && !next_use_from_trace;
  if (compute) computed_next_use = compute_next_use(trace, numbering);

  RunMetrics metrics;
  AccessCounters& c = metrics.total;
  const ByteCount capacity = cache.capacity_bytes;
  ByteCount used = 0;         // resident bytes, pinned included
  ByteCount pinned_used = 0;  // resident bytes of pinned blocks
  const EvictionFilter allow_all{};

  std::vector<AccessRecord> chunk(kChunkRecords);
  std::vector<BlockIndex> chunk_index(kChunkRecords);
  std::uint64_t i = 0;
  trace.rewind();
  for (std::size_t n; (n = trace.read(chunk)) > 0;) {
    // Number the whole chunk first: the table lookups are independent, so
    // the core overlaps their cache misses; the replay below then prefetches
    // each block's slot a few records ahead.
    for (std::size_t k = 0; k < n; ++k) {
      const AccessRecord& r = chunk[k];
      if (r.bytes == 0 || r.bytes >= BlockSlot::kPinnedBit) {
        throw InputError(record_where(meta, i + k) + ": bytes must be > 0 and < 2^63, not " +
                         std::to_string(r.bytes));
      }
      chunk_index[k] = numbering.index_of(r.block_id);
    }
    BlockSlot* const slots = numbering.slots().data();
    for (std::size_t k = 0; k < n; ++k, ++i) {
      if (k + kPrefetchAhead < n) __builtin_prefetch(&slots[chunk_index[k + kPrefetchAhead]], 1);
      const AccessRecord& r = chunk[k];
      const BlockIndex b = chunk_index[k];
      PolicyAccess a;
      a.now_ns = r.time_ns;
      a.block = b;
      a.bytes = r.bytes;
      a.access_index = i;
      a.next_use_index = next_use_from_trace ? r.next_use_index
                         : compute             ? computed_next_use[i]
                                               : kNeverAccessedAgain;
      a.op = r.op;

      ++c.accesses;
      c.bytes_accessed += r.bytes;
      BlockSlot& s = slots[b];
      const ByteCount resident = s.resident_bytes();
      if (resident == r.bytes) {
        ++c.hits;
        c.bytes_hit += r.bytes;
        if (!s.pinned()) policy.on_hit(a);
        continue;
      }
      if (resident != 0) {  // size changed: drop the old copy
        if (s.pinned()) pinned_used -= resident;
        else policy.remove(b);
        used -= resident;
        s.set_resident_bytes(0);
      }
      ++c.misses;
      c.bytes_fetched += r.bytes;
      if (!s.pinned()) policy.on_miss(a);
      if (r.bytes > capacity - pinned_used) {
        ++c.bypasses;
        continue;
      }
      while (used + r.bytes > capacity) {
        const std::optional<BlockIndex> victim = policy.evict(a.now_ns, allow_all);
        if (!victim) break;
        BlockSlot& v = slots[*victim];
        const ByteCount victim_bytes = v.resident_bytes();
        if (*victim == b || victim_bytes == 0 || v.pinned()) {
          throw Error("policy '" + cache.eviction.impl + "' evicted block index " + std::to_string(*victim) +
                      ", which it does not hold (" + record_where(meta, i) + ")");
        }
        used -= victim_bytes;
        ++c.evictions;
        c.bytes_evicted += victim_bytes;
        v.set_resident_bytes(0);
      }
      if (used + r.bytes > capacity) {
        ++c.bypasses;
        continue;
      }
      s.set_resident_bytes(r.bytes);
      used += r.bytes;
      if (s.pinned()) pinned_used += r.bytes;
      else policy.on_insert(a);
    }
  }
  return metrics;
}

}  // namespace flashsim
