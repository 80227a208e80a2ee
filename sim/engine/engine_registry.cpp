#include "sim/engine/engine_registry.h"

namespace flashsim {

EngineResult run_registered_engine(ITraceSource& trace, const EngineConfig& config, const ComponentChoice& engine,
                                   const EngineContext& context) {
  return EngineRegistry::instance().create(engine.impl, engine.params, context)->run(trace, config);
}

const std::vector<std::string>& cache_statistics() {
  static const std::vector<std::string> names = {
      "accesses",          "hits",          "misses",          "bypasses",           "hit_ratio_by_access",
      "hit_ratio_by_byte", "bytes_accessed", "bytes_hit",      "bytes_fetched",      "evictions",
      "bytes_evicted",     "write_allocations", "bytes_written_back", "pinned_bytes", "slot_reserved_peak_bytes",
      "fragmentation_evictions"};
  return names;
}

}  // namespace flashsim
