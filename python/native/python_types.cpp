// The Python classes component hooks receive: read-only views of the C++
// structs (sim/policy/i_eviction_policy.h, sim/prefetch/i_prefetcher.h,
// traces/access_record.h), enums as the strings the docs use.
#include <pybind11/stl.h>

#include "python/native/python_components.h"
#include "python/native/tier_handles.h"
#include "sim/core/errors.h"
#include "sim/policy/i_eviction_policy.h"

namespace py = pybind11;

namespace flashsim::python {
namespace {

const char* phase_text(Phase p) {
  return p == Phase::prefill ? "prefill" : p == Phase::decode ? "decode" : "unknown";
}
const char* outcome_text(AccessOutcome o) {
  return o == AccessOutcome::hit ? "hit" : o == AccessOutcome::delayed_hit ? "delayed_hit" : "miss";
}
const char* op_text(AccessOp op) { return op == AccessOp::write ? "w" : "r"; }

/// PrefetcherContext with its own copies (see make_context).
struct ContextCopy {
  ByteCount capacity_bytes = 0;
  std::uint64_t seed = 1;
  py::list catalog, operators;
};

}  // namespace

const IFastTierView& FastTierViewHandle::get() const {
  if (view == nullptr) throw Error("FastTierView used outside the on_access call it was given to");
  return *view;
}

IPrefetchActions& PrefetchActionsHandle::get() const {
  if (actions == nullptr) throw Error("PrefetchActions used outside the on_access call it was given to");
  return *actions;
}

bool EvictionFilterHandle::allows(BlockIndex block) const {
  if (filter == nullptr) throw Error("allows() used outside the evict call it was given to");
  return filter->allows(block);
}

py::object make_context(const PrefetcherContext& context) {
  ContextCopy copy;
  copy.capacity_bytes = context.capacity_bytes;
  copy.seed = context.seed;
  if (context.meta != nullptr) {
    for (const BlockCatalogEntry& e : context.meta->catalog) copy.catalog.append(py::cast(e));
    for (const OperatorEntry& o : context.meta->operators) copy.operators.append(py::cast(o));
  }
  return py::cast(std::move(copy));
}

void bind_component_types(py::module_& m) {
  py::class_<PolicyAccess>(m, "PolicyAccess", "what an eviction policy learns about one access")
      .def_readonly("now_ns", &PolicyAccess::now_ns)
      .def_readonly("block", &PolicyAccess::block)
      .def_readonly("bytes", &PolicyAccess::bytes)
      .def_readonly("access_index", &PolicyAccess::access_index)
      .def_readonly("next_use_index", &PolicyAccess::next_use_index)
      .def_property_readonly("op", [](const PolicyAccess& a) { return op_text(a.op); })
      .def_readonly("is_prefetch", &PolicyAccess::is_prefetch);

  py::class_<PrefetchAccess>(m, "PrefetchAccess", "one access as a prefetcher sees it, after the tier classified it")
      .def_readonly("now_ns", &PrefetchAccess::now_ns)
      .def_readonly("block_id", &PrefetchAccess::block_id)
      .def_readonly("bytes", &PrefetchAccess::bytes)
      .def_readonly("access_index", &PrefetchAccess::access_index)
      .def_readonly("stream_id", &PrefetchAccess::stream_id)
      .def_readonly("request_id", &PrefetchAccess::request_id)
      .def_readonly("token_index", &PrefetchAccess::token_index)
      .def_property_readonly("phase", [](const PrefetchAccess& a) { return phase_text(a.phase); })
      .def_readonly("operator_id", &PrefetchAccess::operator_id)
      .def_property_readonly("outcome", [](const PrefetchAccess& a) { return outcome_text(a.outcome); });

  py::class_<AccessRecord>(m, "Record", "one trace record (preview() of prefetchers that model a predictor)")
      .def_readonly("time_ns", &AccessRecord::time_ns)
      .def_readonly("block_id", &AccessRecord::block_id)
      .def_readonly("bytes", &AccessRecord::bytes)
      .def_property_readonly("op", [](const AccessRecord& r) { return op_text(r.op); })
      .def_readonly("stream_id", &AccessRecord::stream_id)
      .def_readonly("request_id", &AccessRecord::request_id)
      .def_readonly("token_index", &AccessRecord::token_index)
      .def_property_readonly("phase", [](const AccessRecord& r) { return phase_text(r.phase); })
      .def_readonly("operator_id", &AccessRecord::operator_id)
      .def_readonly("compute_ns", &AccessRecord::compute_ns);

  py::class_<FastTierViewHandle>(m, "FastTierView", "the fast tier, read-only; valid during one on_access call")
      .def("state", [](const FastTierViewHandle& h, BlockId b) { return std::string(to_string(h.get().state(b))); },
           "'absent', 'in_flight', 'resident' or 'in_use'")
      .def("capacity_bytes", [](const FastTierViewHandle& h) { return h.get().capacity_bytes(); })
      .def("reserved_bytes", [](const FastTierViewHandle& h) { return h.get().reserved_bytes(); })
      .def("last_access_ns", [](const FastTierViewHandle& h, BlockId b) { return h.get().last_access_ns(b); })
      .def("in_next_tier", [](const FastTierViewHandle& h, BlockId b) { return h.get().in_next_tier(b); })
      .def(
          "residents",
          [](const FastTierViewHandle& h) {
            std::vector<BlockId> out;
            h.get().for_each_resident([&out](BlockId b) { out.push_back(b); });
            return out;
          },
          "resident (not in use, not in flight, not pinned) block ids");

  py::class_<EvictionFilterHandle>(m, "Allows", "allows(block): may evict() choose it now; valid during one evict call")
      .def("__call__", &EvictionFilterHandle::allows, py::arg("block"));

  py::class_<PrefetchActionsHandle>(m, "PrefetchActions", "what a prefetcher may ask; valid during one on_access call")
      .def("prefetch", [](PrefetchActionsHandle& h, BlockId b) { return h.get().prefetch(b); },
           "bring a catalog block in; False when resident, in flight, pinned or not admitted")
      .def("evict", [](PrefetchActionsHandle& h, BlockId b) { return h.get().evict(b); },
           "evict a resident idle block; False otherwise");

  py::class_<BlockCatalogEntry>(m, "CatalogEntry", "one block of the trace's catalog")
      .def_readonly("id", &BlockCatalogEntry::id)
      .def_readonly("name", &BlockCatalogEntry::name)
      .def_readonly("bytes", &BlockCatalogEntry::bytes)
      .def_readonly("layer", &BlockCatalogEntry::layer)
      .def_readonly("kind", &BlockCatalogEntry::kind)
      .def_readonly("segment", &BlockCatalogEntry::segment);

  py::class_<OperatorEntry>(m, "OperatorEntry", "one operator of the model's per-token order")
      .def_readonly("name", &OperatorEntry::name)
      .def_readonly("layer", &OperatorEntry::layer)
      .def_readonly("segment", &OperatorEntry::segment)
      .def_readonly("blocks", &OperatorEntry::blocks)
      .def_readonly("routed_blocks", &OperatorEntry::routed_blocks)
      .def_readonly("compute_ns", &OperatorEntry::compute_ns);

  py::class_<ContextCopy>(m, "PrefetcherContext", "what a prefetcher factory receives")
      .def_readonly("capacity_bytes", &ContextCopy::capacity_bytes)
      .def_readonly("seed", &ContextCopy::seed)
      .def_readonly("catalog", &ContextCopy::catalog)
      .def_readonly("operators", &ContextCopy::operators);
}

}  // namespace flashsim::python
