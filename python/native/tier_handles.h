// What Python components receive that stands for a driver's object: a
// prefetcher's fast-tier view and actions (valid during one on_access call),
// a policy's eviction filter (valid during one evict call); used later they
// throw Error instead of reading freed memory. And a prefetcher's context as
// plain Python data.
#pragma once
#include <pybind11/pybind11.h>

#include "sim/policy/i_eviction_policy.h"
#include "sim/prefetch/i_prefetcher.h"

namespace flashsim::python {

/// IFastTierView for Python; `view` is set by the caller for one call.
struct FastTierViewHandle {
  const IFastTierView* view = nullptr;
  /// Throws Error when used outside the on_access call it was given to.
  const IFastTierView& get() const;
};

/// IPrefetchActions for Python; `actions` is set by the caller for one call.
struct PrefetchActionsHandle {
  IPrefetchActions* actions = nullptr;
  /// Throws Error when used outside the on_access call it was given to.
  IPrefetchActions& get() const;
};

/// EvictionFilter for Python (`allows(block)`); `filter` is set for one evict call.
struct EvictionFilterHandle {
  const EvictionFilter* filter = nullptr;
  /// Throws Error when used outside the evict call it was given to.
  bool allows(BlockIndex block) const;
};

/// A Python PrefetcherContext: capacity_bytes, seed, and copies of the
/// trace's catalog (CatalogEntry list) and operator order (OperatorEntry
/// list; empty for recorded traces). Copies: the object may outlive the run.
pybind11::object make_context(const PrefetcherContext& context);

}  // namespace flashsim::python
