#include "sim/engine/event/l2_model.h"

#include <algorithm>
#include <bit>
#include <cmath>
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

double L2Stats::sector_hit_ratio() const {
  const double total = double(sampled_sector_hits) + double(sampled_sector_misses) + double(sampled_line_miss_sectors);
  return total > 0 ? double(sampled_sector_hits) / total : 0.0;
}

L2Model::L2Model(const L2Spec& spec) : spec_(spec) {
  stats_.enabled = enabled();
  if (!enabled()) return;
  if (spec.line_bytes == 0 || spec.sector_bytes == 0 || spec.line_bytes % spec.sector_bytes != 0) {
    throw InputError("l2: line_size (" + std::to_string(spec.line_bytes) + ") must be a positive multiple of sector_size (" +
                     std::to_string(spec.sector_bytes) + ")");
  }
  sectors_per_line_ = static_cast<std::uint32_t>(spec.line_bytes / spec.sector_bytes);
  if (sectors_per_line_ > 64) throw InputError("l2: at most 64 sectors per line");
  if (spec.associativity == 0) throw InputError("l2: associativity must be >= 1");
  ways_ = spec.associativity;
  sets_ = spec.capacity_bytes / (spec.line_bytes * ways_);
  if (sets_ == 0) throw InputError("l2: capacity is smaller than one set (line_size x associativity)");
  if (sets_ > L2Spec::kMaxSets) {
    throw InputError("l2: capacity / (line_size x associativity) = " + std::to_string(sets_) + " sets, more than the " +
                     std::to_string(L2Spec::kMaxSets) +
                     " an L2 model may have (a 50 MiB L2 of 16-way 128 B lines has 25,600); "
                     "use a larger line_size or associativity");
  }
  const std::uint64_t way_bytes = sets_ * spec.line_bytes;
  persisting_ways_ = static_cast<std::uint32_t>(std::min<std::uint64_t>(spec.persisting_bytes / way_bytes, ways_ - 1));

  const std::uint64_t wanted = spec.sampled_sets == L2Spec::kAutoSampledSets ? L2Spec::kAutoSampledSetsLimit
                               : spec.sampled_sets == 0                   ? sets_
                                                                          : spec.sampled_sets;
  const std::uint64_t simulated = std::min<std::uint64_t>(wanted, sets_);
  if (simulated * ways_ > L2Spec::kMaxSimulatedLines) {
    throw InputError("l2: " + std::to_string(simulated) + " simulated sets x " + std::to_string(ways_) + " ways = " +
                     std::to_string(simulated * ways_) + " lines, more than the " +
                     std::to_string(L2Spec::kMaxSimulatedLines) +
                     " simulated lines a run may hold; set l2.sampled_sets (set sampling) to fewer sets");
  }
  if (simulated == sets_) {
    sampled_.resize(sets_);
    for (std::uint64_t s = 0; s < sets_; ++s) sampled_[s] = s;
  } else {
    std::vector<std::pair<std::uint64_t, std::uint64_t>> ranked(sets_);
    for (std::uint64_t s = 0; s < sets_; ++s) ranked[s] = {splitmix64(s), s};
    std::nth_element(ranked.begin(), ranked.begin() + static_cast<std::ptrdiff_t>(simulated), ranked.end());
    sampled_.resize(simulated);
    for (std::uint64_t i = 0; i < simulated; ++i) sampled_[i] = ranked[i].second;
    std::sort(sampled_.begin(), sampled_.end());
  }
  slot_of_set_.assign(sets_, -1);
  for (std::size_t i = 0; i < sampled_.size(); ++i) slot_of_set_[sampled_[i]] = static_cast<std::int32_t>(i);
  ways_table_.assign(sampled_.size() * ways_, Way{});
  stats_.sets = sets_;
  stats_.simulated_sets = simulated;
  stats_.scale = double(sets_) / double(simulated);
  stats_.persisting_ways = persisting_ways_;
}

std::uint64_t L2Model::mask_for(std::uint64_t line, std::uint64_t first_byte, std::uint64_t end_byte) const {
  const std::uint64_t line_begin = line * spec_.line_bytes;
  const std::uint64_t lo = std::max(first_byte, line_begin) - line_begin;
  const std::uint64_t hi = std::min(end_byte, line_begin + spec_.line_bytes) - line_begin;  // exclusive
  const std::uint64_t first_sector = lo / spec_.sector_bytes;
  const std::uint64_t last_sector = (hi - 1) / spec_.sector_bytes;
  const std::uint64_t count = last_sector - first_sector + 1;
  const std::uint64_t ones = count >= 64 ? ~0ull : ((1ull << count) - 1);
  return ones << first_sector;
}

bool L2Model::touch_line(std::uint64_t line, std::uint32_t slot, std::uint64_t mask, bool persisting) {
  Way* set = &ways_table_[std::size_t(slot) * ways_];
  ++clock_;
  for (std::uint32_t w = 0; w < ways_; ++w) {
    Way& way = set[w];
    if (way.valid_sectors != 0 && way.line == line) {
      const std::uint64_t hit = mask & way.valid_sectors;
      const std::uint64_t miss = mask & ~way.valid_sectors;
      stats_.sampled_sector_hits += std::popcount(hit);
      stats_.sampled_sector_misses += std::popcount(miss);
      way.valid_sectors |= mask;
      way.last_use = clock_;
      return miss != 0;
    }
  }
  // Line miss: replace an empty way, else the LRU way, of the line's partition.
  const bool in_carve_out = persisting && persisting_ways_ > 0;
  const std::uint32_t begin = in_carve_out ? 0 : persisting_ways_;
  const std::uint32_t end = in_carve_out ? persisting_ways_ : ways_;
  std::uint32_t victim = begin;
  for (std::uint32_t w = begin; w < end; ++w) {
    if (set[w].valid_sectors == 0) {
      victim = w;
      break;
    }
    if (set[w].last_use < set[victim].last_use) victim = w;
  }
  set[victim] = Way{line, mask, clock_};
  ++stats_.sampled_line_misses;
  stats_.sampled_line_miss_sectors += std::popcount(mask);
  return true;
}

Nanoseconds L2Model::access(std::uint64_t address, ByteCount bytes, bool persisting) {
  if (!enabled() || bytes == 0) return 0;
  ++stats_.accesses;
  const std::uint64_t end = address + bytes;
  const std::uint64_t first_line = address / spec_.line_bytes;
  const std::uint64_t last_line = (end - 1) / spec_.line_bytes;
  const std::uint64_t lines = last_line - first_line + 1;
  bool touched = false, missed = false;
  if (lines <= sampled_.size()) {
    for (std::uint64_t line = first_line; line <= last_line; ++line) {
      const std::int32_t slot = slot_of_set_[line % sets_];
      if (slot < 0) continue;
      touched = true;
      missed |= touch_line(line, static_cast<std::uint32_t>(slot), mask_for(line, address, end), persisting);
    }
  } else {
    // Long range: visit each simulated set's lines (line ≡ set mod sets)
    // in address order; sets are independent, so this equals address order.
    const std::uint64_t first_set = first_line % sets_;
    for (std::size_t i = 0; i < sampled_.size(); ++i) {
      const std::uint64_t set = sampled_[i];
      std::uint64_t line = first_line + (set + sets_ - first_set) % sets_;
      for (; line <= last_line; line += sets_) {
        touched = true;
        missed |= touch_line(line, static_cast<std::uint32_t>(i), mask_for(line, address, end), persisting);
      }
    }
  }
  if (touched) return missed ? spec_.miss_latency_ns : spec_.hit_latency_ns;
  const double total = double(stats_.sampled_sector_hits) + double(stats_.sampled_sector_misses) +
                       double(stats_.sampled_line_miss_sectors);
  if (total == 0) return spec_.miss_latency_ns;
  const double h = double(stats_.sampled_sector_hits) / total;
  return std::llround(h * double(spec_.hit_latency_ns) + (1 - h) * double(spec_.miss_latency_ns));
}

L2Stats L2Model::stats() const {
  L2Stats s = stats_;
  s.sector_hits = double(s.sampled_sector_hits) * s.scale;
  s.sector_misses = double(s.sampled_sector_misses) * s.scale;
  s.line_misses = double(s.sampled_line_misses) * s.scale;
  return s;
}

void L2Stats::report(const std::string& component, ComponentStats& out) const {
  if (!enabled) return;
  out.add(component, "accesses", "count", static_cast<double>(accesses));
  out.add(component, "sector_hits", "count", sector_hits);
  out.add(component, "sector_misses", "count", sector_misses);
  out.add(component, "line_misses", "count", line_misses);
  out.add(component, "sector_hit_ratio", "1", sector_hit_ratio());
  out.add(component, "sets", "count", static_cast<double>(sets));
  out.add(component, "simulated_sets", "count", static_cast<double>(simulated_sets));  // set sampling when < sets
}

}  // namespace flashsim
