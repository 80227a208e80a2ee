// An LRU miss-ratio curve by simulation: one cache-only LRU replay per
// capacity (sim/cache/cache_only.h), under a size-change rule the one-pass
// stack of trace stats cannot follow exactly (SizeChange::hit: a resident
// block keeps the size of its last admission, which depends on the capacity).
#pragma once
#include "sim/core/size_change.h"
#include "traces/stats/trace_stats.h"
#include "traces/trace_source.h"

namespace flashsim {

/// Fills curve.misses, missed_bytes and both miss ratios at every
/// curve.capacities (bytes) by replaying `trace` through LRU with `rule`,
/// and sets curve.method. |capacities| passes over the trace; memory is the
/// cache-only path's. Throws what run_cache_only throws.
void simulate_lru_byte_curve(ITraceSource& trace, SizeChange rule, MissRatioCurve& curve);

}  // namespace flashsim
