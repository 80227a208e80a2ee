#include "sim/engine/event/l2_range_walk.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <utility>

namespace flashsim {

L2RangeWalk::L2RangeWalk(L2Geometry geometry) : L2Walk(std::move(geometry)) {
  entries_.assign(geometry_.sampled.size() * geometry_.ways, Entry{});
  used_.assign(geometry_.sampled.size() * 2, 0);
  seen_lines_.assign(geometry_.ways, 0);
}

L2RangeWalk::Partition L2RangeWalk::partition(std::uint32_t index) const {
  const std::uint32_t carve_out = geometry_.persisting_ways;
  if (index == 0) return {0, carve_out};
  return {carve_out, geometry_.ways - carve_out};
}

std::uint32_t L2RangeWalk::partition_of(bool persisting) const {
  return persisting && geometry_.persisting_ways > 0 ? 0u : 1u;
}

bool L2RangeWalk::touch_line(std::uint64_t line, std::uint32_t slot, std::uint64_t mask, bool persisting,
                             L2Counts& counts) {
  Entry* set = &entries_[std::size_t(slot) * geometry_.ways];
  for (std::uint32_t p = 0; p < 2; ++p) {
    Entry* front = set + partition(p).base;
    const std::uint32_t used = used_[std::size_t(slot) * 2 + p];
    for (std::uint32_t j = 0; j < used; ++j) {
      if (front[j].line != line) continue;
      Entry e = front[j];
      const std::uint64_t hit = mask & e.valid_sectors;
      const std::uint64_t miss = mask & ~e.valid_sectors;
      counts.sector_hits += std::popcount(hit);
      counts.sector_misses += std::popcount(miss);
      e.valid_sectors |= mask;
      std::memmove(front + 1, front, j * sizeof(Entry));
      front[0] = e;
      return miss != 0;
    }
  }
  const std::uint32_t index = partition_of(persisting);
  const Partition part = partition(index);
  std::uint32_t& used = used_[std::size_t(slot) * 2 + index];
  Entry* front = set + part.base;
  const std::uint32_t keep = std::min(used, part.capacity - 1);
  std::memmove(front + 1, front, keep * sizeof(Entry));
  front[0] = Entry{line, mask};
  used = keep + 1;
  ++counts.line_misses;
  counts.line_miss_sectors += std::popcount(mask);
  return true;
}

bool L2RangeWalk::fill_lines(std::uint64_t first, std::uint64_t count, std::uint32_t slot, bool persisting,
                             L2Counts& counts) {
  const std::uint64_t sets = geometry_.sets;
  const std::uint64_t last = first + (count - 1) * sets;
  const std::uint64_t full = geometry_.full_mask();
  // Every line this set holds is = set (mod sets): it is one of the range's iff first <= line <= last.
  const std::uint64_t span = last - first;
  const auto in_range = [&](const Entry& e) { return e.line - first <= span; };  // below first wraps above span
  Entry* set = &entries_[std::size_t(slot) * geometry_.ways];
  const std::uint32_t index = partition_of(persisting);
  const Partition part = partition(index);
  const Partition other = partition(1 - index);
  const std::uint32_t other_used = used_[std::size_t(slot) * 2 + (1 - index)];
  if (std::any_of(set + other.base, set + other.base + other_used, in_range)) {
    // A range line in the other partition hits there and never enters this
    // one: the per-line path, exact anywhere (only with a carve-out).
    bool missed = false;
    for (std::uint64_t k = 0; k < count; ++k) missed |= touch_line(first + k * sets, slot, full, persisting, counts);
    return missed;
  }
  // LRU stack of the partition while the range's lines L0 < L1 < ... are
  // touched in order: after k of them, [L(k-1) ... L0] then the entries not
  // yet touched in their old order, cut at `capacity`. So Lk, held at
  // position p, is still there when touched iff k + p - a < capacity, a =
  // range lines above it (position < p) that come before it (touched, moved
  // to the front part). The partition ends as the last min(count, capacity)
  // lines, most recent first, then the survivors that are not range lines.
  std::uint32_t& used = used_[std::size_t(slot) * 2 + index];
  Entry* front = set + part.base;
  std::uint64_t hits = 0;
  bool sector_missed = false;
  // In units of `sets` (k·sets = line − first): no division per held line.
  const std::uint64_t cut = std::uint64_t(part.capacity) * sets;
  // The range lines met so far (above p), to count those before Lk; held
  // most recent first they usually come in falling order, and then none is.
  std::uint32_t seen = 0;
  std::uint64_t lowest_seen = ~std::uint64_t{0};
  bool any_held = false;  // one branch-free pass first: usually none is
  for (std::uint32_t p = 0; p < used; ++p) any_held |= in_range(front[p]);
  for (std::uint32_t p = 0; any_held && p < used; ++p) {
    if (!in_range(front[p])) continue;
    const std::uint64_t line = front[p].line;
    const std::uint64_t k_sets = line - first;
    bool pushed_out = k_sets >= cut;  // k >= capacity: pushed out before its turn, a line miss
    if (!pushed_out && k_sets + std::uint64_t(p) * sets >= cut) {
      std::uint32_t above_before = 0;
      if (line > lowest_seen) {
        for (std::uint32_t q = 0; q < seen; ++q) above_before += seen_lines_[q] < line;
      }
      pushed_out = k_sets + std::uint64_t(p - above_before) * sets >= cut;
    }
    seen_lines_[seen++] = line;
    lowest_seen = std::min(lowest_seen, line);
    if (pushed_out) continue;
    ++hits;
    const std::uint64_t miss = full & ~front[p].valid_sectors;
    counts.sector_hits += std::popcount(full & front[p].valid_sectors);
    counts.sector_misses += std::popcount(miss);
    sector_missed |= miss != 0;
  }
  counts.line_misses += count - hits;
  counts.line_miss_sectors += (count - hits) * geometry_.sectors_per_line;
  const std::uint32_t placed = static_cast<std::uint32_t>(std::min<std::uint64_t>(count, part.capacity));
  // Survivors keep their order: compacted in place, then shifted behind the placed lines.
  std::uint32_t kept = 0;
  if (!any_held) {  // none of the range's lines was held: the survivors are the first ones already
    kept = std::min(used, part.capacity - placed);
  } else {
    for (std::uint32_t p = 0; p < used && kept < part.capacity - placed; ++p) {
      if (!in_range(front[p])) front[kept++] = front[p];
    }
  }
  std::memmove(front + placed, front, kept * sizeof(Entry));
  for (std::uint32_t j = 0; j < placed; ++j) front[j] = Entry{last - j * sets, full};  // most recent (last) first
  used = kept + placed;
  return sector_missed || hits < count;
}

L2Walk::Touch L2RangeWalk::access(std::uint64_t address, std::uint64_t end, bool persisting, L2Counts& counts) {
  const L2Geometry& g = geometry_;
  const std::uint64_t first_line = address / g.line_bytes;
  const std::uint64_t last_line = (end - 1) / g.line_bytes;
  const std::uint64_t lines = last_line - first_line + 1;
  Touch t;
  if (lines <= g.sampled.size()) {  // at most one line a set
    for (std::uint64_t line = first_line; line <= last_line; ++line) {
      const std::int32_t slot = g.slot_of_set[line % g.sets];
      if (slot < 0) continue;
      t.touched = true;
      t.missed |= touch_line(line, static_cast<std::uint32_t>(slot), g.mask_for(line, address, end), persisting, counts);
    }
    return t;
  }
  const bool head_partial = address % g.line_bytes != 0;
  const bool tail_partial = end % g.line_bytes != 0;
  // The set at offset d from the first line's set holds q + (d < r) of the
  // range's lines, lines = q·sets + r: two divisions an access, none a set.
  const std::uint64_t first_set = first_line % g.sets;
  const std::uint64_t q = lines / g.sets;
  const std::uint64_t r = lines % g.sets;
  for (std::size_t i = 0; i < g.sampled.size(); ++i) {
    const auto slot = static_cast<std::uint32_t>(i);
    const std::uint64_t set = g.sampled[i];
    const std::uint64_t d = set >= first_set ? set - first_set : set + g.sets - first_set;
    std::uint64_t count = q + (d < r ? 1 : 0);
    if (count == 0) continue;
    std::uint64_t line = first_line + d;
    t.touched = true;
    if (head_partial && line == first_line) {
      t.missed |= touch_line(line, slot, g.mask_for(line, address, end), persisting, counts);
      line += g.sets;
      --count;
    }
    const bool tail = tail_partial && count > 0 && line + (count - 1) * g.sets == last_line;
    if (tail) --count;
    if (count > 0) t.missed |= fill_lines(line, count, slot, persisting, counts);
    if (tail) t.missed |= touch_line(last_line, slot, g.mask_for(last_line, address, end), persisting, counts);
  }
  return t;
}

}  // namespace flashsim
