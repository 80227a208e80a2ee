#include "sim/engine/event/l2_line_walk.h"

#include <bit>
#include <utility>

namespace flashsim {

L2LineWalk::L2LineWalk(L2Geometry geometry) : L2Walk(std::move(geometry)) {
  ways_table_.assign(geometry_.sampled.size() * geometry_.ways, Way{});
}

bool L2LineWalk::touch_line(std::uint64_t line, std::uint32_t slot, std::uint64_t mask, bool persisting, L2Counts& counts) {
  const std::uint32_t ways = geometry_.ways;
  Way* set = &ways_table_[std::size_t(slot) * ways];
  ++clock_;
  for (std::uint32_t w = 0; w < ways; ++w) {
    Way& way = set[w];
    if (way.valid_sectors != 0 && way.line == line) {
      const std::uint64_t hit = mask & way.valid_sectors;
      const std::uint64_t miss = mask & ~way.valid_sectors;
      counts.sector_hits += std::popcount(hit);
      counts.sector_misses += std::popcount(miss);
      way.valid_sectors |= mask;
      way.last_use = clock_;
      return miss != 0;
    }
  }
  // Line miss: replace an empty way, else the LRU way, of the line's partition.
  const std::uint32_t carve_out = geometry_.persisting_ways;
  const bool in_carve_out = persisting && carve_out > 0;
  const std::uint32_t begin = in_carve_out ? 0 : carve_out;
  const std::uint32_t end = in_carve_out ? carve_out : ways;
  std::uint32_t victim = begin;
  for (std::uint32_t w = begin; w < end; ++w) {
    if (set[w].valid_sectors == 0) {
      victim = w;
      break;
    }
    if (set[w].last_use < set[victim].last_use) victim = w;
  }
  set[victim] = Way{line, mask, clock_};
  ++counts.line_misses;
  counts.line_miss_sectors += std::popcount(mask);
  return true;
}

L2Walk::Touch L2LineWalk::access(std::uint64_t address, std::uint64_t end, bool persisting, L2Counts& counts) {
  const L2Geometry& g = geometry_;
  const std::uint64_t first_line = address / g.line_bytes;
  const std::uint64_t last_line = (end - 1) / g.line_bytes;
  const std::uint64_t lines = last_line - first_line + 1;
  Touch t;
  if (lines <= g.sampled.size()) {
    for (std::uint64_t line = first_line; line <= last_line; ++line) {
      const std::int32_t slot = g.slot_of_set[line % g.sets];
      if (slot < 0) continue;
      t.touched = true;
      t.missed |= touch_line(line, static_cast<std::uint32_t>(slot), g.mask_for(line, address, end), persisting, counts);
    }
    return t;
  }
  // Long range: visit each simulated set's lines (line ≡ set mod sets)
  // in address order; sets are independent, so this equals address order.
  const std::uint64_t first_set = first_line % g.sets;
  for (std::size_t i = 0; i < g.sampled.size(); ++i) {
    std::uint64_t line = first_line + (g.sampled[i] + g.sets - first_set) % g.sets;
    for (; line <= last_line; line += g.sets) {
      t.touched = true;
      t.missed |= touch_line(line, static_cast<std::uint32_t>(i), g.mask_for(line, address, end), persisting, counts);
    }
  }
  return t;
}

}  // namespace flashsim
