#include "sim/report/validation_document.h"

#include "sim/core/errors.h"
#include "sim/report/json_fields.h"

namespace flashsim::report {

namespace {

std::string scalar_text(const Json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_null()) return "";
  return v.dump();
}

// Objects become "prefix.key" pairs; lists of scalars one comma-joined value.
void flatten(const Json& v, const std::string& prefix, std::vector<std::pair<std::string, std::string>>& out) {
  if (v.is_object()) {
    for (auto it = v.begin(); it != v.end(); ++it) flatten(it.value(), prefix.empty() ? it.key() : prefix + "." + it.key(), out);
    return;
  }
  if (v.is_array()) {
    bool scalars = true;
    for (const auto& x : v) scalars = scalars && !x.is_structured();
    if (!scalars) {
      for (std::size_t i = 0; i < v.size(); ++i) flatten(v[i], prefix + "[" + std::to_string(i) + "]", out);
      return;
    }
    std::string joined;
    for (const auto& x : v) joined += (joined.empty() ? "" : ", ") + scalar_text(x);
    out.emplace_back(prefix, joined);
    return;
  }
  out.emplace_back(prefix, scalar_text(v));
}

ValidationRow read_row(const JsonFields& j, const Json& r, const std::string& w) {
  ValidationRow row;
  row.metric = j.need_string(r, "metric", w);
  row.sim = j.opt_number(r, "sim", w);
  row.hw = j.opt_number(r, "hw", w);
  row.hw_min = j.opt_number(r, "hw_min", w);
  row.hw_max = j.opt_number(r, "hw_max", w);
  row.hw_repeats = static_cast<int>(j.opt_number(r, "hw_repeats", w).value_or(0));
  row.abs_error = j.opt_number(r, "abs_error", w);
  row.rel_error = j.opt_number(r, "rel_error", w);
  row.tolerance = j.opt_number(r, "tolerance", w);
  row.tolerance_effective = j.opt_number(r, "tolerance_effective", w);
  row.judged = j.opt_bool(r, "judged", w);
  row.gated = j.opt_bool(r, "gated", w);
  row.passed = j.opt_bool(r, "passed", w);
  return row;
}

ValidationEntry read_entry(const JsonFields& j, const Json& e, const std::string& w) {
  ValidationEntry entry;
  entry.name = j.need_string(e, "name", w);
  entry.group = j.opt_string(e, "group", w);
  entry.role = j.opt_string(e, "role", w);
  entry.policy = j.opt_string(e, "policy", w);
  entry.prefetch = j.opt_string(e, "prefetch", w);
  entry.demand_only = j.opt_bool(e, "demand_only", w).value_or(false);
  entry.block_bytes = j.opt_number(e, "block_bytes", w).value_or(0);
  entry.capacity_fraction = j.opt_number(e, "capacity_fraction", w).value_or(0);
  entry.capacity_bytes = j.opt_number(e, "capacity_bytes", w).value_or(0);
  entry.footprint_bytes = j.opt_number(e, "footprint_bytes", w).value_or(0);
  entry.tokens = j.opt_number(e, "tokens", w).value_or(0);
  entry.accesses = j.opt_number(e, "accesses", w).value_or(0);
  const Json& rows = j.need_array(e, "rows", w);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    entry.rows.push_back(read_row(j, rows[i], w + "rows[" + std::to_string(i) + "]."));
  }
  return entry;
}

}  // namespace

bool ValidationEntry::failed() const {
  for (const auto& r : rows) {
    if (r.failed()) return true;
  }
  return false;
}

const ValidationMetric* ValidationDocument::find_metric(const std::string& name) const {
  for (const auto& m : metrics) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

ValidationDocument read_validation_document(const JsonFields& j) {
  const Json& root = j.root();
  const std::string schema = j.opt_string(root, "schema", "");
  if (schema != kValidationSchema) {
    j.fail("", "schema", (schema.empty() ? std::string("is missing") : "is \"" + schema + "\"") + ", expected \"" +
                             kValidationSchema + "\"");
  }
  ValidationDocument doc;
  doc.file = j.file();
  if (const Json* suite = j.opt_object(root, "suite", "")) {
    doc.suite_name = j.opt_string(*suite, "name", "suite.");
    doc.suite_file = j.opt_string(*suite, "file", "suite.");
  }
  doc.hw_source = j.opt_string(root, "hw_source", "");
  doc.date_utc = j.opt_string(root, "date_utc", "");
  doc.tool_version = j.opt_string(root, "tool_version", "");
  doc.passed = j.need_bool(root, "passed", "");
  for (const char* key : {"suite", "baseline", "hw_source", "date_utc", "tool_version"}) {
    if (root.contains(key)) flatten(root[key], key, doc.provenance);
  }

  const Json& metrics = j.need_array(root, "metrics", "");
  for (std::size_t i = 0; i < metrics.size(); ++i) {
    const std::string w = "metrics[" + std::to_string(i) + "].";
    ValidationMetric m;
    m.name = j.need_string(metrics[i], "name", w);
    m.unit = j.opt_string(metrics[i], "unit", w);
    m.kind = j.opt_string(metrics[i], "kind", w);
    m.tolerance = j.opt_number(metrics[i], "tolerance", w);
    m.floor = j.opt_number(metrics[i], "floor", w).value_or(0);
    m.gate = j.opt_bool(metrics[i], "gate", w).value_or(false);
    m.applies = j.opt_string(metrics[i], "applies", w);
    doc.metrics.push_back(std::move(m));
  }
  const Json& entries = j.need_array(root, "entries", "");
  for (std::size_t i = 0; i < entries.size(); ++i) {
    doc.entries.push_back(read_entry(j, entries[i], "entries[" + std::to_string(i) + "]."));
  }
  if (const Json* summary = j.opt_array(root, "summary", "")) {
    for (std::size_t i = 0; i < summary->size(); ++i) {
      const Json& s = (*summary)[i];
      const std::string w = "summary[" + std::to_string(i) + "].";
      ValidationSummary row;
      row.metric = j.need_string(s, "metric", w);
      row.role = j.opt_string(s, "role", w);
      row.n = static_cast<int>(j.opt_number(s, "n", w).value_or(0));
      row.mae_pct = j.opt_number(s, "mae_pct", w);
      row.pearson_r = j.opt_number(s, "pearson_r", w);
      row.pearson_on = j.opt_string(s, "pearson_on", w);
      if (const auto under = j.opt_number(s, "under_10pct", w)) row.under_10pct = static_cast<int>(*under);
      row.max_rel_error = j.opt_number(s, "max_rel_error", w);
      doc.summary.push_back(std::move(row));
    }
  }
  if (const Json* failures = j.opt_array(root, "failures", "")) {
    for (std::size_t i = 0; i < failures->size(); ++i) {
      const Json& f = (*failures)[i];
      const std::string w = "failures[" + std::to_string(i) + "].";
      ValidationFailure row;
      row.entry = j.need_string(f, "entry", w);
      row.metric = j.need_string(f, "metric", w);
      row.sim = j.opt_number(f, "sim", w);
      row.hw = j.opt_number(f, "hw", w);
      row.rel_error = j.opt_number(f, "rel_error", w);
      row.tolerance_effective = j.opt_number(f, "tolerance_effective", w);
      doc.failures.push_back(std::move(row));
    }
  }
  if (const Json* problems = j.opt_array(root, "problems", "")) {
    for (std::size_t i = 0; i < problems->size(); ++i) {
      const Json& p = (*problems)[i];
      if (!p.is_string()) j.fail("", "problems[" + std::to_string(i) + "]", "is not a string");
      doc.problems.push_back(p.get<std::string>());
    }
  }
  return doc;
}

ValidationDocument load_validation_document(const std::filesystem::path& file) {
  return read_validation_document(JsonFields(file));
}

}  // namespace flashsim::report
