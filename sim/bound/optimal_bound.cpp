#include "sim/bound/optimal_bound.h"

#include <lemon/network_simplex.h>
#include <lemon/smart_graph.h>

#include <algorithm>
#include <chrono>
#include <unordered_map>

#include "sim/core/errors.h"

namespace flashsim {
namespace {

/// A reuse interval: the block accessed at `from` is accessed next at `to`
/// with the same size.
struct Interval {
  std::size_t from = 0, to = 0;
  ByteCount bytes = 0;
};

/// What one min-cost flow says about a set of intervals.
struct FlowResult {
  double min_cost = 0;           ///< fractional misses (1/s per byte) or bytes missed (1 per byte)
  std::uint64_t whole_hits = 0;  ///< intervals routed entirely through the tier
  ByteCount whole_hit_bytes = 0;
};

/// FOO on the accesses [first, first + nodes) and the intervals `iv` inside them.
FlowResult solve_foo(const std::vector<Interval>& iv, std::size_t first, std::size_t nodes, ByteCount capacity,
                     bool by_byte) {
  using Graph = lemon::SmartDigraph;
  Graph g;
  g.reserveNode(static_cast<int>(nodes));
  g.reserveArc(static_cast<int>(nodes + iv.size()));
  std::vector<Graph::Node> node(nodes);
  for (auto& n : node) n = g.addNode();
  Graph::ArcMap<std::int64_t> upper(g);
  Graph::ArcMap<double> cost(g);
  Graph::NodeMap<std::int64_t> supply(g, 0);
  for (std::size_t i = 0; i + 1 < nodes; ++i) {
    const Graph::Arc a = g.addArc(node[i], node[i + 1]);
    upper[a] = static_cast<std::int64_t>(capacity);
    cost[a] = 0;
  }
  std::vector<Graph::Arc> bypass(iv.size());
  for (std::size_t k = 0; k < iv.size(); ++k) {
    const Interval& v = iv[k];
    const auto s = static_cast<std::int64_t>(v.bytes);
    bypass[k] = g.addArc(node[v.from - first], node[v.to - first]);
    upper[bypass[k]] = s;
    cost[bypass[k]] = by_byte ? 1.0 : 1.0 / static_cast<double>(s);
    supply[node[v.from - first]] += s;
    supply[node[v.to - first]] -= s;
  }
  lemon::NetworkSimplex<Graph, std::int64_t, double> ns(g);
  ns.upperMap(upper).costMap(cost).supplyMap(supply);
  if (ns.run() != lemon::NetworkSimplex<Graph, std::int64_t, double>::OPTIMAL) {
    throw Error("trace bound: the min-cost flow found no optimum (not expected: every interval may be a miss)");
  }
  FlowResult r;
  for (std::size_t k = 0; k < iv.size(); ++k) {
    const std::int64_t missed = ns.flow(bypass[k]);
    r.min_cost += static_cast<double>(missed) * cost[bypass[k]];
    if (missed == 0) {
      ++r.whole_hits;
      r.whole_hit_bytes += iv[k].bytes;
    }
  }
  return r;
}

/// PFOO-L: the per-time capacity relaxed to its total over the trace.
/// Returns {hits, hit bytes}, both fractional upper bounds.
std::pair<double, double> pfoo_lower_misses(std::vector<Interval> iv, std::size_t accesses, ByteCount capacity) {
  std::erase_if(iv, [&](const Interval& v) { return v.bytes > capacity; });
  const double budget = static_cast<double>(capacity) * static_cast<double>(accesses - 1);
  auto fill = [&](auto weight, auto value) {
    double left = budget, got = 0;
    for (const Interval& v : iv) {
      const double w = weight(v);
      if (w <= left) {
        left -= w;
        got += value(v);
      } else {
        got += value(v) * left / w;
        break;
      }
    }
    return got;
  };
  auto resource = [](const Interval& v) { return static_cast<double>(v.bytes) * static_cast<double>(v.to - v.from); };
  // Most hits: least resource first. Most bytes: shortest first (resource per byte is the length).
  std::sort(iv.begin(), iv.end(), [&](const Interval& a, const Interval& b) { return resource(a) < resource(b); });
  const double hits = fill(resource, [](const Interval&) { return 1.0; });
  std::sort(iv.begin(), iv.end(), [](const Interval& a, const Interval& b) { return a.to - a.from < b.to - b.from; });
  const double bytes = fill(resource, [](const Interval& v) { return static_cast<double>(v.bytes); });
  return {hits, bytes};
}

}  // namespace

std::vector<HitBound> optimal_hit_bounds(const std::vector<AccessRecord>& records,
                                         const std::vector<ByteCount>& capacities, const BoundOptions& options) {
  if (records.empty()) throw InputError("trace bound: the trace has no accesses");
  if (options.exact_max_accesses == 0 || options.segment_accesses < 2) {
    throw InputError("trace bound: --exact-max-accesses must be >= 1 and --segment >= 2");
  }
  // Reuse intervals; 0-byte accesses take no space and count as hits when reused.
  std::vector<Interval> intervals;
  std::unordered_map<BlockId, std::size_t> last;
  std::uint64_t free_hits = 0;
  ByteCount total_bytes = 0;
  for (std::size_t i = 0; i < records.size(); ++i) {
    const AccessRecord& r = records[i];
    total_bytes += r.bytes;
    const auto it = last.find(r.block_id);
    if (it != last.end() && records[it->second].bytes == r.bytes) {
      if (r.bytes == 0) {
        ++free_hits;
      } else {
        intervals.push_back({it->second, i, r.bytes});
      }
    }
    last[r.block_id] = i;
  }
  ByteCount interval_bytes = 0;
  for (const Interval& v : intervals) interval_bytes += v.bytes;
  const double n = static_cast<double>(records.size());
  const double nb = total_bytes > 0 ? static_cast<double>(total_bytes) : 1.0;
  const bool exact = records.size() <= options.exact_max_accesses;

  std::vector<HitBound> out;
  for (const ByteCount capacity : capacities) {
    if (capacity == 0) throw InputError("trace bound: a capacity of 0 bytes");
    const auto t0 = std::chrono::steady_clock::now();
    HitBound b;
    b.capacity_bytes = capacity;
    b.accesses = records.size();
    b.intervals = intervals.size();
    b.bytes = total_bytes;
    if (exact) {
      b.method = "FOO";
      const FlowResult access = solve_foo(intervals, 0, records.size(), capacity, false);
      const FlowResult bytes = solve_foo(intervals, 0, records.size(), capacity, true);
      b.hit_ratio_by_access_upper = (static_cast<double>(intervals.size()) - access.min_cost + free_hits) / n;
      b.hit_ratio_by_access_lower = static_cast<double>(access.whole_hits + free_hits) / n;
      b.hit_ratio_by_byte_upper = (static_cast<double>(interval_bytes) - bytes.min_cost) / nb;
      b.hit_ratio_by_byte_lower = static_cast<double>(bytes.whole_hit_bytes) / nb;
    } else {
      b.method = "PFOO-L / segmented FOO-U";
      const auto [hits, hit_bytes] = pfoo_lower_misses(intervals, records.size(), capacity);
      b.hit_ratio_by_access_upper = (hits + static_cast<double>(free_hits)) / n;
      b.hit_ratio_by_byte_upper = hit_bytes / nb;
      std::uint64_t lower_hits = free_hits;
      ByteCount lower_bytes = 0;
      std::size_t next = 0;  // intervals are in order of `to` (made at their second access)
      for (std::size_t first = 0; first < records.size(); first += options.segment_accesses) {
        const std::size_t end = std::min(records.size(), first + options.segment_accesses);
        std::vector<Interval> inside;
        for (; next < intervals.size() && intervals[next].to < end; ++next) {
          if (intervals[next].from >= first) inside.push_back(intervals[next]);  // else it crosses: a miss
        }
        lower_hits += solve_foo(inside, first, end - first, capacity, false).whole_hits;
        lower_bytes += solve_foo(inside, first, end - first, capacity, true).whole_hit_bytes;
      }
      b.hit_ratio_by_access_lower = static_cast<double>(lower_hits) / n;
      b.hit_ratio_by_byte_lower = static_cast<double>(lower_bytes) / nb;
    }
    // The LP's floating-point cost may leave the upper bound a hair under the integral lower one.
    b.hit_ratio_by_access_upper = std::max(b.hit_ratio_by_access_upper, b.hit_ratio_by_access_lower);
    b.hit_ratio_by_byte_upper = std::max(b.hit_ratio_by_byte_upper, b.hit_ratio_by_byte_lower);
    b.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    out.push_back(std::move(b));
  }
  return out;
}

}  // namespace flashsim
