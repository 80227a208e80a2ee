#include "sim/results/results_table.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

namespace flashsim {

namespace {

std::string three_digits(double value, const char* unit) {
  char buffer[48];
  const double a = std::fabs(value);
  // Pick the precision from the value as it will be rounded (9.996 -> "10.0", not "10.00").
  const char* format = a >= 99.95 ? "%.0f %s" : (a >= 9.995 ? "%.1f %s" : "%.2f %s");
  std::snprintf(buffer, sizeof buffer, format, value, unit);
  return buffer;
}

// Display width of UTF-8 text (counts code points; µ is one column).
std::size_t display_width(const std::string& s) {
  std::size_t n = 0;
  for (unsigned char c : s) {
    if ((c & 0xC0) != 0x80) ++n;
  }
  return n;
}

std::string pad(const std::string& s, std::size_t width, bool left) {
  const std::size_t w = display_width(s);
  if (w >= width) return s;
  const std::string fill(width - w, ' ');
  return left ? s + fill : fill + s;
}

}  // namespace

std::string format_bytes_si(ByteCount bytes) {
  const double b = static_cast<double>(bytes);
  if (b < 1e3) return std::to_string(bytes) + " B";
  if (b < 1e6) return three_digits(b / 1e3, "kB");
  if (b < 1e9) return three_digits(b / 1e6, "MB");
  if (b < 1e12) return three_digits(b / 1e9, "GB");
  return three_digits(b / 1e12, "TB");
}

std::string format_duration(Nanoseconds ns) {
  const double v = static_cast<double>(ns);
  if (std::fabs(v) < 1e3) return std::to_string(ns) + " ns";
  if (std::fabs(v) < 1e6) return three_digits(v / 1e3, "\xC2\xB5s");
  if (std::fabs(v) < 1e9) return three_digits(v / 1e6, "ms");
  return three_digits(v / 1e9, "s");
}

std::string format_percent(double ratio) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1f%%", ratio * 100.0);
  return buffer;
}

std::string format_count(double value) {
  if (value < 1e3) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.0f", value);
    return buffer;
  }
  if (value < 1e6) return three_digits(value / 1e3, "k");
  if (value < 1e9) return three_digits(value / 1e6, "M");
  return three_digits(value / 1e9, "G");
}

void print_results_tables(std::ostream& out, const ScenarioResults& results) {
  const std::vector<std::string> header = {"policy",   "hit/acc", "hit/byte", "misses", "H2D",  "stall",
                                           "p50",      "p99",     "max",      "sim time", "wall", "acc/s"};
  std::size_t points = 0;
  for (const auto& r : results.runs) points = std::max(points, r.point_index + 1);
  for (std::size_t p = 0; p < points; ++p) {
    std::vector<const RunResult*> rows;
    for (const auto& r : results.runs) {
      if (r.point_index == p) rows.push_back(&r);
    }
    if (rows.empty()) continue;
    const RunResult& first = *rows.front();
    out << "\n" << results.scenario_name;
    if (points > 1) out << "  [point " << (p + 1) << "/" << points << "] " << first.point_label;
    out << "\n  fast tier " << format_bytes_si(first.capacity_bytes);
    if (first.footprint_bytes > 0) {
      out << " = " << format_percent(static_cast<double>(first.capacity_bytes) / static_cast<double>(first.footprint_bytes))
          << " of the trace's footprint (" << format_bytes_si(first.footprint_bytes) << ")";
    }
    out << ", " << first.engine << " engine, decision clock: " << first.decision_clock << ", "
        << format_count(static_cast<double>(first.result.metrics.total.accesses)) << " accesses\n";

    // Serving and prefetch columns only where some run has them.
    bool serving = false, prefetch = false, oom = false;
    for (const RunResult* r : rows) {
      serving |= !r->result.metrics.serving.requests.empty();
      prefetch |= r->result.metrics.total.prefetches > 0;
      oom |= r->result.metrics.out_of_memory.reached;
    }
    std::vector<std::string> head = header;
    if (serving) head.insert(head.end() - 3, {"TTFT p50", "TTFT p99", "TPOT", "tok/s"});
    if (prefetch) head.insert(head.end() - 3, {"pf acc", "pf cov", "pf late"});
    if (oom) head.insert(head.end() - 3, {"OOM at"});
    std::vector<std::vector<std::string>> cells;
    cells.push_back(head);
    for (const RunResult* r : rows) {
      const AccessCounters& c = r->result.metrics.total;
      const LatencyHistogram& lat = r->result.metrics.latency;
      const bool timed = r->engine == "event";
      cells.push_back({r->policy_label, format_percent(c.hit_ratio_by_access()), format_percent(c.hit_ratio_by_byte()),
                       std::to_string(c.misses), format_bytes_si(c.bytes_fetched),
                       timed ? format_duration(c.stall_ns) : "-", timed ? format_duration(lat.quantile_ns(0.50)) : "-",
                       timed ? format_duration(lat.quantile_ns(0.99)) : "-", timed ? format_duration(lat.max_ns()) : "-",
                       timed ? format_duration(r->result.metrics.simulated_ns) : "-",
                       format_duration(static_cast<Nanoseconds>(r->wall_seconds * 1e9)),
                       format_count(r->accesses_per_second())});
      std::vector<std::string>& row = cells.back();
      const RunMetrics& m = r->result.metrics;
      if (serving) {
        const ServingMetrics& sv = m.serving;
        const bool has = !sv.requests.empty();
        row.insert(row.end() - 3, {has ? format_duration(sv.ttft_p50_ns) : "-", has ? format_duration(sv.ttft_p99_ns) : "-",
                                   has ? format_duration(std::llround(sv.tpot_mean_ns)) : "-",
                                   has ? format_count(sv.tokens_per_second) : "-"});
      }
      if (prefetch) {
        const bool has = c.prefetches > 0;
        row.insert(row.end() - 3, {has ? format_percent(c.prefetch_accuracy()) : "-",
                                   has ? format_percent(c.prefetch_coverage()) : "-",
                                   has ? std::to_string(c.prefetch_used_late) : "-"});
      }
      if (oom) {
        row.insert(row.end() - 3, {m.out_of_memory.reached ? format_duration(m.out_of_memory.time_ns) : "-"});
      }
    }
    std::vector<std::size_t> width(head.size(), 0);
    for (const auto& row : cells) {
      for (std::size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], display_width(row[i]));
    }
    for (std::size_t k = 0; k < cells.size(); ++k) {
      out << " ";
      for (std::size_t i = 0; i < cells[k].size(); ++i) out << " " << pad(cells[k][i], width[i], i == 0);
      out << "\n";
      if (k == 0) {
        std::size_t total = 1;
        for (auto w : width) total += w + 1;
        out << "  " << std::string(total - 2, '-') << "\n";
      }
    }
  }
}

}  // namespace flashsim
