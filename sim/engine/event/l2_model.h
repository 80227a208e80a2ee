// Sectored, set-associative L2 for address-level traces (records with an
// address). Geometry: sets = capacity / (line_bytes · associativity); a
// line's set is (address / line_bytes) mod sets (real GPUs hash addresses
// over slices; plain modulo keeps hand-worked cases possible). A line holds
// line_bytes / sector_bytes sectors, each valid or not; LRU within a set.
// Per touched sector of a line:
//   tag present, sector valid   -> sector hit
//   tag present, sector invalid -> sector miss (the sector is filled)
//   tag absent                  -> line miss: the LRU way of the line's
//                                  partition is replaced, only the touched
//                                  sectors become valid
// Persisting carve-out (CUDA's persisting access-policy window): the first
// P = floor(persisting_bytes / (sets · line_bytes)) ways of every set
// (at most associativity − 1) take only lines of persisting blocks, the
// other ways only normal lines. The engine marks a block persisting when it
// is pinned in the fast tier. (CUDA lets normal lines borrow an unused
// carve-out; this static split does not.)
// Set sampling (Kessler, Hill & Wood, "A comparison of trace-sampling
// techniques for multi-megabyte caches", IEEE Trans. Computers 43(6), 1994):
// with sampled_sets = S > 0, only the S sets whose index hashes lowest
// (splitmix64) are simulated; counts are scaled by sets / S, an unbiased
// estimate when accesses spread evenly over sets.
// How an access is walked (`l2.model`): `range` (default, l2_range_walk.h)
// fills a set's share of a long range at once; `line` (l2_line_walk.h) looks
// up every line and is kept as the reference. Both give the same counts.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sim/engine/event/l2_geometry.h"
#include "sim/engine/hardware_profile.h"
#include "sim/metrics/component_stats.h"

namespace flashsim {

/// L2 counters of one run. The `sampled_*` fields are exact counts over the
/// simulated sets; the unprefixed ones are estimates for the whole L2
/// (sampled × scale).
struct L2Stats {
  bool enabled = false;
  std::uint64_t sets = 0;
  std::uint64_t simulated_sets = 0;
  double scale = 1.0;                    ///< sets / simulated_sets
  std::uint32_t persisting_ways = 0;
  std::uint64_t accesses = 0;            ///< address-level accesses seen (not scaled)
  std::uint64_t sampled_sector_hits = 0;
  std::uint64_t sampled_sector_misses = 0;  ///< tag present, sector invalid
  std::uint64_t sampled_line_misses = 0;    ///< tag absent (each fills >= 1 sector)
  std::uint64_t sampled_line_miss_sectors = 0;  ///< sectors touched by those line misses
  double sector_hits = 0;                ///< estimates for all sets
  double sector_misses = 0;
  double line_misses = 0;
  /// Sector hit ratio: hits / (hits + sector misses + line-miss sectors); 0 if none.
  double sector_hit_ratio() const;
  /// Its statistics under `component` (nothing when the model is off).
  void report(const std::string& component, ComponentStats& out) const;
};

class L2Model {
 public:
  /// Throws InputError on an impossible geometry (l2_geometry.h).
  explicit L2Model(const L2Spec& spec);

  bool enabled() const { return spec_.capacity_bytes > 0; }

  /// Accesses [address, address + bytes) (bytes > 0) and returns the ns it
  /// adds: miss_latency_ns if any simulated sector missed, hit_latency_ns
  /// if all hit; if no touched sector lies in a simulated set, the
  /// expectation hit·h + miss·(1 − h) with h the sector hit ratio so far
  /// (miss latency before any sample), rounded to the nearest ns.
  Nanoseconds access(std::uint64_t address, ByteCount bytes, bool persisting);

  L2Stats stats() const;

 private:
  L2Spec spec_;
  std::unique_ptr<L2Walk> walk_;  // null when disabled
  std::uint64_t accesses_ = 0;
  L2Counts counts_;
};

}  // namespace flashsim
