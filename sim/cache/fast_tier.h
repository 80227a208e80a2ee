// The fast tier: keeps block states (sim/cache/block_state.h), slot space
// (ISlotAllocator) and the eviction policy (IEvictionPolicy) consistent.
// Both engines drive it -- the event engine (sim/engine) and the GPU replay
// driver (hw/) -- so the same calls make the same decisions in both.
//
// Per access of block b, a driver does:
//   state(b) resident/in_use -> on_access_hit(a)
//   state(b) in_flight       -> a delayed hit: wait for on_arrival (no call)
//   state(b) absent          -> begin_fetch(a, evicted); if admitted, copy
//                               the block into slot(b), then on_arrival(a)
//                               (or cancel(b) to drop the copy)
// A consumer reading the block brackets the read with acquire/release.
//
// Hot path: no heap allocation per access. Each block's state, bytes and
// two bytes for the driver (BlockTag) share one 16-byte record in a table
// indexed by BlockIndex that grows (amortised) to the largest index seen,
// so a decision or an eviction touches one cache line per block; the
// block's slot is in a second table, kept only for an allocator that
// places blocks (ISlotAllocator::places: for "bytes" a slot is {0, bytes}).
// `evicted` is a caller-owned vector reused across calls.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "sim/core/block_vector.h"
#include "sim/cache/block_state.h"
#include "sim/cache/i_admission_policy.h"
#include "sim/metrics/component_stats.h"
#include "sim/cache/i_slot_allocator.h"
#include "sim/policy/i_eviction_policy.h"

namespace flashsim {

/// Result of begin_fetch.
enum class FetchAdmission : std::uint8_t {
  admitted,  ///< space reserved, block now in_flight
  bypass,    ///< cannot be cached now (larger than the tier could ever hold,
             ///< or nothing evictable): serve the access without caching; block stays absent
};

/// How to build a FastTier from registry names (see FastTier::create).
struct FastTierSpec {
  ByteCount capacity_bytes = 0;
  std::string policy = "lru";                        ///< PolicyRegistry name
  std::map<std::string, std::string> policy_params;
  std::string allocator = "bytes";                   ///< SlotAllocatorRegistry name
  std::map<std::string, std::string> allocator_params;
  std::size_t block_count = 0;                       ///< sizing hint (0 = unknown)
  /// Capacity the policy is told (PolicyContext::capacity_bytes): the
  /// capacity less the bytes the driver will pin. 0 = capacity_bytes.
  ByteCount policy_capacity_bytes = 0;
  std::string admission = "always";                  ///< AdmissionRegistry name (sim/cache/i_admission_policy.h)
  std::map<std::string, std::string> admission_params;
  /// Handed to the policy (PolicyContext::meta / catalog); may be null.
  const TraceMeta* meta = nullptr;
  const IBlockCatalogView* catalog = nullptr;
};

/// Counters kept by the tier since construction.
struct FastTierCounters {
  std::uint64_t evictions = 0;                ///< by begin_fetch and evict_explicit
  ByteCount bytes_evicted = 0;                ///< block bytes (not slot bytes) evicted
  std::uint64_t fragmentation_evictions = 0;  ///< see begin_fetch
  std::uint64_t bypasses = 0;                 ///< begin_fetch answers of bypass
  std::uint64_t admission_refusals = 0;       ///< bypasses the admission policy chose
};

class FastTier {
 public:
  /// Takes ownership. `allocator`'s capacity is the tier's capacity.
  /// Throws Error if either pointer is null.
  /// `admission` may be null: every miss is admitted.
  FastTier(std::unique_ptr<IEvictionPolicy> policy, std::unique_ptr<ISlotAllocator> allocator,
           std::size_t block_count_hint = 0, std::unique_ptr<IAdmissionPolicy> admission = nullptr);

  /// Builds the policy, allocator and admission by registry name
  /// ("always" builds none). Throws InputError
  /// (capacity 0) or UnknownNameError/InputError from the registries.
  static std::unique_ptr<FastTier> create(const FastTierSpec& spec);

  FastTier(const FastTier&) = delete;
  FastTier& operator=(const FastTier&) = delete;

  // ---- queries (any block index; unseen blocks are absent) ----
  BlockState state(BlockIndex block) const {
    return block < entries_.size() ? entries_[block].state : BlockState::absent;
  }
  /// Hints the CPU to fetch the block's entry (a driver that knows its next
  /// access ahead of time hides the cache miss).
  void prefetch(BlockIndex block) const {
    if (block < entries_.size()) __builtin_prefetch(&entries_[block]);
  }
  /// Same as state(); the name drivers use on an access.
  BlockState lookup(BlockIndex block) const { return state(block); }
  bool is_pinned(BlockIndex block) const { return block < entries_.size() && entries_[block].pinned; }
  /// in_use reference count (0 unless in_use).
  std::uint32_t use_count(BlockIndex block) const {
    return block < entries_.size() ? entries_[block].use_count : 0;
  }
  /// Placement of a block holding space (in_flight/resident/in_use); {0,0} otherwise.
  SlotRange slot(BlockIndex block) const {
    return block < entries_.size() && entries_[block].state != BlockState::absent ? slot_of(block) : SlotRange{};
  }
  /// Bytes of the block as given to begin_fetch (0 if absent).
  ByteCount block_bytes(BlockIndex block) const {
    return block < entries_.size() && entries_[block].state != BlockState::absent ? entries_[block].bytes : 0;
  }
  /// The space and bytes an absent block held when it last left the tier
  /// (valid until it is admitted again; {0,0} and 0 if it never held any):
  /// what a driver writes back or fences after an eviction.
  SlotRange last_slot(BlockIndex block) const { return block < entries_.size() ? slot_of(block) : SlotRange{}; }
  ByteCount last_bytes(BlockIndex block) const { return block < entries_.size() ? entries_[block].bytes : 0; }

  /// Two bytes per block the tier never reads, kept in the block's record
  /// (the access protocol keeps its flags and the block's kind there).
  struct BlockTag {
    std::uint8_t flags = 0;
    std::uint8_t kind = 0;
  };
  /// The tag of `block` (grows the table; any index).
  BlockTag& tag(BlockIndex block) { return entry(block).tag; }
  BlockTag tag(BlockIndex block) const { return block < entries_.size() ? entries_[block].tag : BlockTag{}; }

  // ---- transitions ----
  /// A resident or in-use block was accessed: policy.on_hit(a) unless pinned.
  /// Throws Error if a.block is absent or in flight.
  void on_access_hit(const PolicyAccess& a);

  /// a.block is absent: reserve space for a.bytes (> 0) and mark it in flight.
  /// Calls policy.on_miss(a) first (not for pinned blocks); a demand miss
  /// the admission policy refuses is a bypass (no eviction). Then, until
  /// allocator.allocate(a.bytes) succeeds, asks policy.evict(a.now_ns,
  /// filter) for a victim (the filter refuses in-use blocks), frees it and
  /// appends it to `evicted` (cleared first; may be null). An eviction made
  /// while the tier's free bytes (capacity - reserved) already covered
  /// a.bytes is counted as a fragmentation eviction (the free bytes were
  /// not contiguous). Answers bypass, with the block left absent,
  /// when a.bytes could never fit -- more than the allocator could place
  /// with everything freed, or more than the capacity less the pinned
  /// blocks' slot bytes (no eviction is made) -- or when the policy has no
  /// allowed victim left (evictions made before giving up stand).
  /// Throws Error if a.block is not absent or a.bytes == 0, or if the
  /// policy returns a victim that is not resident.
  FetchAdmission begin_fetch(const PolicyAccess& a, std::vector<BlockIndex>* evicted);

  /// The copy of a.block finished: in_flight -> resident, then
  /// policy.on_insert(a) unless pinned. Throws Error if not in flight.
  void on_arrival(const PolicyAccess& a);

  /// Drops an in-flight copy (a prefetch not wanted any more): frees the
  /// slot, block -> absent. The policy never saw it. Throws Error if not in flight.
  void cancel(BlockIndex block);

  /// A consumer starts reading the block: resident/in_use -> in_use,
  /// refcount + 1. In-use blocks are never evicted. Throws Error otherwise.
  void acquire(BlockIndex block);
  /// Refcount - 1; back to resident at 0. Throws Error if not in use.
  void release(BlockIndex block);

  /// A controller evicts an idle block: policy.remove(block), frees the slot,
  /// block -> absent, counted as an eviction. Throws Error unless the block
  /// is resident, unpinned (in-use, in-flight and pinned blocks cannot be).
  void evict_explicit(BlockIndex block);

  /// Drops a resident block without counting an eviction (its recorded size
  /// changed, or the backing copy was invalidated): policy.remove unless
  /// pinned, frees the slot, block -> absent. Throws Error unless resident.
  void invalidate(BlockIndex block);

  /// Pins a block: it never enters the policy and is never evicted. Before
  /// arrival (absent or in flight) it takes effect when the block arrives;
  /// a resident/in-use block is taken out of the policy (policy.remove).
  /// Pinned blocks count in pinned_bytes() once they hold space. Idempotent.
  void pin(BlockIndex block);

  // ---- occupancy ----
  ByteCount capacity_bytes() const { return capacity_; }
  /// Slot bytes held by in-flight, resident and in-use blocks (rounding included).
  ByteCount reserved_bytes() const { return reserved_; }
  ByteCount peak_reserved_bytes() const { return peak_reserved_; }
  /// Slot bytes held by pinned blocks.
  ByteCount pinned_bytes() const { return pinned_bytes_; }
  const FastTierCounters& counters() const { return counters_; }

  /// Its statistics under `component`: evictions, bytes_evicted, bypasses,
  /// fragmentation_evictions, peak_reserved_bytes, pinned_bytes.
  void report(const std::string& component, ComponentStats& out) const {
    out.add(component, "evictions", "count", static_cast<double>(counters_.evictions));
    out.add(component, "bytes_evicted", "bytes", static_cast<double>(counters_.bytes_evicted));
    out.add(component, "bypasses", "count", static_cast<double>(counters_.bypasses));
    if (admission_) out.add(component, "admission_refusals", "count", static_cast<double>(counters_.admission_refusals));
    out.add(component, "fragmentation_evictions", "count", static_cast<double>(counters_.fragmentation_evictions));
    out.add(component, "peak_reserved_bytes", "bytes", static_cast<double>(peak_reserved_));
    out.add(component, "pinned_bytes", "bytes", static_cast<double>(pinned_bytes_));
  }

  IEvictionPolicy& policy() { return *policy_; }
  const IEvictionPolicy& policy() const { return *policy_; }
  const ISlotAllocator& allocator() const { return *allocator_; }
  /// The admission policy; null when every miss is admitted.
  const IAdmissionPolicy* admission() const { return admission_.get(); }

 private:
  struct Entry {  // 16 bytes: what an access or an eviction reads
    ByteCount bytes = 0;  // kept when the block leaves (last_bytes)
    std::uint32_t use_count = 0;
    BlockState state = BlockState::absent;
    bool pinned = false;
    BlockTag tag;
  };

  Entry& entry(BlockIndex block) {  // grows the table
    if (block < entries_.size()) [[likely]] return entries_[block];
    return grow_to(block);
  }
  Entry& grow_to(BlockIndex block);
  // Kept when the block leaves (last_slot).
  SlotRange slot_of(BlockIndex block) const { return places_ ? slots_[block] : SlotRange{0, entries_[block].bytes}; }
  void free_space(BlockIndex block);
  static bool evictable(const void* self, BlockIndex block);
  static void prefetch_entry(const void* self, BlockIndex block) { static_cast<const FastTier*>(self)->prefetch(block); }
  [[noreturn]] void wrong_state(const char* operation, BlockIndex block) const;

  std::unique_ptr<IEvictionPolicy> policy_;
  std::unique_ptr<ISlotAllocator> allocator_;
  std::unique_ptr<IAdmissionPolicy> admission_;
  BlockVector<Entry> entries_;
  BlockVector<SlotRange> slots_;  // parallel to entries_ when places_, else empty
  bool places_ = true;            // allocator_->places()
  // The allocator's capacity and reserved bytes, kept here: a miss reads
  // them without a virtual call (the allocator is the only one to change
  // them, through allocate and release, which the tier alone calls).
  ByteCount capacity_ = 0;
  ByteCount reserved_ = 0;
  ByteCount peak_reserved_ = 0;
  ByteCount pinned_bytes_ = 0;
  FastTierCounters counters_;
};

}  // namespace flashsim
