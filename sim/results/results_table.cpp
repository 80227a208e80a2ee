#include "sim/results/results_table.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "sim/engine/engine_registry.h"
#include "sim/results/metric_schema.h"

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

void print_aligned_table(std::ostream& out, const std::vector<std::vector<std::string>>& cells) {
  std::vector<std::size_t> width;
  for (const auto& row : cells) {
    if (width.size() < row.size()) width.resize(row.size(), 0);
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

namespace {

// The table's columns, each a metric of the schema (metric_schema.h) with a
// short head; a group of columns appears only where some run has it.
enum class Group { always, timed, serving, prefetch, oom };
struct Column {
  std::string_view metric;
  const char* head;
  Group group;
};
constexpr Column kColumns[] = {
    {"hit_ratio_by_access", "hit/acc", Group::always},  {"hit_ratio_by_byte", "hit/byte", Group::always},
    {"misses", "misses", Group::always},                {"bytes_fetched", "H2D", Group::always},
    {"stall_ns", "stall", Group::timed},                {"latency_p50_ns", "p50", Group::timed},
    {"latency_p99_ns", "p99", Group::timed},            {"latency_max_ns", "max", Group::timed},
    {"simulated_ns", "sim time", Group::timed},         {"ttft_p50_ns", "TTFT p50", Group::serving},
    {"ttft_p99_ns", "TTFT p99", Group::serving},        {"tpot_mean_ns", "TPOT", Group::serving},
    {"tokens_per_second", "tok/s", Group::serving},     {"prefetch_accuracy", "pf acc", Group::prefetch},
    {"prefetch_coverage", "pf cov", Group::prefetch},   {"prefetch_used_late", "pf late", Group::prefetch},
    {"oom_time_ns", "OOM at", Group::oom},
};

// Whether r's engine reports `metric` (its registered statistics; an engine
// this build does not register, such as the GPU replay without CUDA: only
// the event engine's timed metrics were ever shown).
bool engine_reports(const RunResult& r, std::string_view metric) {
  const EngineRegistry& engines = EngineRegistry::instance();
  if (!engines.has(r.engine)) return r.engine == "event";
  const std::vector<std::string>& declared = engines.find(r.engine).traits.statistics;
  return std::find(declared.begin(), declared.end(), metric) != declared.end();
}

bool has_group(const RunResult& r, Group g) {
  switch (g) {
    case Group::always: return true;
    case Group::timed: return true;  // per column: engine_reports
    case Group::serving: return !r.result.metrics.serving.requests.empty();
    case Group::prefetch: return r.result.metrics.total.prefetches > 0;
    case Group::oom: return r.result.metrics.out_of_memory.reached;
  }
  return false;
}

// A value in the unit its spec declares (bytes count blocks in a run with
// cache.ignore_sizes).
std::string format_metric(const RunMetricSpec& spec, const RunMetricValue& v, const RunResult& run) {
  if (spec.unit == "1") return format_percent(v.number());
  if (spec.unit == "bytes" && run.size_unit == "blocks") return format_count(v.number()) + " blk";
  if (spec.unit == "bytes") return format_bytes_si(static_cast<ByteCount>(v.number()));
  if (spec.unit == "ns") return format_duration(std::llround(v.number()));
  if (spec.unit == "count" && v.type == MetricType::u64) return std::to_string(v.u64);
  if (v.type == MetricType::text) return v.text;
  return format_count(v.number());
}

}  // namespace

void print_results_tables(std::ostream& out, const ScenarioResults& results) {
  std::size_t points = results.point_labels.size();  // the whole sweep, also when some points were not run
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
    const bool blocks = first.size_unit == "blocks";  // cache.ignore_sizes
    const bool no_tier = first.capacity_text == "none";  // every policy as_recorded (resolve_cache)
    out << "\n  "
        << (no_tier  ? std::string("no fast tier (every policy as_recorded)")
            : blocks ? "fast tier " + std::to_string(first.capacity_bytes) + " blocks (sizes ignored)"
                     : "fast tier " + format_bytes_si(first.capacity_bytes));
    if (first.footprint_bytes > 0 && !no_tier) {
      out << " = " << format_percent(static_cast<double>(first.capacity_bytes) / static_cast<double>(first.footprint_bytes))
          << (blocks ? " of the trace's distinct blocks (" + std::to_string(first.footprint_bytes) + ")"
                     : " of the trace's footprint (" + format_bytes_si(first.footprint_bytes) + ")");
    }
    out << ", " << first.engine << " engine, decision clock: " << first.decision_clock << ", "
        << format_count(static_cast<double>(first.result.metrics.total.accesses)) << " accesses\n";

    // Optional groups only where some run has them; the timed group always
    // (a cache-only run shows "-").
    std::vector<const Column*> columns;
    for (const Column& col : kColumns) {
      const bool shown = col.group == Group::always || col.group == Group::timed ||
                         std::any_of(rows.begin(), rows.end(), [&](const RunResult* r) { return has_group(*r, col.group); });
      if (shown) columns.push_back(&col);
    }
    std::vector<std::string> head = {"policy"};
    for (const Column* col : columns) head.push_back(col->head);
    head.insert(head.end(), {"wall", "acc/s"});  // host facts, not simulated metrics
    std::vector<std::vector<std::string>> cells;
    cells.push_back(head);
    for (const RunResult* r : rows) {
      std::vector<std::string> row = {r->policy_label};
      for (const Column* col : columns) {
        const RunMetricSpec& spec = metric_spec(col->metric);
        const bool shown = has_group(*r, col->group) && (col->group != Group::timed || engine_reports(*r, col->metric));
        row.push_back(shown ? format_metric(spec, spec.get(*r), *r) : "-");
      }
      row.push_back(format_duration(static_cast<Nanoseconds>(r->wall_seconds * 1e9)));
      row.push_back(format_count(r->accesses_per_second()));
      cells.push_back(std::move(row));
    }
    print_aligned_table(out, cells);
  }
}

}  // namespace flashsim
