// What both L2 walks share: the geometry of a sectored, set-associative L2
// (l2_model.h) and which of its sets are simulated (set sampling).
#pragma once
#include <cstdint>
#include <vector>

#include "sim/engine/hardware_profile.h"

namespace flashsim {

/// Sector counts of the simulated sets (exact, not scaled).
struct L2Counts {
  std::uint64_t sector_hits = 0;
  std::uint64_t sector_misses = 0;      ///< tag present, sector invalid
  std::uint64_t line_misses = 0;        ///< tag absent
  std::uint64_t line_miss_sectors = 0;  ///< sectors touched by those line misses
};

struct L2Geometry {
  ByteCount line_bytes = 0;
  ByteCount sector_bytes = 0;
  std::uint64_t sets = 0;
  std::uint32_t ways = 0;
  std::uint32_t persisting_ways = 0;  ///< ways [0, persisting_ways) of a set are the carve-out
  std::uint32_t sectors_per_line = 0;
  std::vector<std::int32_t> slot_of_set;  ///< set -> index into `sampled`; -1 = not simulated
  std::vector<std::uint64_t> sampled;     ///< simulated set indices, ascending

  /// Derives the geometry of an enabled `spec` (capacity_bytes > 0).
  /// Throws InputError on an impossible geometry (line not a multiple of
  /// the sector, more than 64 sectors a line, capacity below one set, more
  /// than L2Spec::kMaxSets sets or kMaxSimulatedLines simulated lines).
  explicit L2Geometry(const L2Spec& spec);
  L2Geometry() = default;

  /// The sectors of `line` that [first_byte, end_byte) touches, bit i =
  /// sector i; the range must overlap the line.
  std::uint64_t mask_for(std::uint64_t line, std::uint64_t first_byte, std::uint64_t end_byte) const;
  /// Every sector of a line.
  std::uint64_t full_mask() const { return sectors_per_line >= 64 ? ~0ull : (1ull << sectors_per_line) - 1; }
};

/// How one access is walked through the simulated sets. Two implementations
/// give identical counts and states: the per-line reference
/// (l2_line_walk.h) and the range walk (l2_range_walk.h), which fills a
/// set's share of a long range at once.
class L2Walk {
 public:
  explicit L2Walk(L2Geometry geometry) : geometry_(std::move(geometry)) {}
  virtual ~L2Walk() = default;
  L2Walk(const L2Walk&) = delete;
  L2Walk& operator=(const L2Walk&) = delete;

  struct Touch {
    bool touched = false;  ///< some touched line lies in a simulated set
    bool missed = false;   ///< some touched sector of a simulated set missed
  };
  /// Accesses [address, end) (end > address), LRU within each set;
  /// `persisting` lines go to the carve-out. Adds to `counts`.
  virtual Touch access(std::uint64_t address, std::uint64_t end, bool persisting, L2Counts& counts) = 0;

  const L2Geometry& geometry() const { return geometry_; }

 protected:
  L2Geometry geometry_;
};

}  // namespace flashsim
