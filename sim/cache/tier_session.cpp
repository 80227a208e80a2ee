#include "sim/cache/tier_session.h"

#include <algorithm>
#include <string>

#include "sim/core/errors.h"
#include "sim/policy/model_blocks.h"

namespace flashsim {

ByteCount policy_capacity_bytes(ByteCount capacity_bytes, ByteCount pinned_bytes) {
  return capacity_bytes > pinned_bytes ? capacity_bytes - pinned_bytes : 1;
}

AccessOutcome outcome_of(AccessKind kind) {
  switch (kind) {
    case AccessKind::hit: return AccessOutcome::hit;
    case AccessKind::delayed_hit: return AccessOutcome::delayed_hit;
    default: return AccessOutcome::miss;
  }
}

TierSession::TierSession(const CacheConfig& cache, const TraceMeta& meta, const TierSessionOptions& options)
    : cache_(cache), meta_(meta), options_(options) {
  if (cache.capacity_bytes == 0) throw InputError("cache.capacity_bytes must be > 0");
  if (cache.ignore_sizes && options.moves_bytes) {
    throw InputError("cache.ignore_sizes: this driver moves the blocks' bytes; use engine: cache_only");
  }
  if (options.kv_resident &&
      std::none_of(meta.catalog.begin(), meta.catalog.end(), [](const BlockCatalogEntry& e) { return e.kind == "kv_page"; })) {
    // Only catalog KV pages are held for their request: without any it would change nothing.
    throw InputError("serving.kv_resident: trace '" + meta.source +
                     "' has no KV pages (catalog blocks of kind kv_page), so it would change nothing");
  }
  ignore_sizes_ = cache.ignore_sizes;
  size_change_hit_ = cache.size_change == SizeChange::hit;
  pins_ = resolve_pins(cache.pinned, meta, cache.capacity_bytes, cache.ignore_sizes);
  policy_capacity_ = flashsim::policy_capacity_bytes(cache.capacity_bytes, pins_.catalog_bytes);
  FastTierSpec spec;
  spec.capacity_bytes = cache.capacity_bytes;
  spec.policy = cache.eviction.impl;
  spec.policy_params = cache.eviction.params;
  spec.allocator = options.allocator.empty() ? cache.allocator.impl : options.allocator;
  if (spec.allocator == cache.allocator.impl) spec.allocator_params = cache.allocator.params;
  spec.block_count = meta.catalog.size();
  spec.policy_capacity_bytes = policy_capacity_;
  spec.admission = cache.admission.impl;
  spec.admission_params = cache.admission.params;
  spec.meta = &meta;
  spec.catalog = &catalog_view_;
  tier_ = FastTier::create(spec);

  const auto& catalog = meta.catalog;
  BlockId max_id = 0;
  for (const auto& e : catalog) max_id = std::max(max_id, e.id);
  const bool dense = !catalog.empty() && max_id < 4 * catalog.size() + 1024;
  if (dense) catalog_direct_.assign(max_id + 1, BlockNumbering::kNone);
  for (std::size_t i = 0; i < catalog.size(); ++i) {
    if (dense) catalog_direct_[catalog[i].id] = static_cast<std::uint32_t>(i);
    else catalog_map_.emplace(catalog[i].id, static_cast<std::uint32_t>(i));
  }
  catalog_of_.reserve(catalog.size());
}

const BlockCatalogEntry* TierSession::CatalogView::entry(BlockIndex b) const {
  if (b >= s_.catalog_of_.size() || s_.catalog_of_[b] == BlockNumbering::kNone) return nullptr;
  return &s_.meta_.catalog[s_.catalog_of_[b]];
}

std::uint32_t TierSession::catalog_position(BlockId id) const {
  if (!catalog_direct_.empty()) return id < catalog_direct_.size() ? catalog_direct_[id] : BlockNumbering::kNone;
  auto it = catalog_map_.find(id);
  return it == catalog_map_.end() ? BlockNumbering::kNone : it->second;
}

void TierSession::add_block(BlockIndex b, BlockId id) {
  const std::uint32_t catalog = catalog_position(id);
  BlockKind kind = BlockKind::other;
  if (catalog != BlockNumbering::kNone) {
    const std::string& k = meta_.catalog[catalog].kind;
    if (k == "kv_page") kind = BlockKind::kv_page;
    else if (is_weight_kind(k)) kind = BlockKind::weights;
  }
  FastTier::BlockTag& tag = tier_->tag(b);
  tag.kind = static_cast<std::uint8_t>(kind);
  if (catalog != BlockNumbering::kNone && expert_of(meta_.catalog[catalog]) >= 0) tag.flags |= kExpert;
  if (!pins_.ids.empty() && pins_.ids.contains(id)) {
    tag.flags |= kPinned;
    tier_->pin(b);
  }
  if (!meta_.catalog.empty()) catalog_of_.push_back(catalog);  // empty without a catalog: every block kNone
  if (options_.prefetches) seen_bytes_.push_back(0);
  if (options_.track_last_access) last_access_.push_back(kNeverNs);
}

FetchAdmission TierSession::admit(const PolicyAccess& a, AccessCounters& c) {
  const ByteCount evicted_before = tier_->counters().bytes_evicted;
  const FetchAdmission admission = tier_->begin_fetch(a, &evicted_);
  c.evictions += evicted_.size();
  c.bytes_evicted += tier_->counters().bytes_evicted - evicted_before;
  for (BlockIndex victim : evicted_) depart(victim, c);
  FastTier::BlockTag& tag = tier_->tag(a.block);
  tag.flags |= kEverHeld;
  if (admission == FetchAdmission::admitted) occupancy_[tag.kind] += tier_->slot(a.block).reserved_bytes;
  return admission;
}

// b left the tier (the tier already freed its space).
void TierSession::depart(BlockIndex b, AccessCounters& c) {
  FastTier::BlockTag& tag = tier_->tag(b);
  const SlotRange slot = tier_->last_slot(b);
  occupancy_[tag.kind] -= slot.reserved_bytes;
  if (tag.flags & kPrefetched) ++c.prefetch_unused;
  const bool dirty = tag.flags & kDirty;
  if (dirty) c.bytes_written_back += slot.reserved_bytes;
  departures_.push_back(Departure{b, slot, tier_->last_bytes(b), dirty});
  tag.flags &= static_cast<std::uint8_t>(~(kPrefetched | kDirty | kHeld));
}

void TierSession::leave(BlockIndex b, AccessCounters& c) {
  tier_->invalidate(b);
  depart(b, c);
}

AccessKind TierSession::access(const PolicyAccess& recorded, std::uint32_t request, AccessCounters& c) {
  departures_.clear();
  if (options_.prefetches) seen_bytes_[recorded.block] = recorded.bytes;
  PolicyAccess unit;
  if (ignore_sizes_) {
    unit = recorded;
    unit.bytes = 1;
  }
  const PolicyAccess& a = ignore_sizes_ ? unit : recorded;
  const BlockIndex b = a.block;
  FastTier::BlockTag& tag = tier_->tag(b);
  const bool write = a.op == AccessOp::write;
  ++c.accesses;
  c.bytes_accessed += a.bytes;
  const bool expert = tag.flags & kExpert;
  expert_accesses_ += expert;
  BlockState state = tier_->state(b);
  if (state == BlockState::resident || state == BlockState::in_use) {
    // A KV page held for its request cannot be dropped: a size change reads it as a hit.
    if (tier_->block_bytes(b) == a.bytes || state == BlockState::in_use || size_change_hit_) {
      tier_->on_access_hit(a);
      ++c.hits;
      c.bytes_hit += a.bytes;
      expert_hits_ += expert;
      if (write) tag.flags |= kDirty;
      if (tag.flags & kPrefetched) {
        ++c.prefetch_used_timely;
        tag.flags &= static_cast<std::uint8_t>(~kPrefetched);
      }
      return AccessKind::hit;
    }
    leave(b, c);  // size changed: the old copy is dropped (not an eviction)
    state = BlockState::absent;
  }
  if (state == BlockState::in_flight) {
    ++c.delayed_hits;
    expert_delayed_hits_ += expert;
    if (write) tag.flags |= kDirty;
    if (tag.flags & kPrefetched) {
      ++c.prefetch_used_late;
      tag.flags &= static_cast<std::uint8_t>(~kPrefetched);
    }
    return AccessKind::delayed_hit;
  }
  ++c.misses;
  if (write && tag.kind == static_cast<std::uint8_t>(BlockKind::kv_page) && !(tag.flags & kEverHeld)) {
    ++c.write_allocations;
    if (admit(a, c) == FetchAdmission::admitted) {
      tier_->on_arrival(a);
      tier_->tag(b).flags |= kDirty;
      if (request != kNoRequestIndex) {
        if (request >= request_kv_.size()) request_kv_.resize(std::size_t(request) + 1);
        request_kv_[request].push_back(b);
        if (options_.kv_resident) {
          tier_->acquire(b);
          tier_->tag(b).flags |= kHeld;
        }
      }
      return AccessKind::write_allocated;
    }
    ++c.bypasses;
    c.bytes_written_back += a.bytes;
    return AccessKind::written_through;
  }
  c.bytes_fetched += a.bytes;
  if (admit(a, c) == FetchAdmission::bypass) {
    ++c.bypasses;
    return AccessKind::bypass;
  }
  if (write) tier_->tag(b).flags |= kDirty;  // changed once it is there: written back when it leaves
  return AccessKind::miss;
}

void TierSession::report_experts(const std::string& component, ComponentStats& out) const {
  if (expert_accesses_ == 0) return;
  out.add(component, "expert_accesses", "count", static_cast<double>(expert_accesses_));
  out.add(component, "expert_hits", "count", static_cast<double>(expert_hits_));
  out.add(component, "expert_delayed_hits", "count", static_cast<double>(expert_delayed_hits_));
}

void TierSession::arrived(const PolicyAccess& a) {
  // ignore_sizes: the policy saw 1 byte at the miss; on_insert must too, or
  // byte-counting policies (ARC's target, 2Q's ghosts, GDSF) mix units.
  if (ignore_sizes_ && a.bytes != 1) {
    PolicyAccess unit = a;
    unit.bytes = 1;
    tier_->on_arrival(unit);
  } else {
    tier_->on_arrival(a);
  }
  if (a.is_prefetch) note_access(a.block, a.now_ns);
}

bool TierSession::prefetch(BlockId id, Nanoseconds now_ns, std::uint64_t access_index, AccessCounters& c,
                           BlockIndex* block) {
  if (!options_.prefetches) throw Error("TierSession::prefetch: the session was built without prefetches");
  departures_.clear();
  // The size: the catalog's, else the block's last recorded access (a
  // trace without a catalog, or pieces of a granularity the catalog lacks).
  const std::uint32_t pos = catalog_position(id);
  const BlockIndex seen = find(id);
  const ByteCount size = pos != BlockNumbering::kNone         ? meta_.catalog[pos].bytes
                         : seen != BlockNumbering::kNone ? seen_bytes_[seen]
                                                              : 0;
  if (pos == BlockNumbering::kNone && size == 0) {
    throw InputError("prefetch: block " + std::to_string(id) + " is neither in the catalog of trace '" + meta_.source +
                     "' nor accessed before (its size is unknown)");
  }
  if (size == 0) return false;
  const ByteCount bytes = ignore_sizes_ ? 1 : size;
  const BlockIndex b = number(id);
  if (tier_->state(b) != BlockState::absent || is_pinned(b)) return false;
  PolicyAccess a;
  a.now_ns = now_ns;
  a.block = b;
  a.bytes = bytes;
  a.access_index = access_index;
  a.next_use_index = kNeverAccessedAgain;  // a prefetch's next use is not known (only the trace has it)
  a.op = AccessOp::read;
  a.is_prefetch = true;
  if (admit(a, c) != FetchAdmission::admitted) return false;
  ++c.prefetches;
  c.bytes_prefetched += bytes;
  c.bytes_fetched += bytes;
  tier_->tag(b).flags |= kPrefetched;
  *block = b;
  return true;
}

bool TierSession::evict(BlockId id, AccessCounters& c) {
  departures_.clear();
  const BlockIndex b = find(id);
  if (b == BlockNumbering::kNone) return false;
  if (tier_->state(b) != BlockState::resident || is_pinned(b)) return false;
  const ByteCount evicted_before = tier_->counters().bytes_evicted;
  tier_->evict_explicit(b);
  ++c.evictions;
  c.bytes_evicted += tier_->counters().bytes_evicted - evicted_before;
  depart(b, c);
  return true;
}

void TierSession::end_request(std::uint32_t request, AccessCounters& c) {
  departures_.clear();
  if (request >= request_kv_.size()) return;
  for (BlockIndex b : request_kv_[request]) {
    if (tier_->tag(b).flags & kHeld) {
      tier_->release(b);
      tier_->tag(b).flags &= static_cast<std::uint8_t>(~kHeld);
    }
    if (tier_->state(b) == BlockState::resident && !is_pinned(b)) {
      tier_->tag(b).flags &= static_cast<std::uint8_t>(~kDirty);  // the request is over: nothing to keep
      leave(b, c);
    }
  }
  request_kv_[request].clear();
  request_kv_[request].shrink_to_fit();
}

void TierSession::finish(AccessCounters& c) const {
  for (BlockIndex b = 0; b < block_count(); ++b) c.prefetch_unused += (tier_->tag(b).flags & kPrefetched) ? 1 : 0;
}

OutOfMemoryPoint TierSession::oom_snapshot(BlockIndex b) const {
  OutOfMemoryPoint p;
  p.reached = true;
  p.block_id = id_of(b);
  p.kv_bytes = occupancy_bytes(BlockKind::kv_page);
  p.reserved_bytes = tier_->reserved_bytes();
  p.pinned_bytes = tier_->pinned_bytes();
  return p;
}

BlockState TierSession::View::state(BlockId block) const {
  const BlockIndex b = s_.find(block);
  return b == BlockNumbering::kNone ? BlockState::absent : s_.tier_->state(b);
}

Nanoseconds TierSession::View::last_access_ns(BlockId block) const {
  const BlockIndex b = s_.find(block);
  return b == BlockNumbering::kNone || b >= s_.last_access_.size() ? kNeverNs : s_.last_access_[b];
}

void TierSession::View::for_each_resident(const std::function<void(BlockId)>& visit) const {
  for (BlockIndex b = 0; b < s_.block_count(); ++b) {
    if (s_.tier_->state(b) == BlockState::resident && !s_.is_pinned(b)) visit(s_.id_of(b));
  }
}

bool TierSession::View::in_next_tier(BlockId block) const {
  if (!s_.next_tier_) return true;  // the next tier is the backing tier: it holds everything
  const BlockIndex b = s_.find(block);
  return b != BlockNumbering::kNone && s_.next_tier_(b);
}

}  // namespace flashsim
