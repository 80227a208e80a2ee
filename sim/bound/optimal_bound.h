// Bounds on the optimal hit ratio of a fast tier with variable-size blocks
// (`flashsim trace bound`). Belady's "furthest next use" is optimal only for
// uniform sizes; with sizes, offline optimal caching is NP-hard, and the
// field's answer is flow-based offline optimal caching (FOO) and its
// practical bounds (Berger, Beckmann, Harchol-Balter, "Practical Bounds on
// Optimal Caching with Variable Object Sizes", SIGMETRICS 2018):
//
//  * FOO: one node per access; a central path of arcs (i, i+1) with capacity
//    C (the tier, bytes) and cost 0; for every reuse interval of a block of
//    s bytes (access i to its next access j, same size) s units of supply at
//    i, demand at j, and a bypass arc (i, j) of capacity s. Flow through the
//    central path is the block held in the tier from i to j; flow over the
//    bypass is a miss at j. Costs per byte on the bypass: 1/s (objective:
//    misses) or 1 (objective: bytes missed). The min-cost flow is solved by
//    LEMON's network simplex.
//      upper bound (FOO-L): intervals − min cost (the LP relaxation; no
//        schedule hits more);
//      lower bound (FOO-U): the intervals the optimal flow routes entirely
//        through the tier (an integral, feasible schedule).
//    For uniform sizes both equal OPT with bypassing (belady_bypass).
//  * Beyond `exact_max_accesses`: PFOO-L, the upper bound with the per-time
//    capacity relaxed to its total C·(N−1) over the trace (a fractional
//    knapsack over intervals by resource size × length), and, as the lower
//    bound, FOO-U solved on consecutive segments of `segment_accesses`
//    accesses (intervals crossing a segment count as misses; the segments'
//    schedules together are feasible). The paper's PFOO-U refines segments
//    further; this is the simpler member of that family, named as such.
// First accesses of a block (and accesses whose size differs from the
// block's previous access: the refetch rule) are compulsory misses.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "sim/core/units.h"
#include "traces/access_record.h"

namespace flashsim {

struct HitBound {
  ByteCount capacity_bytes = 0;
  double hit_ratio_by_access_upper = 0, hit_ratio_by_access_lower = 0;
  double hit_ratio_by_byte_upper = 0, hit_ratio_by_byte_lower = 0;
  std::string method;  ///< "FOO" or "PFOO-L / segmented FOO-U"
  std::uint64_t accesses = 0, intervals = 0;
  ByteCount bytes = 0;
  double seconds = 0;  ///< wall time of the solve (host fact)
};

struct BoundOptions {
  std::size_t exact_max_accesses = 200'000;  ///< FOO on the whole trace up to this many accesses (cloudPhysics, 113 k: ~30 s a capacity)
  std::size_t segment_accesses = 50'000;     ///< the lower bound's segments beyond it
};

/// Bounds for each capacity (bytes, > 0), in the order given. `records` in
/// trace order. Throws InputError on an empty trace, a capacity of 0, or
/// options of 0; Error if the solver fails (not expected: the problem is
/// always feasible, every interval may be a miss).
std::vector<HitBound> optimal_hit_bounds(const std::vector<AccessRecord>& records,
                                         const std::vector<ByteCount>& capacities, const BoundOptions& options = {});

}  // namespace flashsim
