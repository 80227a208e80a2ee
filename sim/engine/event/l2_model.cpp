#include "sim/engine/event/l2_model.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <string>
#include <utility>

#include "sim/engine/event/l2_line_walk.h"
#include "sim/engine/event/l2_range_walk.h"

namespace flashsim {

double L2Stats::sector_hit_ratio() const {
  const double total = double(sampled_sector_hits) + double(sampled_sector_misses) + double(sampled_line_miss_sectors);
  return total > 0 ? double(sampled_sector_hits) / total : 0.0;
}

L2Model::L2Model(const L2Spec& spec) : spec_(spec) {
  if (!enabled()) return;
  L2Geometry geometry(spec);
  if (spec.model == L2Spec::Model::line) {
    walk_ = std::make_unique<L2LineWalk>(std::move(geometry));
  } else {
    walk_ = std::make_unique<L2RangeWalk>(std::move(geometry));
  }
}

Nanoseconds L2Model::access(std::uint64_t address, ByteCount bytes, bool persisting) {
  if (!enabled() || bytes == 0) return 0;
  ++accesses_;
  const L2Walk::Touch t = walk_->access(address, address + bytes, persisting, counts_);
  if (t.touched) return t.missed ? spec_.miss_latency_ns : spec_.hit_latency_ns;
  const double total =
      double(counts_.sector_hits) + double(counts_.sector_misses) + double(counts_.line_miss_sectors);
  if (total == 0) return spec_.miss_latency_ns;
  const double h = double(counts_.sector_hits) / total;
  return std::llround(h * double(spec_.hit_latency_ns) + (1 - h) * double(spec_.miss_latency_ns));
}

L2Stats L2Model::stats() const {
  L2Stats s;
  s.enabled = enabled();
  if (walk_) {
    const L2Geometry& g = walk_->geometry();
    s.sets = g.sets;
    s.simulated_sets = g.sampled.size();
    s.scale = double(g.sets) / double(g.sampled.size());
    s.persisting_ways = g.persisting_ways;
  }
  s.accesses = accesses_;
  s.sampled_sector_hits = counts_.sector_hits;
  s.sampled_sector_misses = counts_.sector_misses;
  s.sampled_line_misses = counts_.line_misses;
  s.sampled_line_miss_sectors = counts_.line_miss_sectors;
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
