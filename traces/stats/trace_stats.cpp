#include "traces/stats/trace_stats.h"

#include <algorithm>
#include <bit>
#include <limits>

#include "traces/stats/footprint.h"
#include "traces/stats/stack_distance.h"

namespace flashsim {

std::string ReuseHistogram::label(std::size_t k) {
  if (k == 0) return "0";
  if (k == 1) return "1";
  const std::uint64_t lo = std::uint64_t{1} << (k - 1);
  return std::to_string(lo) + "-" + std::to_string(2 * lo - 1);
}

namespace {

constexpr std::size_t kChunk = 65536;
__extension__ typedef unsigned __int128 U128;

std::vector<std::uint64_t> auto_capacities(std::uint64_t total, std::size_t points) {
  std::vector<std::uint64_t> out;
  if (total == 0 || points == 0) return out;
  for (std::size_t i = 1; i <= points; ++i) {
    const auto wide = static_cast<U128>(total) * i;
    out.push_back(static_cast<std::uint64_t>((wide + points - 1) / points));
  }
  return out;
}

// Hits binned at the smallest capacity that holds them.
struct CurveAccumulator {
  std::vector<std::uint64_t> capacities;
  std::vector<std::uint64_t> hits;
  std::vector<ByteCount> hit_bytes;

  explicit CurveAccumulator(std::vector<std::uint64_t> caps) : capacities(std::move(caps)) {
    std::sort(capacities.begin(), capacities.end());
    capacities.erase(std::unique(capacities.begin(), capacities.end()), capacities.end());
    hits.assign(capacities.size() + 1, 0);
    hit_bytes.assign(capacities.size() + 1, 0);
  }
  void add(std::uint64_t distance, ByteCount bytes) {
    const std::size_t k = static_cast<std::size_t>(
        std::lower_bound(capacities.begin(), capacities.end(), distance) - capacities.begin());
    ++hits[k];
    hit_bytes[k] += bytes;
  }
  MissRatioCurve finish(MissRatioCurve::Unit unit, std::uint64_t records, ByteCount total_bytes) const {
    MissRatioCurve c;
    c.capacity_unit = unit;
    c.capacities = capacities;
    std::uint64_t h = 0;
    ByteCount hb = 0;
    for (std::size_t k = 0; k < capacities.size(); ++k) {
      h += hits[k];
      hb += hit_bytes[k];
      c.misses.push_back(records - h);
      c.missed_bytes.push_back(total_bytes - hb);
      c.miss_ratio_by_access.push_back(
          records ? static_cast<double>(records - h) / static_cast<double>(records) : 0.0);
      c.miss_ratio_by_byte.push_back(
          total_bytes ? static_cast<double>(total_bytes - hb) / static_cast<double>(total_bytes) : 0.0);
    }
    return c;
  }
};

}  // namespace

TraceStats compute_stats(ITraceSource& source, const StatsOptions& options) {
  std::vector<std::uint64_t> cap_blocks = options.capacity_blocks;
  std::vector<std::uint64_t> cap_bytes = options.capacity_bytes;
  if (cap_blocks.empty() || cap_bytes.empty()) {
    const TraceFootprint f = measure_footprint(source);
    if (cap_blocks.empty()) cap_blocks = auto_capacities(f.blocks, options.auto_points);
    if (cap_bytes.empty()) cap_bytes = auto_capacities(f.bytes, options.auto_points);
  }
  CurveAccumulator by_blocks(std::move(cap_blocks));
  CurveAccumulator by_bytes(std::move(cap_bytes));

  TraceStats st;
  StackDistanceTracker tracker;
  std::vector<ByteCount> largest;  // per dense block index
  std::vector<std::uint64_t> buckets(65, 0);
  std::vector<AccessRecord> buffer(buffer_records_for(source.meta(), kChunk));
  source.rewind();
  while (const std::size_t n = source.read(buffer)) {
    for (std::size_t i = 0; i < n; ++i) {
      const AccessRecord& r = buffer[i];
      if (st.records == 0) {
        st.first_time_ns = st.last_time_ns = r.time_ns;
      } else {
        st.first_time_ns = std::min(st.first_time_ns, r.time_ns);
        st.last_time_ns = std::max(st.last_time_ns, r.time_ns);
      }
      ++st.records;
      st.accessed_bytes += r.bytes;
      (r.op == AccessOp::write ? st.writes : st.reads) += 1;
      const auto d = tracker.access(r.block_id, r.bytes, options.size_change == SizeChange::hit);
      if (d.cold) {
        largest.push_back(r.bytes);
        ++st.reuse.cold;
        continue;
      }
      largest[d.block_index] = std::max(largest[d.block_index], r.bytes);
      ++buckets[static_cast<std::size_t>(std::bit_width(d.reuse_distance))];
      by_blocks.add(d.reuse_distance + 1, r.bytes);
      const bool refetched = options.size_change == SizeChange::refetch && d.previous_bytes != r.bytes;
      by_bytes.add(refetched ? std::numeric_limits<std::uint64_t>::max() : d.byte_stack_distance, r.bytes);
    }
  }
  source.rewind();
  st.unique_blocks = largest.size();
  for (const ByteCount b : largest) st.footprint_bytes += b;
  st.time_span_ns = st.last_time_ns - st.first_time_ns;
  while (!buckets.empty() && buckets.back() == 0) buckets.pop_back();
  st.reuse.buckets = std::move(buckets);
  st.mrc_blocks = by_blocks.finish(MissRatioCurve::Unit::blocks, st.records, st.accessed_bytes);
  st.mrc_bytes = by_bytes.finish(MissRatioCurve::Unit::bytes, st.records, st.accessed_bytes);
  st.mrc_bytes.method = options.size_change == SizeChange::refetch
                            ? "one pass over LRU stack distances; an access whose size differs from its block's "
                              "previous one misses (size_change refetch)"
                            : "one pass over LRU stack distances, a block keeping its first size (size_change hit, "
                              "approximate)";
  return st;
}

}  // namespace flashsim
