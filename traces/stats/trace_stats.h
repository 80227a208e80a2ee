// Trace statistics in one pass over LRU stack distances
// (traces/stats/stack_distance.h): size facts, the reuse-distance
// histogram, and LRU miss-ratio curves per access and per byte.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "sim/core/size_change.h"
#include "traces/trace_source.h"

namespace flashsim {

/// Reuse distance = distinct other blocks accessed since the block's
/// previous access (0: the same block again right away).
struct ReuseHistogram {
  std::uint64_t cold = 0;  ///< first accesses of a block (no previous access)
  /// buckets[0]: distance 0; buckets[k], k ≥ 1: distances in [2^(k-1), 2^k).
  /// Trailing empty buckets are trimmed.
  std::vector<std::uint64_t> buckets;
  /// Human label of bucket k: "0", "1", "2-3", "4-7", ...
  static std::string label(std::size_t k);
};

/// An LRU miss-ratio curve at chosen capacities. Cold accesses always miss.
struct MissRatioCurve {
  enum class Unit {
    /// Capacity in blocks, every block one slot whatever its size: an access
    /// hits iff its LRU stack distance (reuse distance + 1) ≤ capacity.
    blocks,
    /// Capacity in bytes: an access hits iff its byte stack distance (bytes
    /// of the distinct blocks touched since its previous access, plus its
    /// own bytes) ≤ capacity.
    bytes,
  };
  Unit capacity_unit = Unit::blocks;
  std::vector<std::uint64_t> capacities;     ///< ascending, distinct
  std::vector<double> miss_ratio_by_access;  ///< missed accesses / accesses
  std::vector<double> miss_ratio_by_byte;    ///< bytes of missed accesses / bytes of all accesses
  std::vector<std::uint64_t> misses;         ///< missed accesses (exact counts behind the ratios)
  std::vector<ByteCount> missed_bytes;       ///< bytes of missed accesses
  /// How the curve was computed when it is not the one-pass rule above
  /// (a size-change rule, a simulation per capacity); "" = that rule.
  std::string method;
};

struct TraceStats {
  std::uint64_t records = 0;
  std::uint64_t unique_blocks = 0;
  ByteCount footprint_bytes = 0;  ///< Σ over distinct blocks of the block's largest access size
  ByteCount accessed_bytes = 0;   ///< Σ of bytes over all accesses
  std::uint64_t reads = 0;
  std::uint64_t writes = 0;
  Nanoseconds first_time_ns = 0;  ///< smallest time_ns (0 if no records)
  Nanoseconds last_time_ns = 0;   ///< largest time_ns
  Nanoseconds time_span_ns = 0;   ///< last − first
  ReuseHistogram reuse;
  MissRatioCurve mrc_blocks;  ///< Unit::blocks
  MissRatioCurve mrc_bytes;   ///< Unit::bytes
};

struct StatsOptions {
  /// Capacities of mrc_blocks; empty: auto_points points ⌈i·U/N⌉, i = 1..N,
  /// U = unique blocks.
  std::vector<std::uint64_t> capacity_blocks;
  /// Capacities of mrc_bytes; empty: auto_points points ⌈i·F/N⌉, F = footprint bytes.
  std::vector<ByteCount> capacity_bytes;
  std::size_t auto_points = 16;
  /// How the byte curve treats an access whose size differs from the size
  /// its block has in the stack, as the simulator's cache.size_change does:
  /// refetch -> a miss at every capacity (the block takes the new size):
  /// the simulated LRU's count exactly while blocks only grow and fit the
  /// capacity, else within about 1% (a shrunk block frees space the LRU
  /// does not refill; a block larger than the capacity bypasses);
  /// hit -> an approximation: the block keeps the size it first had in the
  /// stack, while the simulator keeps the size of its last admission, which
  /// depends on the capacity (sim/cache/lru_curve.h simulates it exactly).
  SizeChange size_change = SizeChange::refetch;
};

/// Reads `source` from the start (rewinds first). When a capacity list is
/// empty, a first cheap pass counts unique blocks and footprint to place the
/// points; the stack-distance pass is always one pass. Miss ratios of an
/// empty trace are 0. Exceptions of the source propagate.
TraceStats compute_stats(ITraceSource& source, const StatsOptions& options = {});

}  // namespace flashsim
