// Components written in Python, registered into the same registries every
// driver reads (sim/policy, sim/prefetch): the event engine, the cache-only
// engine and the GPU replay build them by name like any C++ one.
//
// Threading: drivers may run in worker threads with the GIL released
// (flashsim.run releases it); every call into Python takes the GIL back.
#pragma once
#include <pybind11/pybind11.h>

#include <string>
#include <vector>

#include "sim/core/params.h"

namespace flashsim::python {

/// Declared parameters of a Python component from `defaults` ({name: default
/// value}): bool -> choice true/false, int -> integer, float -> real, str ->
/// text; the scenario sets them as for C++ components (`params:`). Throws
/// InputError naming `owner` and the key for any other value type.
std::vector<ParamSpec> param_specs(const std::string& owner, const pybind11::dict& defaults);

/// The resolved values of `specs` as keyword arguments, typed as declared.
pybind11::dict param_kwargs(const std::vector<ParamSpec>& specs, const ParamValues& values);

/// Registers `factory(capacity_bytes, block_count, **params)` -> an object
/// with the eviction-policy hooks of sim/policy/i_eviction_policy.h, under
/// `name` in the PolicyRegistry. Throws InputError when the name is taken
/// or a default has an unsupported type.
void register_policy(const std::string& name, pybind11::object factory, const std::string& summary,
                     const pybind11::dict& params);

/// Registers `factory(context, **params)` -> an object with the prefetcher
/// hooks of sim/prefetch/i_prefetcher.h (on_access(a, view, actions);
/// optionally preview(record, access_index) and wants_preview), under
/// `name` in the PrefetcherRegistry. Throws InputError as register_policy.
void register_prefetcher(const std::string& name, pybind11::object factory, const std::string& summary,
                         const pybind11::dict& params);

/// The Python classes the hooks receive (PolicyAccess, PrefetchAccess,
/// FastTierView, PrefetchActions, PrefetcherContext, CatalogEntry,
/// OperatorEntry, Record), defined on module `m`.
void bind_component_types(pybind11::module_& m);

}  // namespace flashsim::python
