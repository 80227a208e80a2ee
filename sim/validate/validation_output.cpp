#include "sim/validate/validation_output.h"

#include <cmath>
#include <cstdio>
#include <iomanip>
#include <nlohmann/json.hpp>

#include "sim/results/results_table.h"
#include "traces/atomic_file.h"

namespace flashsim {
namespace {

using json = nlohmann::ordered_json;

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string tolerance_text(const MetricSpec& spec, const ComparisonRow& r) {
  switch (spec.kind) {
    case ToleranceKind::exact: return "exact";
    case ToleranceKind::absolute: return "±" + format_metric_value(spec.name, r.tolerance_effective);
    case ToleranceKind::relative: return fixed(100.0 * r.tolerance_effective, 1) + "%";
  }
  return "?";
}

json nullable(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

}  // namespace

std::string format_metric_value(const std::string& metric, double value) {
  if (metric.ends_with("_ns")) return format_duration(std::llround(value));
  if (metric.starts_with("bytes")) return format_bytes_si(static_cast<ByteCount>(std::llround(std::max(0.0, value))));
  if (metric == "misses") return std::to_string(std::llround(value));
  return fixed(value, 4);
}

void print_validation(std::ostream& out, const ValidationReport& report) {
  const ValidationSuite& suite = *report.suite;
  out << "suite " << suite.name << " (" << suite.file.string() << "): " << report.entries.size() << " entries; simulator profile "
      << report.profile_name << "; hardware: " << report.hw_source;
  if (report.provenance) {
    const auto& p = *report.provenance;
    out << " (" << p.device.name << " " << p.device.uuid << ", driver " << p.device.driver_version << ", SM " << p.device.sm_clock_mhz
        << " MHz, memory " << p.device.memory_clock_mhz << " MHz; commit " << p.commit.substr(0, 12) << ", " << p.date_utc << ", "
        << p.repeats << " repeats, profile " << p.profile_name << ")";
  }
  out << "\n";
  for (const EntryComparison& e : report.entries) {
    out << "\n" << e.name << "  [" << (e.fit ? "fit" : "holdout") << "]  " << e.policy
        << ", block " << format_bytes_si(e.block_bytes) << ", capacity " << fixed(100.0 * e.capacity_fraction, 1) << "% of "
        << format_bytes_si(e.footprint_bytes) << ", " << e.tokens << " tokens, " << e.accesses << " accesses\n";
    out << "  " << std::left << std::setw(20) << "metric" << std::right << std::setw(12) << "sim" << std::setw(12) << "hw"
        << std::setw(26) << "hw min..max (n)" << std::setw(12) << "abs err" << std::setw(9) << "rel err" << std::setw(11)
        << "tolerance" << "  verdict\n";
    for (std::size_t m = 0; m < e.rows.size(); ++m) {
      const ComparisonRow& r = e.rows[m];
      const MetricSpec& spec = suite.metrics[m];
      out << "  " << std::left << std::setw(20) << r.metric << std::right << std::setw(12) << format_metric_value(r.metric, r.sim);
      if (!r.hw) {
        out << std::setw(12) << "-" << "\n";
        continue;
      }
      const std::string spread = format_metric_value(r.metric, r.hw_min) + ".." + format_metric_value(r.metric, r.hw_max) + " (" +
                                 std::to_string(r.hw_repeats) + ")";
      out << std::setw(12) << format_metric_value(r.metric, *r.hw) << std::setw(26) << spread << std::setw(12)
          << format_metric_value(r.metric, r.abs_error) << std::setw(8) << fixed(100.0 * r.rel_error, 1) << "%" << std::setw(11)
          << tolerance_text(spec, r) << "  "
          << (!r.judged ? "n/a" : !r.passed ? (r.gated ? "FAIL" : "over (report only)") : "ok") << "\n";
    }
  }
  out << "\nacross the suite (MAE: mean |sim - hw| / max(hw, floor); r: Pearson, on log10 where values span > "
      << suite.log_span << "x)\n";
  out << "  " << std::left << std::setw(20) << "metric" << std::setw(9) << "role" << std::right << std::setw(4) << "n"
      << std::setw(9) << "MAE %" << std::setw(9) << "max %" << std::setw(12) << "Pearson r" << std::setw(10) << "<10% err\n";
  for (const MetricSummary& s : report.summary) {
    out << "  " << std::left << std::setw(20) << s.metric << std::setw(9) << s.role << std::right << std::setw(4) << s.n
        << std::setw(9) << fixed(s.mae_pct, 2) << std::setw(9) << fixed(100.0 * s.max_rel_error, 1) << std::setw(12)
        << (s.pearson_r ? fixed(*s.pearson_r, 4) + (s.pearson_log10 ? " log" : "") : std::string("-")) << std::setw(6)
        << s.under_10pct << "/" << s.n << "\n";
  }
  std::size_t failures = 0;
  for (const EntryComparison& e : report.entries)
    for (std::size_t m = 0; m < e.rows.size(); ++m) {  // rows are in suite metric order
      const ComparisonRow& r = e.rows[m];
      if (!r.gated || r.passed) continue;
      if (failures++ == 0) out << "\nout of tolerance:\n";
      out << "  " << e.name << " " << r.metric << ": sim " << format_metric_value(r.metric, r.sim) << ", hw "
          << format_metric_value(r.metric, *r.hw) << ", error " << fixed(100.0 * r.rel_error, 2) << "% (abs "
          << format_metric_value(r.metric, r.abs_error) << "), tolerance " << tolerance_text(suite.metrics[m], r) << "\n";
    }
  for (const std::string& p : report.problems) out << "problem: " << p << "\n";
  if (report.hw_source == "none") {
    out << "\nsimulator only (--hw none): nothing compared\n";
    return;
  }
  out << "\n" << (report.passed() ? "PASSED" : "FAILED") << ": " << failures << " rows out of tolerance, " << report.problems.size()
      << " problems\n";
}

std::string validation_json_text(const ValidationReport& report) {
  const ValidationSuite& suite = *report.suite;
  json j;
  j["schema"] = "flashsim-validation/1";
  j["suite"] = json{{"name", suite.name},
                    {"file", suite.file.string()},
                    {"profile", json{{"name", report.profile_name}, {"fingerprint", report.profile_fingerprint}}}};
  json base{{"file", report.baseline_file}};
  if (report.provenance) {
    const auto& p = *report.provenance;
    base["provenance"] = json{{"commit", p.commit},
                              {"date_utc", p.date_utc},
                              {"tool_version", p.tool_version},
                              {"host", p.host},
                              {"device", to_json(p.device)},
                              {"profile", json{{"name", p.profile_name}, {"file", p.profile_file}, {"fingerprint", p.profile_fingerprint}}},
                              {"repeats", p.repeats}};
  }
  j["baseline"] = base;
  j["hw_source"] = report.hw_source;
  const HostInfo host = HostInfo::current();
  j["date_utc"] = host.date_utc;
  j["tool_version"] = tool_version_string();
  j["passed"] = report.passed();
  json metrics = json::array();
  for (const MetricSpec& m : suite.metrics)
    metrics.push_back(json{{"name", m.name},
                           {"unit", m.name.ends_with("_ns") ? "ns" : m.name.starts_with("bytes") ? "B" : ""},
                           {"kind", to_string(m.kind)},
                           {"tolerance", m.tolerance},
                           {"floor", m.floor},
                           {"gate", m.gate},
                           {"applies", to_string(m.scope)}});
  j["metrics"] = metrics;
  json entries = json::array(), failures = json::array();
  for (const EntryComparison& e : report.entries) {
    json rows = json::array();
    for (const ComparisonRow& r : e.rows) {
      rows.push_back(json{{"metric", r.metric},
                          {"sim", r.sim},
                          {"hw", nullable(r.hw)},
                          {"hw_min", r.hw ? json(r.hw_min) : json(nullptr)},
                          {"hw_max", r.hw ? json(r.hw_max) : json(nullptr)},
                          {"hw_repeats", r.hw_repeats},
                          {"abs_error", r.abs_error},
                          {"rel_error", r.rel_error},
                          {"tolerance", r.tolerance},
                          {"tolerance_effective", r.tolerance_effective},
                          {"judged", r.judged},
                          {"gated", r.gated},
                          {"passed", r.passed}});
      if (r.gated && !r.passed)
        failures.push_back(json{{"entry", e.name},
                                {"metric", r.metric},
                                {"sim", r.sim},
                                {"hw", nullable(r.hw)},
                                {"rel_error", r.rel_error},
                                {"tolerance_effective", r.tolerance_effective}});
    }
    json series = json::object();
    series["sim"] = to_json(e.sim_series);
    if (!e.hw_series.latency_q.empty()) series["hw"] = to_json(e.hw_series);
    entries.push_back(json{{"name", e.name},
                           {"group", e.group},
                           {"role", e.fit ? "fit" : "holdout"},
                           {"policy", e.policy},
                           {"prefetch", e.prefetch},
                           {"demand_only", e.demand_only},
                           {"block_bytes", e.block_bytes},
                           {"capacity_fraction", e.capacity_fraction},
                           {"capacity_bytes", e.capacity_bytes},
                           {"footprint_bytes", e.footprint_bytes},
                           {"tokens", e.tokens},
                           {"accesses", e.accesses},
                           {"passed", e.passed()},
                           {"rows", rows},
                           {"series", series}});
  }
  j["entries"] = entries;
  json summary = json::array();
  for (const MetricSummary& s : report.summary)
    summary.push_back(json{{"metric", s.metric},
                           {"role", s.role},
                           {"n", s.n},
                           {"mae_pct", s.mae_pct},
                           {"pearson_r", nullable(s.pearson_r)},
                           {"pearson_on", s.pearson_log10 ? "log10" : "linear"},
                           {"under_10pct", s.under_10pct},
                           {"max_rel_error", s.max_rel_error}});
  j["summary"] = summary;
  j["failures"] = failures;
  j["problems"] = report.problems;
  return j.dump(1) + "\n";
}

std::filesystem::path write_validation_json(const std::filesystem::path& dir, const ValidationReport& report) {
  std::filesystem::create_directories(dir);
  const std::filesystem::path path = dir / "validation.json";
  write_file_atomically(path, validation_json_text(report));
  return path;
}

}  // namespace flashsim
