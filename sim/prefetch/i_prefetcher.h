// Pre-warm and prefetch policies: the second kind of policy beside eviction
// (sim/policy/i_eviction_policy.h). A prefetcher watches the access stream
// and asks the driver to bring blocks into the fast tier before they are
// needed, or to evict idle ones. Like eviction policies they are plain host
// C++ with no clock of their own; the event engine (sim/engine) and the GPU
// replay driver (hw/) call the same objects through this interface.
//
// What "the next tokens need" may come from: the operator order of the
// model (TraceMeta::operators, the topological order of its operator graph)
// or what the prefetcher learned from past accesses. Never from the trace's
// future: PrefetchAccess carries no next-use field on purpose (only OPT, an
// eviction policy, may look ahead).
//
// Per access, after the fast tier has classified it (hit, delayed hit or
// miss) and the demand fetch (if any) has been started, the driver calls
// on_access(a, view, actions) once per prefetcher. The prefetcher may call
// actions.prefetch()/evict() any number of times inside that call.
#pragma once
#include <cstdint>
#include <functional>
#include <string_view>

#include "sim/cache/block_state.h"
#include "sim/core/registry.h"
#include "sim/core/units.h"
#include "traces/access_record.h"

namespace flashsim {

/// How the fast tier answered an access.
enum class AccessOutcome : std::uint8_t {
  hit = 0,          ///< resident at issue time
  delayed_hit = 1,  ///< in flight at issue time (a late prefetch, or another stream's fetch)
  miss = 2,         ///< absent: a demand fetch was started (or the access bypassed the tier)
};

/// One access as a prefetcher sees it.
struct PrefetchAccess {
  Nanoseconds now_ns = 0;       ///< decision clock (sim/core/decision_clock.h)
  BlockId block_id = 0;         ///< catalog id (TraceMeta::catalog)
  ByteCount bytes = 0;
  std::uint64_t access_index = 0;  ///< position in the trace, from 0
  std::uint32_t stream_id = 0;
  std::uint64_t request_id = kNoRequest;
  std::int32_t token_index = -1;
  Phase phase = Phase::unknown;
  std::uint32_t operator_id = kNoOperator;  ///< index into TraceMeta::operators when known
  AccessOutcome outcome = AccessOutcome::miss;
};

/// What a prefetcher may read about the fast tier (read-only).
class IFastTierView {
 public:
  virtual ~IFastTierView() = default;
  /// State of a catalog block (absent for blocks never seen).
  virtual BlockState state(BlockId block) const = 0;
  virtual ByteCount capacity_bytes() const = 0;
  /// Slot bytes held by in-flight, resident and in-use blocks.
  virtual ByteCount reserved_bytes() const = 0;
  /// Decision-clock time of the block's last access (demand or arrival of a
  /// prefetch); kNeverNs if never.
  virtual Nanoseconds last_access_ns(BlockId block) const = 0;
  /// Calls `visit` for every resident (not in-use, not in-flight, not pinned)
  /// block. The visitor must not call actions (collect, then act).
  virtual void for_each_resident(const std::function<void(BlockId)>& visit) const = 0;
  /// True when the block is held by the next tier down (e.g. host DRAM of a
  /// three-tier hierarchy); the backing tier holds everything.
  virtual bool in_next_tier(BlockId block) const = 0;
};

/// What a prefetcher may ask the driver to do.
class IPrefetchActions {
 public:
  virtual ~IPrefetchActions() = default;
  /// Bring a catalog block into the fast tier. Ignored (returns false) when
  /// it is resident, in flight or pinned, or when the tier cannot admit it
  /// (the eviction policy picks victims for it as for a demand miss, with
  /// PolicyAccess::is_prefetch set). Throws InputError when `block` is not
  /// in the catalog (its size is unknown).
  virtual bool prefetch(BlockId block) = 0;
  /// Evict a resident, idle block (FastTier::evict_explicit); false when the
  /// block is not resident or is in use, in flight or pinned.
  virtual bool evict(BlockId block) = 0;
};

/// Fixed facts every prefetcher factory receives.
struct PrefetcherContext {
  const TraceMeta* meta = nullptr;  ///< catalog and operator order (operators may be empty)
  ByteCount capacity_bytes = 0;     ///< fast-tier capacity
  std::uint64_t seed = 1;           ///< for randomised predictors (scenario seed)
};

class IPrefetcher {
 public:
  virtual ~IPrefetcher() = default;
  /// Registered name ("lookahead", "markov", "hit_ratio_controller", ...).
  virtual std::string_view name() const = 0;
  /// One access, after the tier classified it. See the file comment.
  virtual void on_access(const PrefetchAccess& access, const IFastTierView& view, IPrefetchActions& actions) = 0;

  /// The one exception to "never the trace's future": a prefetcher that
  /// *models* a predictor of settable accuracy (speculative expert prefetch:
  /// the next layer's gate, right with probability p) needs the truth it
  /// degrades. When true, the driver calls preview() with every record and
  /// its access_index, in trace order, before the first on_access.
  virtual bool wants_preview() const { return false; }
  virtual void preview(const AccessRecord& record, std::uint64_t access_index) {
    (void)record;
    (void)access_index;
  }
};

using PrefetcherRegistry = Registry<IPrefetcher, PrefetcherContext>;

}  // namespace flashsim

/// One line per prefetcher file: FLASHSIM_REGISTER_PREFETCHER({"lookahead", "summary", {params}, factory});
#define FLASHSIM_REGISTER_PREFETCHER(...) \
  FLASHSIM_REGISTER(::flashsim::PrefetcherRegistry, ::flashsim::PrefetcherRegistry::Entry(__VA_ARGS__))
