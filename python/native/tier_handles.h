// What a Python prefetcher receives besides the access: handles on the
// driver's fast-tier view and actions, valid only during one on_access call
// (they throw Error after it), and its context as plain Python data.
#pragma once
#include <pybind11/pybind11.h>

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

/// A Python PrefetcherContext: capacity_bytes, seed, and copies of the
/// trace's catalog (CatalogEntry list) and operator order (OperatorEntry
/// list; empty for recorded traces). Copies: the object may outlive the run.
pybind11::object make_context(const PrefetcherContext& context);

}  // namespace flashsim::python
