#include "traces/stats/stats_report.h"

#include <cstdio>
#include <nlohmann/json.hpp>

namespace flashsim {

namespace {

constexpr const char* kBlocksRule = "hit iff LRU stack distance (distinct blocks since last access, + 1) <= capacity";
constexpr const char* kBytesRule =
    "hit iff byte stack distance (bytes of distinct blocks since last access + own bytes) <= capacity";

std::string human_bytes(ByteCount b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  double v = static_cast<double>(b);
  int u = 0;
  while (v >= 1024.0 && u < 5) {
    v /= 1024.0;
    ++u;
  }
  char buf[64];
  std::snprintf(buf, sizeof(buf), u == 0 ? "%.0f %s" : "%.2f %s", v, units[u]);
  return buf;
}

std::string human_ns(Nanoseconds ns) {
  char buf[64];
  const double v = static_cast<double>(ns);
  if (ns < 0) std::snprintf(buf, sizeof(buf), "%lld ns", static_cast<long long>(ns));
  else if (ns < 1000) std::snprintf(buf, sizeof(buf), "%lld ns", static_cast<long long>(ns));
  else if (ns < 1000000) std::snprintf(buf, sizeof(buf), "%.3f us", v / 1e3);
  else if (ns < 1000000000) std::snprintf(buf, sizeof(buf), "%.3f ms", v / 1e6);
  else std::snprintf(buf, sizeof(buf), "%.3f s", v / 1e9);
  return buf;
}

std::string line(const char* fmt, auto... args) {
  char buf[512];
  std::snprintf(buf, sizeof(buf), fmt, args...);
  return buf;
}

void curve_text(std::string& out, const MissRatioCurve& c, const char* heading, const char* unit) {
  out += heading;
  if (!c.method.empty()) out += "  method: " + c.method + "\n";
  out += line("  %20s  %20s  %18s  %12s\n", unit, "miss_ratio_by_access", "miss_ratio_by_byte", "misses");
  for (std::size_t k = 0; k < c.capacities.size(); ++k) {
    out += line("  %20llu  %20.6f  %18.6f  %12llu\n", static_cast<unsigned long long>(c.capacities[k]),
                c.miss_ratio_by_access[k], c.miss_ratio_by_byte[k], static_cast<unsigned long long>(c.misses[k]));
  }
}

nlohmann::ordered_json curve_json(const MissRatioCurve& c) {
  nlohmann::ordered_json j;
  const bool blocks = c.capacity_unit == MissRatioCurve::Unit::blocks;
  j["capacity_unit"] = blocks ? "blocks" : "bytes";
  // A simulated curve follows no stack-distance rule: its method says what it is.
  const bool simulated = c.method.find("simulation") != std::string::npos;
  j["hit_rule"] = simulated ? c.method : blocks ? kBlocksRule : kBytesRule;
  if (!c.method.empty()) j["method"] = c.method;
  j["points"] = nlohmann::ordered_json::array();
  for (std::size_t k = 0; k < c.capacities.size(); ++k) {
    j["points"].push_back({{"capacity", c.capacities[k]},
                           {"misses", c.misses[k]},
                           {"missed_bytes", c.missed_bytes[k]},
                           {"miss_ratio_by_access", c.miss_ratio_by_access[k]},
                           {"miss_ratio_by_byte", c.miss_ratio_by_byte[k]}});
  }
  return j;
}

}  // namespace

std::string format_stats_text(const TraceStats& s) {
  std::string out;
  out += line("records          %llu\n", static_cast<unsigned long long>(s.records));
  out += line("unique blocks    %llu\n", static_cast<unsigned long long>(s.unique_blocks));
  out += line("footprint        %llu B (%s)\n", static_cast<unsigned long long>(s.footprint_bytes),
              human_bytes(s.footprint_bytes).c_str());
  out += line("bytes accessed   %llu B (%s)\n", static_cast<unsigned long long>(s.accessed_bytes),
              human_bytes(s.accessed_bytes).c_str());
  out += line("reads / writes   %llu / %llu\n", static_cast<unsigned long long>(s.reads),
              static_cast<unsigned long long>(s.writes));
  out += line("time span        %lld ns (%s), from %lld to %lld ns\n", static_cast<long long>(s.time_span_ns),
              human_ns(s.time_span_ns).c_str(), static_cast<long long>(s.first_time_ns),
              static_cast<long long>(s.last_time_ns));
  out += "\nreuse distance (distinct other blocks since the block's previous access)\n";
  out += line("  %-24s  %12s  %9s\n", "distance", "accesses", "fraction");
  const double n = s.records ? static_cast<double>(s.records) : 1.0;
  out += line("  %-24s  %12llu  %9.4f\n", "cold (first access)", static_cast<unsigned long long>(s.reuse.cold),
              static_cast<double>(s.reuse.cold) / n);
  for (std::size_t k = 0; k < s.reuse.buckets.size(); ++k) {
    out += line("  %-24s  %12llu  %9.4f\n", ReuseHistogram::label(k).c_str(),
                static_cast<unsigned long long>(s.reuse.buckets[k]), static_cast<double>(s.reuse.buckets[k]) / n);
  }
  out += "\n";
  curve_text(out, s.mrc_blocks,
             "LRU miss-ratio curve, capacity in blocks (uniform-size view: every block one slot;\n"
             "  hit iff LRU stack distance <= capacity)\n",
             "capacity_blocks");
  out += "\n";
  curve_text(out, s.mrc_bytes,
             "LRU miss-ratio curve, capacity in bytes (hit iff bytes of the distinct blocks since the\n"
             "  previous access + own bytes <= capacity)\n",
             "capacity_bytes");
  return out;
}

std::string format_stats_json(const TraceStats& s, int indent) {
  nlohmann::ordered_json j;
  j["records"] = s.records;
  j["unique_blocks"] = s.unique_blocks;
  j["footprint_bytes"] = s.footprint_bytes;
  j["accessed_bytes"] = s.accessed_bytes;
  j["reads"] = s.reads;
  j["writes"] = s.writes;
  j["first_time_ns"] = s.first_time_ns;
  j["last_time_ns"] = s.last_time_ns;
  j["time_span_ns"] = s.time_span_ns;
  nlohmann::ordered_json reuse;
  reuse["definition"] = "distinct other blocks accessed since the block's previous access";
  reuse["cold"] = s.reuse.cold;
  reuse["buckets"] = nlohmann::ordered_json::array();
  for (std::size_t k = 0; k < s.reuse.buckets.size(); ++k) {
    const std::uint64_t lo = k == 0 ? 0 : std::uint64_t{1} << (k - 1);
    const std::uint64_t hi = k == 0 ? 0 : 2 * lo - 1;
    reuse["buckets"].push_back({{"label", ReuseHistogram::label(k)}, {"lo", lo}, {"hi", hi}, {"accesses", s.reuse.buckets[k]}});
  }
  j["reuse_distance"] = reuse;
  j["mrc_blocks"] = curve_json(s.mrc_blocks);
  j["mrc_bytes"] = curve_json(s.mrc_bytes);
  return j.dump(indent);
}

}  // namespace flashsim
