// A fast tier small enough to reason about by hand, implementing the view
// and actions a prefetcher sees (sim/prefetch/i_prefetcher.h). It logs every
// call; a prefetch either lands at once (resident) or stays in flight, or
// (record_only) changes nothing, so a test can read each call's window.
#pragma once
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "sim/core/errors.h"
#include "sim/prefetch/i_prefetcher.h"
#include "sim/prefetch/prefetcher_stats.h"

namespace flashsim::test {

enum class PrefetchLands { resident, in_flight, record_only };

class FakeTier final : public IFastTierView, public IPrefetchActions {
 public:
  FakeTier(const TraceMeta& meta, ByteCount capacity_bytes, PrefetchLands lands = PrefetchLands::resident)
      : capacity_(capacity_bytes), lands_(lands) {
    for (const BlockCatalogEntry& e : meta.catalog) bytes_[e.id] = e.bytes;
  }

  // --- IFastTierView ---
  BlockState state(BlockId b) const override {
    auto it = state_.find(b);
    return it == state_.end() ? BlockState::absent : it->second;
  }
  ByteCount capacity_bytes() const override { return capacity_; }
  ByteCount reserved_bytes() const override { return reserved_; }
  Nanoseconds last_access_ns(BlockId b) const override {
    auto it = last_.find(b);
    return it == last_.end() ? kNeverNs : it->second;
  }
  void for_each_resident(const std::function<void(BlockId)>& visit) const override {
    in_visit_ = true;
    for (const auto& [b, s] : state_)
      if (s == BlockState::resident) visit(b);
    in_visit_ = false;
  }
  bool in_next_tier(BlockId b) const override { return next_tier.count(b) != 0; }

  // --- IPrefetchActions ---
  bool prefetch(BlockId b) override {
    if (in_visit_) throw Error("prefetch() called inside for_each_resident");
    auto it = bytes_.find(b);
    if (it == bytes_.end()) throw InputError("prefetch of block " + std::to_string(b) + " not in the catalog");
    prefetch_calls.push_back(b);
    if (state(b) != BlockState::absent) return false;
    if (lands_ == PrefetchLands::record_only) return true;
    if (reserved_ + it->second > capacity_) return false;
    reserved_ += it->second;
    state_[b] = lands_ == PrefetchLands::resident ? BlockState::resident : BlockState::in_flight;
    if (lands_ == PrefetchLands::resident) last_[b] = now_ns;
    return true;
  }
  bool evict(BlockId b) override {
    if (in_visit_) throw Error("evict() called inside for_each_resident");
    evict_calls.push_back(b);
    if (state(b) != BlockState::resident) return false;
    remove(b);
    return true;
  }

  // --- test driving ---
  /// Makes `b` resident as if a demand fetch had landed at `t` (or sets its state).
  void put(BlockId b, Nanoseconds t, BlockState s = BlockState::resident) {
    if (state(b) == BlockState::absent) reserved_ += bytes_.at(b);
    state_[b] = s;
    last_[b] = t;
  }
  void remove(BlockId b) {
    if (state(b) == BlockState::absent) return;
    reserved_ -= bytes_.at(b);
    state_.erase(b);
  }
  /// A demand access at now_ns: classifies it, makes the block resident
  /// (when it fits; else evicts the least recently accessed resident
  /// blocks first) and records the access time.
  AccessOutcome demand(BlockId b) {
    const BlockState s = state(b);
    AccessOutcome out = s == BlockState::absent ? AccessOutcome::miss
                        : s == BlockState::in_flight ? AccessOutcome::delayed_hit
                                                     : AccessOutcome::hit;
    if (s == BlockState::absent) {
      while (reserved_ + bytes_.at(b) > capacity_ && evict_lru()) {
      }
      if (reserved_ + bytes_.at(b) <= capacity_) put(b, now_ns);
    } else {
      state_[b] = BlockState::resident;
      last_[b] = now_ns;
    }
    return out;
  }
  /// Lands every in-flight block.
  void land_all() {
    for (auto& [b, s] : state_)
      if (s == BlockState::in_flight) {
        s = BlockState::resident;
        last_[b] = now_ns;
      }
  }
  std::vector<BlockId> take_prefetches() {
    std::vector<BlockId> out;
    out.swap(prefetch_calls);
    return out;
  }

  Nanoseconds now_ns = 0;
  std::set<BlockId> next_tier;
  std::vector<BlockId> prefetch_calls;
  std::vector<BlockId> evict_calls;

 private:
  bool evict_lru() {
    BlockId victim = 0;
    Nanoseconds best = kNeverNs;
    bool found = false;
    for (const auto& [b, s] : state_) {
      if (s != BlockState::resident) continue;
      if (!found || last_[b] < best) {
        victim = b;
        best = last_[b];
        found = true;
      }
    }
    if (found) remove(victim);
    return found;
  }

  ByteCount capacity_;
  PrefetchLands lands_;
  std::map<BlockId, ByteCount> bytes_;
  std::map<BlockId, BlockState> state_;
  std::map<BlockId, Nanoseconds> last_;
  ByteCount reserved_ = 0;
  mutable bool in_visit_ = false;
};

/// A PrefetchAccess for block `b` of operator `op`.
inline PrefetchAccess access_of(BlockId b, std::uint32_t op = kNoOperator, std::uint64_t index = 0,
                                Nanoseconds now_ns = 0, AccessOutcome outcome = AccessOutcome::miss,
                                std::uint32_t stream = 0) {
  PrefetchAccess a;
  a.block_id = b;
  a.operator_id = op;
  a.access_index = index;
  a.now_ns = now_ns;
  a.outcome = outcome;
  a.stream_id = stream;
  return a;
}

/// A catalog entry of `bytes` bytes.
inline BlockCatalogEntry block(BlockId id, std::string name, ByteCount bytes = 100, std::string kind = "weight",
                               std::int32_t layer = -1) {
  BlockCatalogEntry e;
  e.id = id;
  e.name = std::move(name);
  e.bytes = bytes;
  e.kind = std::move(kind);
  e.layer = layer;
  return e;
}

}  // namespace flashsim::test
