// The access protocol: every rule of the fast tier above FastTier, written
// once and called by the three drivers -- the event engine (sim/engine),
// the cache-only replay (sim/cache/cache_only.h) and the GPU replay (hw/).
// A driver keeps what is its own (the engine: time, links, TLB, L2; the
// replay: copies, fences, kernels) and asks the session for every decision.
//
// What the session owns:
//   * Tier construction from the scenario: pins resolved (sim/cache/pinning.h),
//     the policy told policy_capacity_bytes() (one rule, below), pinned
//     blocks pinned as they are numbered.
//   * Block numbering: BlockId -> dense BlockIndex in order of first sight
//     (number()), with the per-block record (id, kind, flags).
//   * The per-access decision (access()): hit, delayed hit, miss (admitted
//     or bypass), KV write allocation or write-through, and its bookkeeping
//     (flags, counters, departures).
//   * Arrivals (arrived()), prefetches and explicit evictions asked by
//     prefetchers (prefetch(), evict()), a request's end (end_request()),
//     and the prefetchers' view of the tier (view()).
//
// Rules, per access of block b with recorded bytes n and op:
//   hit          b resident or in use with size n (a block in use -- a KV page
//                held for its running request -- is a hit whatever n):
//                policy.on_hit; a write marks b dirty.
//   size change  b resident with another size: with SizeChange::refetch the
//                old copy leaves (a departure, not an eviction; written back
//                when dirty) and the access is a miss; with SizeChange::hit
//                it is a hit and b keeps its space.
//   ignore sizes CacheConfig::ignore_sizes: every access and prefetch counts
//                1 byte (capacity = blocks); for the cache-only path, the
//                drivers that move data refuse it.
//   delayed hit  b in flight: the driver waits for its arrival; a write
//                marks b dirty.
//   write alloc  b absent, op write, catalog kind "kv_page", never held nor
//                accessed before: space is taken and b is resident and dirty
//                at once (no transfer: the append is produced on the GPU).
//                Not admitted: written through (its bytes count as written
//                back) -- the out-of-memory point of metrics.h.
//   miss         otherwise: FastTier::begin_fetch (the policy picks victims);
//                admitted -> in flight until arrived(); a write marks b
//                dirty (its data is changed once it is there); bypass ->
//                served without caching.
//   Counters (AccessCounters, into the sink the driver passes): accesses,
//   bytes_accessed, hits, bytes_hit, delayed_hits, misses, bypasses,
//   bytes_fetched (every miss's recorded bytes, bypasses included; not write
//   allocations), write_allocations, evictions, bytes_evicted,
//   bytes_written_back (slot bytes of dirty departures; bytes of
//   write-throughs), prefetches, bytes_prefetched, prefetch_used_timely /
//   late / unused. Stall and latency are the driver's (they are time).
//
// Capacity rule (policy_capacity_bytes): the policy is told the tier's
// capacity less the catalog bytes of the pinned blocks, and never less than
// 1 byte (everything pinned: the policy can hold nothing a block needs).
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "sim/cache/cache_config.h"
#include "sim/cache/fast_tier.h"
#include "sim/cache/pinning.h"
#include "sim/cache/block_numbering.h"
#include "sim/metrics/metrics.h"
#include "sim/prefetch/i_prefetcher.h"
#include "traces/trace_source.h"

namespace flashsim {

/// The capacity a policy is told: capacity less pinned catalog bytes, at
/// least 1. Both arguments in bytes; pinned_bytes <= capacity_bytes
/// (resolve_pins checks it).
ByteCount policy_capacity_bytes(ByteCount capacity_bytes, ByteCount pinned_bytes);

/// Catalog kinds the session tells apart (occupancy by kind, KV rules).
enum class BlockKind : std::uint8_t { weights = 0, kv_page = 1, other = 2 };

/// What access() decided.
enum class AccessKind : std::uint8_t {
  hit,              ///< resident: use it now
  delayed_hit,      ///< in flight: wait for its arrival (arrived() by whoever completes the copy)
  miss,             ///< admitted: space reserved, b in flight; the driver copies it in, then arrived()
  bypass,           ///< not cached: the driver moves it without keeping it
  write_allocated,  ///< KV append allocated in place: resident and dirty now, no transfer
  written_through,  ///< KV append the tier could not admit: written to the backing tier
};

/// AccessOutcome (what prefetchers see) of a decision.
AccessOutcome outcome_of(AccessKind kind);

/// A block that left the tier during the last call (evicted, dropped for a
/// size change, freed at its request's end, evicted by a prefetcher).
struct Departure {
  BlockIndex block = 0;
  SlotRange slot;          ///< the space it held (already free in the tier)
  ByteCount bytes = 0;     ///< its bytes as admitted
  bool dirty = false;      ///< written while held: the driver writes it back (D2H)
};

struct TierSessionOptions {
  /// Slot allocator replacing CacheConfig::allocator ("" = the scenario's).
  /// The GPU replay places blocks in a real pool and uses first_fit for "bytes".
  std::string allocator;
  /// KV pages of a running request stay in use until end_request
  /// (EngineConfig::kv_resident); refused for a trace whose catalog has none.
  bool kv_resident = false;
  /// Keep each block's last access time for IFastTierView::last_access_ns.
  bool track_last_access = false;
  /// The driver moves the blocks' bytes (the event engine, the GPU replay):
  /// CacheConfig::ignore_sizes is then refused.
  bool moves_bytes = false;
  /// The driver calls prefetch() (it has prefetchers): every access then
  /// keeps its block's recorded size, the size a prefetch of a block the
  /// catalog does not size takes. Off, an access writes no per-block size
  /// (one cache line less an access at 1 M blocks) and prefetch() throws Error.
  bool prefetches = true;
};

class TierSession {
 public:
  /// Builds the fast tier for `cache` over the blocks of `meta` (catalog:
  /// sizes, kinds, pins). Throws InputError for capacity 0, unknown policy
  /// or allocator names, pins resolve_pins refuses, ignore_sizes with
  /// TierSessionOptions::moves_bytes, and kv_resident without KV pages.
  TierSession(const CacheConfig& cache, const TraceMeta& meta, const TierSessionOptions& options = {});

  TierSession(const TierSession&) = delete;
  TierSession& operator=(const TierSession&) = delete;

  // ---- construction facts ----
  FastTier& tier() { return *tier_; }
  const FastTier& tier() const { return *tier_; }
  const PinnedSet& pins() const { return pins_; }
  ByteCount policy_capacity_bytes() const { return policy_capacity_; }
  bool needs_next_use() const { return tier_->policy().needs_next_use(); }

  // ---- numbering and the per-block record ----
  /// Index of `id`, numbering it (with its kind from the catalog, pinned if
  /// named) on first sight. Throws InputError past 2^32 − 2 blocks.
  BlockIndex number(BlockId id) {
    bool added;
    const BlockIndex b = numbering_.index(id, &added);
    if (added) add_block(b, id);
    return b;
  }
  /// Hints the CPU to load what an access of numbered block b will read
  /// (its tier record, the policy's state and its last recorded size, which
  /// every access writes: unhinted, that store was one more cache miss).
  void prefetch_block(BlockIndex b) const {
    tier_->prefetch(b);
    tier_->policy().prefetch(b);
    if (b < seen_bytes_.size()) __builtin_prefetch(&seen_bytes_[b], 1);  // empty without prefetches
  }
  /// The second hint, a few accesses after prefetch_block(b) and before b's
  /// access: the policy loads the other blocks' state that access writes.
  void prefetch_neighbours(BlockIndex b) const { tier_->policy().prefetch_neighbours(b); }
  /// Hints the CPU to load what number(id) will read.
  void prefetch_number(BlockId id) const { numbering_.prefetch(id); }
  /// Index of `id`, or BlockNumbering::kNone when never numbered.
  BlockIndex find(BlockId id) const { return numbering_.find(id); }
  std::size_t block_count() const { return numbering_.size(); }
  BlockId id_of(BlockIndex b) const { return numbering_.id_of(b); }
  BlockKind kind_of(BlockIndex b) const { return static_cast<BlockKind>(tier_->tag(b).kind); }
  bool is_pinned(BlockIndex b) const { return tier_->tag(b).flags & kPinned; }
  bool is_dirty(BlockIndex b) const { return tier_->tag(b).flags & kDirty; }
  /// Catalog position of `id` (kNone if not in the catalog).
  std::uint32_t catalog_position(BlockId id) const;
  /// Catalog position of numbered block b (kNone if not in the catalog).
  std::uint32_t catalog_of(BlockIndex b) const {
    return b < catalog_of_.size() ? catalog_of_[b] : BlockNumbering::kNone;
  }
  /// BlockIndex -> catalog entry, as the fast tier's policy reads it
  /// (PolicyContext::catalog); for policies of tiers below that share this
  /// numbering (the event engine's intermediate tiers).
  const IBlockCatalogView& catalog_view() const { return catalog_view_; }

  // ---- the protocol ----
  /// Decides access `a` (a.block numbered, a.bytes > 0) of request `request`
  /// (a dense index the driver chose, or kNoRequestIndex) and counts it into
  /// `c`. departures() lists the blocks it made leave. Throws Error when a
  /// policy misbehaves (evicts a block it does not hold).
  AccessKind access(const PolicyAccess& a, std::uint32_t request, AccessCounters& c);
  /// The copy of a.block finished (a demand miss or a prefetch): in flight
  /// -> resident, policy.on_insert. a.now_ns is the decision clock of the
  /// fetch. Throws Error if a.block is not in flight.
  void arrived(const PolicyAccess& a);
  /// A prefetcher asks for catalog block `id` at decision time `now_ns`
  /// during access `access_index` (IPrefetchActions::prefetch). On true
  /// the block is in flight at index *block and the driver copies it.
  /// Its size: the catalog's, else its last recorded access's. Throws
  /// InputError when `id` is neither in the catalog nor accessed before;
  /// Error when the session was built without TierSessionOptions::prefetches.
  bool prefetch(BlockId id, Nanoseconds now_ns, std::uint64_t access_index, AccessCounters& c, BlockIndex* block);
  /// A prefetcher evicts idle block `id` (IPrefetchActions::evict); false
  /// when it is not resident, in use, in flight or pinned.
  bool evict(BlockId id, AccessCounters& c);
  /// Request `request`'s last access completed: its KV pages are released
  /// and dropped (departures, not evictions, not written back: the request is over).
  void end_request(std::uint32_t request, AccessCounters& c);
  /// The run ended: prefetched blocks never accessed count as unused.
  void finish(AccessCounters& c) const;
  /// Accesses of MoE expert blocks (catalog names "...experts.N...") and how
  /// many hit (resident) or were delayed hits (in flight), under `component`
  /// as expert_accesses, expert_hits, expert_delayed_hits (counts); nothing
  /// when no expert block was accessed. The expert hit ratio of MoE offload.
  void report_experts(const std::string& component, ComponentStats& out) const;
  /// Blocks the last access / prefetch / evict / end_request made leave.
  const std::vector<Departure>& departures() const { return departures_; }

  /// Slot bytes held by blocks of `kind` (in flight, resident, in use).
  ByteCount occupancy_bytes(BlockKind kind) const { return occupancy_[static_cast<int>(kind)]; }
  /// The out-of-memory point's tier facts (metrics.h) for a write-through of
  /// block b: block_id, kv_bytes, reserved_bytes, pinned_bytes, reached. The
  /// driver adds time, request and token.
  OutOfMemoryPoint oom_snapshot(BlockIndex b) const;

  /// Records the decision-clock time of b's last access (track_last_access).
  void note_access(BlockIndex b, Nanoseconds now_ns) {
    if (!last_access_.empty()) last_access_[b] = now_ns;
  }
  /// What prefetchers read (by catalog BlockId). in_next_tier answers true:
  /// a driver with an intermediate tier supplies its own with set_next_tier.
  const IFastTierView& view() const { return view_; }
  void set_next_tier(std::function<bool(BlockIndex)> holds) { next_tier_ = std::move(holds); }

  static constexpr std::uint32_t kNoRequestIndex = 0xFFFFFFFFu;

 private:
  static constexpr std::uint8_t kPrefetched = 1;  // brought in by a prefetch, not yet accessed
  static constexpr std::uint8_t kDirty = 2;       // written while held: written back when it leaves
  static constexpr std::uint8_t kEverHeld = 4;    // has held space, or been accessed
  static constexpr std::uint8_t kHeld = 8;        // a KV page held in use for its running request
  static constexpr std::uint8_t kPinned = 16;
  static constexpr std::uint8_t kExpert = 32;     // an MoE expert's weights (sim/policy/model_blocks.h)

  bool ignore_sizes_ = false;
  bool size_change_hit_ = false;

  class View final : public IFastTierView {
   public:
    explicit View(const TierSession& s) : s_(s) {}
    BlockState state(BlockId block) const override;
    ByteCount capacity_bytes() const override { return s_.tier_->capacity_bytes(); }
    ByteCount reserved_bytes() const override { return s_.tier_->reserved_bytes(); }
    Nanoseconds last_access_ns(BlockId block) const override;
    void for_each_resident(const std::function<void(BlockId)>& visit) const override;
    bool in_next_tier(BlockId block) const override;

   private:
    const TierSession& s_;
  };

  // What model-aware policies read (PolicyContext::catalog).
  class CatalogView final : public IBlockCatalogView {
   public:
    explicit CatalogView(const TierSession& s) : s_(s) {}
    const BlockCatalogEntry* entry(BlockIndex b) const override;

   private:
    const TierSession& s_;
  };

  void add_block(BlockIndex b, BlockId id);
  FetchAdmission admit(const PolicyAccess& a, AccessCounters& c);
  void depart(BlockIndex b, AccessCounters& c);
  void leave(BlockIndex b, AccessCounters& c);  // invalidate a resident block: a departure

  const CacheConfig& cache_;
  const TraceMeta& meta_;
  TierSessionOptions options_;
  PinnedSet pins_;
  ByteCount policy_capacity_ = 0;
  CatalogView catalog_view_{*this};  // before tier_: the policy keeps a pointer to it
  std::unique_ptr<FastTier> tier_;
  BlockNumbering numbering_;
  // The hot per-block state (flags, kind) is in the tier's record
  // (FastTier::tag); these are read off the decision path.
  std::vector<std::uint32_t> catalog_of_;  // empty when the trace has no catalog
  std::vector<ByteCount> seen_bytes_;  ///< bytes of each numbered block's last access (0: none yet)
  std::vector<Nanoseconds> last_access_;
  std::vector<BlockIndex> evicted_;
  std::vector<Departure> departures_;
  std::vector<std::vector<BlockIndex>> request_kv_;  // per request: pages it write-allocated
  std::vector<std::uint32_t> catalog_direct_;        // id -> catalog position (dense ids)
  HashMap<BlockId, std::uint32_t> catalog_map_;      // the others
  std::function<bool(BlockIndex)> next_tier_;
  ByteCount occupancy_[3] = {0, 0, 0};
  std::uint64_t expert_accesses_ = 0, expert_hits_ = 0, expert_delayed_hits_ = 0;
  View view_{*this};
};

}  // namespace flashsim
