#include "sim/report/run_summary_document.h"

#include "sim/report/json_fields.h"

namespace flashsim::report {

bool is_run_summary(const JsonFields& json) {
  return json.root().contains("results_schema_version") && json.root().contains("runs");
}

RunSummaryDocument read_run_summary_document(const JsonFields& j) {
  const Json& root = j.root();
  RunSummaryDocument doc;
  doc.file = j.file();
  doc.scenario = j.opt_string(root, "scenario", "");
  doc.tool_version = j.opt_string(root, "tool_version", "");
  doc.engine = j.opt_string(root, "engine", "");
  doc.scenario_source = j.opt_string(root, "scenario_source", "");
  if (const Json* host = j.opt_object(root, "host", "")) doc.date_utc = j.opt_string(*host, "date_utc", "host.");
  const Json& runs = j.need_array(root, "runs", "");
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const Json& r = runs[i];
    const std::string w = "runs[" + std::to_string(i) + "].";
    RunSummaryRow row;
    row.policy_label = j.need_string(r, "policy_label", w);
    row.point_label = j.opt_string(r, "point_label", w);
    const std::optional<double> point = j.opt_number(r, "point", w);
    if (point && (*point < 0 || *point != static_cast<double>(static_cast<std::size_t>(*point)))) {
      j.fail(w, "point", "is not a sweep point index");
    }
    row.point = point ? static_cast<std::size_t>(*point) : 0;
    const std::optional<double> run = j.opt_number(r, "run", w);
    if (run && (*run < 0 || *run != static_cast<double>(static_cast<std::size_t>(*run)))) {
      j.fail(w, "run", "is not a run number");
    }
    row.run = run ? static_cast<std::size_t>(*run) : i;
    // Results schema 2 names every metric as sim/results/metric_schema.h does;
    // schema 1 files (capacity, latency_ns.{p50,p99}) still read.
    row.capacity = r.contains("capacity_text") ? j.opt_string(r, "capacity_text", w) : j.opt_string(r, "capacity", w);
    row.size_unit = j.opt_string(r, "size_unit", w);
    if (row.size_unit.empty()) row.size_unit = "bytes";  // results schema 1
    row.capacity_bytes = j.need_number(r, "capacity_bytes", w);
    row.footprint_bytes = j.opt_number(r, "footprint_bytes", w).value_or(0);
    row.accesses = j.need_number(r, "accesses", w);
    row.hits = j.opt_number(r, "hits", w).value_or(0);
    row.misses = j.opt_number(r, "misses", w).value_or(0);
    row.hit_ratio_by_access = j.need_number(r, "hit_ratio_by_access", w);
    row.hit_ratio_by_byte = j.opt_number(r, "hit_ratio_by_byte", w).value_or(0);
    row.bytes_fetched = j.opt_number(r, "bytes_fetched", w).value_or(0);
    row.stall_ns = j.opt_number(r, "stall_ns", w).value_or(0);
    row.simulated_ns = j.opt_number(r, "simulated_ns", w).value_or(0);
    if (r.contains("latency_p50_ns")) {
      row.latency_p50_ns = j.opt_number(r, "latency_p50_ns", w);
      row.latency_p99_ns = j.opt_number(r, "latency_p99_ns", w);
    } else if (const Json* lat = j.opt_object(r, "latency_ns", w)) {
      row.latency_p50_ns = j.opt_number(*lat, "p50", w + "latency_ns.");
      row.latency_p99_ns = j.opt_number(*lat, "p99", w + "latency_ns.");
    }
    if (j.opt_number(r, "requests", w).value_or(0) > 0) {
      row.ttft_p50_ns = j.opt_number(r, "ttft_p50_ns", w);
      row.tpot_mean_ns = j.opt_number(r, "tpot_mean_ns", w);
      row.tokens_per_second = j.opt_number(r, "tokens_per_second", w);
    }
    doc.runs.push_back(std::move(row));
  }
  return doc;
}

std::string RunSummaryRow::point_label_without_capacity() const {
  std::string out;
  std::size_t at = 0;
  while (at < point_label.size()) {
    std::size_t end = point_label.find(' ', at);
    if (end == std::string::npos) end = point_label.size();
    const std::string part = point_label.substr(at, end - at);
    if (!part.empty() && part.rfind("cache.capacity=", 0) != 0) out += (out.empty() ? "" : " ") + part;
    at = end + 1;
  }
  return out;
}

std::string RunSummaryDocument::size_unit() const {
  std::string unit;
  for (const RunSummaryRow& r : runs) {
    if (unit.empty()) unit = r.size_unit;
    else if (unit != r.size_unit) return "mixed";
  }
  return unit.empty() ? "bytes" : unit;
}

}  // namespace flashsim::report
