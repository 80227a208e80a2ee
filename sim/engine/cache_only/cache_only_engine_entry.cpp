// `engine: cache_only`: the access protocol alone (sim/cache/cache_only.h),
// hits and bytes without time, for fast sweeps and miss-ratio curves.
#include "sim/engine/engine_registry.h"

namespace flashsim {
namespace {

class CacheOnlyEngine final : public IEngine {
 public:
  EngineResult run(ITraceSource& trace, const EngineConfig& config) override {
    EngineResult r;
    CacheOnlyTier tier;
    r.metrics = run_cache_only(trace, config.cache, &tier);
    r.pinned_bytes = tier.pinned_bytes;
    r.slot_reserved_peak_bytes = tier.slot_reserved_peak_bytes;
    r.fragmentation_evictions = tier.fragmentation_evictions;
    r.components = std::move(tier.components);
    r.decision_clock = DecisionClock::trace;  // no clock of its own
    return r;
  }
};

EngineTraits cache_only_traits() {
  EngineTraits t;
  t.uses = {"policies.admission", "cache.granularity", "cache.allocator", "cache.pin", "cache.size_change",
            "cache.ignore_sizes"};
  t.statistics = cache_statistics();
  return t;
}

FLASHSIM_REGISTER(EngineRegistry,
                  (EngineRegistry::Entry{"cache_only", "the fast tier's policy alone: hits and bytes, no time (fast sweeps)",
                                         {},
                                         [](const ParamValues&, const EngineContext&) -> std::unique_ptr<IEngine> {
                                           return std::make_unique<CacheOnlyEngine>();
                                         },
                                         cache_only_traits()}));

}  // namespace
}  // namespace flashsim
