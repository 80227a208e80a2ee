// A trace's footprint: what a cache would need to hold all of it.
#pragma once
#include <cstdint>

#include "traces/trace_source.h"

namespace flashsim {

/// Sum over the distinct blocks of a trace of their largest recorded size.
struct TraceFootprint {
  ByteCount bytes = 0;
  std::uint64_t blocks = 0;   ///< distinct block ids
  std::uint64_t records = 0;
  Nanoseconds first_time_ns = 0;  ///< smallest time_ns (0 without records)
  Nanoseconds last_time_ns = 0;   ///< largest time_ns
  /// With a piece size (measure_footprint's piece_bytes > 0): what
  /// GranularityTraceSource would make of the trace, each block's largest
  /// size split into pieces, and the piece accesses. Saturating.
  std::uint64_t pieces = 0;
  std::uint64_t piece_accesses = 0;
};

/// One pass over `source` (rewound before and after); memory is one hash
/// entry per distinct block. `piece_bytes` > 0 also counts pieces and
/// piece accesses of that size (traces/granularity.h). Throws what the
/// source throws.
TraceFootprint measure_footprint(ITraceSource& source, ByteCount piece_bytes = 0);

}  // namespace flashsim
