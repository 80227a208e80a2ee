#include "sim/cache/lru_curve.h"

#include "sim/cache/cache_only.h"

namespace flashsim {

void simulate_lru_byte_curve(ITraceSource& trace, SizeChange rule, MissRatioCurve& curve) {
  const std::size_t n = curve.capacities.size();
  curve.misses.assign(n, 0);
  curve.missed_bytes.assign(n, 0);
  curve.miss_ratio_by_access.assign(n, 0.0);
  curve.miss_ratio_by_byte.assign(n, 0.0);
  for (std::size_t k = 0; k < n; ++k) {
    CacheConfig cache;
    cache.capacity_bytes = curve.capacities[k];
    cache.eviction = {"lru", {}};
    cache.size_change = rule;
    trace.rewind();
    const AccessCounters c = run_cache_only(trace, cache).total;
    curve.misses[k] = c.misses;
    curve.missed_bytes[k] = c.bytes_accessed - c.bytes_hit;
    curve.miss_ratio_by_access[k] = c.miss_ratio_by_access();
    curve.miss_ratio_by_byte[k] = c.miss_ratio_by_byte();
  }
  trace.rewind();
  curve.method = std::string("an LRU simulation per capacity (size_change ") +
                 (rule == SizeChange::hit ? "hit" : "refetch") + ")";
}

}  // namespace flashsim
