// The one interface every eviction policy implements. Policies are plain
// host C++: no CUDA, no globals, no clock of their own. The simulator
// (sim/) and the GPU replay driver (hw/) call the same objects through it.
//
// Contract, per access of a block b:
//   * b resident            -> on_hit(a)
//   * b absent (a miss)     -> on_miss(a); the driver makes room by calling
//                              evict() until the block fits (or gives up and
//                              serves the access without caching: a bypass),
//                              then on_insert(a) once b is resident, or
//                              on_bypass(a) when it is served uncached.
//   * b removed by the driver for another reason (cancelled prefetch,
//     invalidation, explicit eviction by a controller) -> remove(b).
// Pinned blocks and blocks in flight are never inside the policy; blocks in
// use are inside but the driver's filter refuses them in evict().
#pragma once
#include <cstdint>
#include <optional>
#include <string_view>

#include "sim/core/registry.h"
#include "sim/core/units.h"
#include "traces/access_op.h"
#include "traces/access_record.h"

namespace flashsim {

/// What a policy learns about one access.
struct PolicyAccess {
  Nanoseconds now_ns = 0;       ///< decision clock (sim/core/decision_clock.h)
  BlockIndex block = 0;         ///< dense index, < PolicyContext::block_count when known
  ByteCount bytes = 0;          ///< size of the block
  std::uint64_t access_index = 0;                      ///< position in the trace, from 0
  std::uint64_t next_use_index = kNeverAccessedAgain;  ///< next access_index of this block (offline policies)
  AccessOp op = AccessOp::read;
  bool is_prefetch = false;     ///< inserted by a prefetcher, not by a demand miss
};

/// Which blocks evict() may choose now (the driver refuses blocks in use).
/// A default-constructed filter allows every block.
/// A policy that knows its next victims may hint them (prefetch): the
/// driver then loads their state while the policy works (a cache miss per
/// eviction hidden on large block counts). A hint changes no decision.
struct EvictionFilter {
  bool (*allows_fn)(const void* ctx, BlockIndex block) = nullptr;
  const void* ctx = nullptr;
  void (*prefetch_fn)(const void* ctx, BlockIndex block) = nullptr;
  bool allows(BlockIndex block) const { return allows_fn == nullptr || allows_fn(ctx, block); }
  void prefetch(BlockIndex block) const {
    if (prefetch_fn != nullptr) prefetch_fn(ctx, block);
  }
};

/// The trace's catalog entry of a numbered block, for model-aware policies
/// (expert caches, static placements): blocks are numbered in order of
/// first sight, so a policy asks here what a BlockIndex is.
class IBlockCatalogView {
 public:
  virtual ~IBlockCatalogView() = default;
  /// Catalog entry (name, layer, kind, bytes) of numbered block `block`;
  /// nullptr when it is not in the catalog. Valid from the block's first
  /// on_miss on.
  virtual const BlockCatalogEntry* entry(BlockIndex block) const = 0;
};

/// Fixed facts every policy factory receives.
struct PolicyContext {
  ByteCount capacity_bytes = 0;   ///< fast-tier capacity (pinned bytes excluded)
  std::size_t block_count = 0;    ///< number of distinct blocks if known (0 = unknown); a sizing hint
  /// The trace's catalog and operator order; null when the driver has none
  /// (model-aware policies then throw InputError naming what they need).
  const TraceMeta* meta = nullptr;
  /// BlockIndex -> catalog entry; null when the driver has no catalog.
  const IBlockCatalogView* catalog = nullptr;
};

class IEvictionPolicy {
 public:
  virtual ~IEvictionPolicy() = default;

  /// Registered name ("lru", "mlru", ...).
  virtual std::string_view name() const = 0;

  /// True for offline policies that read PolicyAccess::next_use_index (Belady);
  /// drivers then compute next use before replay.
  virtual bool needs_next_use() const { return false; }

  /// A resident block was accessed.
  virtual void on_hit(const PolicyAccess& access) = 0;

  /// The block is absent; called before any evict() made on its behalf.
  /// Ghost-list policies (ARC, 2Q, S3-FIFO) look it up here.
  virtual void on_miss(const PolicyAccess& access) { (void)access; }

  /// The block became resident (a demand fetch or a prefetch arrived).
  virtual void on_insert(const PolicyAccess& access) = 0;

  /// The miss announced by on_miss(access) was served without caching the
  /// block (too large, or evict() answered none): the miss is over.
  /// Policies with admission state (belady_bypass) forget it here.
  virtual void on_bypass(const PolicyAccess& access) { (void)access; }

  /// Choose a victim among the blocks the policy holds that `filter`
  /// allows, forget it and return it; std::nullopt when none is allowed.
  /// `now_ns` is the decision clock.
  virtual std::optional<BlockIndex> evict(Nanoseconds now_ns, const EvictionFilter& filter) = 0;

  /// The driver removed `block` for its own reasons; a no-op if not held.
  virtual void remove(BlockIndex block) = 0;

  /// Number of blocks the policy holds (resident, not pinned).
  virtual std::size_t size() const = 0;

  /// `block` will be accessed soon: a policy with per-block state may load
  /// it into the CPU cache now. A hint; it changes no decision.
  virtual void prefetch(BlockIndex block) const { (void)block; }
  /// `block`, hinted by prefetch() a few accesses earlier, comes sooner: a
  /// policy whose access also writes other blocks' state (an LRU hit relinks
  /// the block's list neighbours) may load that state now, reading the
  /// block's own (by then in the CPU cache). A hint; it changes no decision.
  virtual void prefetch_neighbours(BlockIndex block) const { (void)block; }
};

using PolicyRegistry = Registry<IEvictionPolicy, PolicyContext>;

}  // namespace flashsim

/// One line per policy file: FLASHSIM_REGISTER_POLICY({"lru", "summary", {params}, factory});
#define FLASHSIM_REGISTER_POLICY(...) \
  FLASHSIM_REGISTER(::flashsim::PolicyRegistry, ::flashsim::PolicyRegistry::Entry(__VA_ARGS__))
