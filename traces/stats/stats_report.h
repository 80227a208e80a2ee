// Printing TraceStats for people (`flashsim trace stats`) and programs (--json).
#pragma once
#include <string>

#include "traces/stats/trace_stats.h"

namespace flashsim {

/// Aligned text: facts, reuse-distance histogram, then both miss-ratio
/// curves with their capacity unit and hit rule in the heading.
std::string format_stats_text(const TraceStats& stats);

/// JSON object with the same content: records, unique_blocks,
/// footprint_bytes, accessed_bytes, reads, writes, first_time_ns,
/// last_time_ns, time_span_ns, reuse_distance {cold, buckets: [{label, lo,
/// hi, accesses}]}, mrc_blocks and mrc_bytes {capacity_unit, hit_rule,
/// points: [{capacity, misses, missed_bytes, miss_ratio_by_access,
/// miss_ratio_by_byte}]}. `indent` < 0 gives one line.
std::string format_stats_json(const TraceStats& stats, int indent = 2);

}  // namespace flashsim
