#include "sim/cache/fast_tier.h"

#include <string>

#include "sim/core/errors.h"
#include "sim/policy/block_table.h"

namespace flashsim {

FastTier::FastTier(std::unique_ptr<IEvictionPolicy> policy, std::unique_ptr<ISlotAllocator> allocator,
                   std::size_t block_count_hint, std::unique_ptr<IAdmissionPolicy> admission)
    : policy_(std::move(policy)), allocator_(std::move(allocator)), admission_(std::move(admission)) {
  if (!policy_ || !allocator_) throw Error("FastTier: policy and allocator are required");
  capacity_ = allocator_->capacity_bytes();
  reserved_ = allocator_->reserved_bytes();
  places_ = allocator_->places();
  entries_.reserve(block_count_hint);
  if (places_) slots_.reserve(block_count_hint);
}

std::unique_ptr<FastTier> FastTier::create(const FastTierSpec& spec) {
  if (spec.capacity_bytes == 0) throw InputError("fast tier: capacity must be > 0 bytes");
  PolicyContext pc;
  pc.capacity_bytes = spec.policy_capacity_bytes ? spec.policy_capacity_bytes : spec.capacity_bytes;
  pc.block_count = spec.block_count;
  pc.meta = spec.meta;
  pc.catalog = spec.catalog;
  SlotAllocatorContext ac;
  ac.capacity_bytes = spec.capacity_bytes;
  auto policy = PolicyRegistry::instance().create(spec.policy, spec.policy_params, pc);
  auto allocator = SlotAllocatorRegistry::instance().create(spec.allocator, spec.allocator_params, ac);
  std::unique_ptr<IAdmissionPolicy> admission;
  if (spec.admission != "always") {
    admission = AdmissionRegistry::instance().create(spec.admission, spec.admission_params,
                                                     AdmissionContext{pc.capacity_bytes, spec.block_count});
  }
  return std::make_unique<FastTier>(std::move(policy), std::move(allocator), spec.block_count, std::move(admission));
}

FastTier::Entry& FastTier::grow_to(BlockIndex block) {
  grow_to_hold(entries_, block);
  if (places_) grow_to_hold(slots_, block);
  return entries_[block];
}

void FastTier::wrong_state(const char* operation, BlockIndex block) const {
  throw Error(std::string("fast tier: ") + operation + " of block " + std::to_string(block) + " in state " +
              std::string(to_string(state(block))) + (is_pinned(block) ? " (pinned)" : ""));
}

bool FastTier::evictable(const void* self, BlockIndex block) {
  const auto& entries = static_cast<const FastTier*>(self)->entries_;
  return block < entries.size() && entries[block].state == BlockState::resident && !entries[block].pinned;
}

void FastTier::free_space(BlockIndex block) {
  Entry& e = entries_[block];
  const SlotRange slot = slot_of(block);
  allocator_->release(slot);
  reserved_ -= slot.reserved_bytes;
  if (e.pinned) pinned_bytes_ -= slot.reserved_bytes;
  e.use_count = 0;  // bytes and slot stay: last_bytes / last_slot
  e.state = BlockState::absent;
}

void FastTier::on_access_hit(const PolicyAccess& a) {
  const BlockState s = state(a.block);
  if (s != BlockState::resident && s != BlockState::in_use) wrong_state("on_access_hit", a.block);
  if (entries_[a.block].pinned) return;
  if (admission_) admission_->on_access(a);
  policy_->on_hit(a);
}

FetchAdmission FastTier::begin_fetch(const PolicyAccess& a, std::vector<BlockIndex>* evicted) {
  if (evicted) evicted->clear();
  Entry& e = entry(a.block);
  if (e.state != BlockState::absent) wrong_state("begin_fetch", a.block);
  if (a.bytes == 0) throw Error("fast tier: begin_fetch of block " + std::to_string(a.block) + " with 0 bytes");
  if (!e.pinned) policy_->on_miss(a);
  const bool never_fits = !allocator_->could_ever_fit(a.bytes) || a.bytes > capacity_ - pinned_bytes_;
  bool refused = false;
  if (admission_ && !e.pinned && !a.is_prefetch) {
    admission_->on_access(a);
    refused = !never_fits && !admission_->admit(a);
  }
  if (never_fits || refused) {
    ++counters_.bypasses;
    if (refused) ++counters_.admission_refusals;
    if (!e.pinned) policy_->on_bypass(a);
    return FetchAdmission::bypass;
  }
  const EvictionFilter filter{&FastTier::evictable, this, &FastTier::prefetch_entry};
  for (;;) {
    // Fewer free bytes than asked: no allocator can place it, so no call.
    const bool free_bytes_sufficed = capacity_ - reserved_ >= a.bytes;
    if (free_bytes_sufficed) {
      if (auto slot = allocator_->allocate(a.bytes)) {
        // `e` may not be referenced across evict(): entries_ does not grow
        // there (victims are existing entries), so it is still valid here.
        Entry& me = entries_[a.block];
        if (places_) {
          slots_[a.block] = *slot;
        } else if (slot->reserved_bytes != a.bytes) {
          throw Error("slot allocator '" + std::string(allocator_->name()) + "' reserved " +
                      std::to_string(slot->reserved_bytes) + " bytes for " + std::to_string(a.bytes) +
                      ", but says it does not place blocks");
        }
        me.bytes = a.bytes;
        me.state = BlockState::in_flight;
        if (me.pinned) pinned_bytes_ += slot->reserved_bytes;
        reserved_ += slot->reserved_bytes;
        if (reserved_ > peak_reserved_) peak_reserved_ = reserved_;
        return FetchAdmission::admitted;
      }
    }
    const std::optional<BlockIndex> victim = policy_->evict(a.now_ns, filter);
    if (!victim) {
      ++counters_.bypasses;
      if (!entries_[a.block].pinned) policy_->on_bypass(a);
      return FetchAdmission::bypass;
    }
    if (!evictable(this, *victim)) {
      throw Error("fast tier: policy '" + std::string(policy_->name()) + "' evicted block " +
                  std::to_string(*victim) + " in state " + std::string(to_string(state(*victim))) +
                  (is_pinned(*victim) ? " (pinned)" : ""));
    }
    ++counters_.evictions;
    counters_.bytes_evicted += entries_[*victim].bytes;
    if (free_bytes_sufficed) ++counters_.fragmentation_evictions;
    free_space(*victim);
    if (evicted) evicted->push_back(*victim);
  }
}

void FastTier::on_arrival(const PolicyAccess& a) {
  if (state(a.block) != BlockState::in_flight) wrong_state("on_arrival", a.block);
  Entry& e = entries_[a.block];
  e.state = BlockState::resident;
  if (!e.pinned) policy_->on_insert(a);
}

void FastTier::cancel(BlockIndex block) {
  if (state(block) != BlockState::in_flight) wrong_state("cancel", block);
  free_space(block);
}

void FastTier::acquire(BlockIndex block) {
  const BlockState s = state(block);
  if (s != BlockState::resident && s != BlockState::in_use) wrong_state("acquire", block);
  Entry& e = entries_[block];
  ++e.use_count;
  e.state = BlockState::in_use;
}

void FastTier::release(BlockIndex block) {
  if (state(block) != BlockState::in_use) wrong_state("release", block);
  Entry& e = entries_[block];
  if (--e.use_count == 0) e.state = BlockState::resident;
}

void FastTier::evict_explicit(BlockIndex block) {
  if (state(block) != BlockState::resident || entries_[block].pinned) wrong_state("evict_explicit", block);
  policy_->remove(block);
  ++counters_.evictions;
  counters_.bytes_evicted += entries_[block].bytes;
  free_space(block);
}

void FastTier::invalidate(BlockIndex block) {
  if (state(block) != BlockState::resident) wrong_state("invalidate", block);
  if (!entries_[block].pinned) policy_->remove(block);
  free_space(block);
}

void FastTier::pin(BlockIndex block) {
  Entry& e = entry(block);
  if (e.pinned) return;
  e.pinned = true;
  if (e.state != BlockState::absent) pinned_bytes_ += slot_of(block).reserved_bytes;
  if (e.state == BlockState::resident || e.state == BlockState::in_use) policy_->remove(block);
}

}  // namespace flashsim
