#include "sim/engine/event/l2_geometry.h"

#include <algorithm>
#include <string>
#include <utility>

#include "sim/core/errors.h"

namespace flashsim {

namespace {
std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}
}  // namespace

L2Geometry::L2Geometry(const L2Spec& spec) : line_bytes(spec.line_bytes), sector_bytes(spec.sector_bytes) {
  if (spec.line_bytes == 0 || spec.sector_bytes == 0 || spec.line_bytes % spec.sector_bytes != 0) {
    throw InputError("l2: line_size (" + std::to_string(spec.line_bytes) + ") must be a positive multiple of sector_size (" +
                     std::to_string(spec.sector_bytes) + ")");
  }
  sectors_per_line = static_cast<std::uint32_t>(spec.line_bytes / spec.sector_bytes);
  if (sectors_per_line > 64) throw InputError("l2: at most 64 sectors per line");
  if (spec.associativity == 0) throw InputError("l2: associativity must be >= 1");
  ways = spec.associativity;
  sets = spec.capacity_bytes / (spec.line_bytes * ways);
  if (sets == 0) throw InputError("l2: capacity is smaller than one set (line_size x associativity)");
  if (sets > L2Spec::kMaxSets) {
    throw InputError("l2: capacity / (line_size x associativity) = " + std::to_string(sets) + " sets, more than the " +
                     std::to_string(L2Spec::kMaxSets) +
                     " an L2 model may have (a 50 MiB L2 of 16-way 128 B lines has 25,600); "
                     "use a larger line_size or associativity");
  }
  const std::uint64_t way_bytes = sets * spec.line_bytes;
  persisting_ways = static_cast<std::uint32_t>(std::min<std::uint64_t>(spec.persisting_bytes / way_bytes, ways - 1));

  const std::uint64_t wanted = spec.sampled_sets == L2Spec::kAutoSampledSets ? L2Spec::kAutoSampledSetsLimit
                               : spec.sampled_sets == 0                   ? sets
                                                                          : spec.sampled_sets;
  const std::uint64_t simulated = std::min<std::uint64_t>(wanted, sets);
  if (simulated * ways > L2Spec::kMaxSimulatedLines) {
    throw InputError("l2: " + std::to_string(simulated) + " simulated sets x " + std::to_string(ways) + " ways = " +
                     std::to_string(simulated * ways) + " lines, more than the " +
                     std::to_string(L2Spec::kMaxSimulatedLines) +
                     " simulated lines a run may hold; set l2.sampled_sets (set sampling) to fewer sets");
  }
  if (simulated == sets) {
    sampled.resize(sets);
    for (std::uint64_t s = 0; s < sets; ++s) sampled[s] = s;
  } else {
    std::vector<std::pair<std::uint64_t, std::uint64_t>> ranked(sets);
    for (std::uint64_t s = 0; s < sets; ++s) ranked[s] = {splitmix64(s), s};
    std::nth_element(ranked.begin(), ranked.begin() + static_cast<std::ptrdiff_t>(simulated), ranked.end());
    sampled.resize(simulated);
    for (std::uint64_t i = 0; i < simulated; ++i) sampled[i] = ranked[i].second;
    std::sort(sampled.begin(), sampled.end());
  }
  slot_of_set.assign(sets, -1);
  for (std::size_t i = 0; i < sampled.size(); ++i) slot_of_set[sampled[i]] = static_cast<std::int32_t>(i);
}

std::uint64_t L2Geometry::mask_for(std::uint64_t line, std::uint64_t first_byte, std::uint64_t end_byte) const {
  const std::uint64_t line_begin = line * line_bytes;
  const std::uint64_t lo = std::max(first_byte, line_begin) - line_begin;
  const std::uint64_t hi = std::min(end_byte, line_begin + line_bytes) - line_begin;  // exclusive
  const std::uint64_t first_sector = lo / sector_bytes;
  const std::uint64_t last_sector = (hi - 1) / sector_bytes;
  const std::uint64_t count = last_sector - first_sector + 1;
  const std::uint64_t ones = count >= 64 ? ~0ull : ((1ull << count) - 1);
  return ones << first_sector;
}

}  // namespace flashsim
