#include "sim/results/results_compare.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>

#include "sim/core/errors.h"
#include "sim/results/metric_schema.h"
#include "sim/results/summary_json.h"
#include "sim/results/results_table.h"
#include "sim/results/sweep_store.h"

namespace flashsim {
namespace {

std::string unit_of(const std::string& name) {
  for (const RunMetricSpec& m : run_metric_schema()) {
    if (m.name == name) return std::string(m.unit);
  }
  return "";
}

std::string value_text(double v, const std::string& unit) {
  if (unit == "1") return format_percent(v);
  if (unit == "ns") return format_duration(static_cast<Nanoseconds>(std::llround(v)));
  if (unit == "bytes") return format_bytes_si(static_cast<ByteCount>(std::llround(std::fabs(v))));
  char buf[64];
  std::snprintf(buf, sizeof buf, std::fabs(v) >= 1e6 ? "%.4g" : "%.6g", v);
  return buf;
}

std::string delta_text(double a, double b, const std::string& unit) {
  const double d = b - a;
  char buf[64];
  if (unit == "1") {
    std::snprintf(buf, sizeof buf, "%+.2f pt", 100.0 * d);
    return buf;
  }
  std::string text = (d < 0 ? "-" : "+") + value_text(std::fabs(d), unit);
  if (a != 0.0) {
    std::snprintf(buf, sizeof buf, " (%+.1f%%)", 100.0 * d / std::fabs(a));
    text += buf;
  }
  return text;
}

}  // namespace

ComparedResults ComparedResults::read(const std::filesystem::path& path) {
  const SummaryJson summary = read_summary_json(path);
  const std::filesystem::path& file = summary.file;
  const nlohmann::ordered_json& j = summary.doc;
  ComparedResults out;
  out.file = file;
  if (j.contains("scenario") && j["scenario"].is_string()) out.scenario = j["scenario"].get<std::string>();
  // The points' resolved scenarios, to match runs whose labels differ; a
  // summary.json without its folder's files is matched by labels alone.
  std::vector<std::string> resolved;
  try {
    if (const auto previous = previous_results(file.parent_path().empty() ? "." : file.parent_path())) {
      resolved = previous->resolved;
    }
  } catch (const InputError&) {
  }
  for (std::size_t i = 0; i < j["runs"].size(); ++i) {
    const nlohmann::ordered_json& r = j["runs"][i];
    if (!r.is_object() || !r.contains("policy_label") || !r["policy_label"].is_string()) {
      throw InputError("compare: '" + file.string() + "': run " + std::to_string(i) + " has no policy_label");
    }
    ComparedRun run;
    run.policy_label = r["policy_label"].get<std::string>();
    if (r.contains("point_label") && r["point_label"].is_string()) run.point_label = r["point_label"].get<std::string>();
    const auto point = r.find("point");
    if (point != r.end() && point->is_number_unsigned() && point->get<std::size_t>() < resolved.size()) {
      run.resolved = resolved[point->get<std::size_t>()];
    }
    for (const RunMetricSpec& m : run_metric_schema()) {
      if (m.aggregation == Aggregation::label || m.type == MetricType::text) continue;
      const auto it = r.find(std::string(m.name));
      if (it != r.end() && it->is_number()) run.metrics.emplace_back(std::string(m.name), it->get<double>());
    }
    // What the components counted, compared as metrics (a program run's prediction is one).
    if (const auto c = r.find("components"); c != r.end() && c->is_array()) {
      for (const auto& s : *c) {
        if (!s.is_object() || !s.contains("component") || !s["component"].is_string() || !s.contains("name") ||
            !s["name"].is_string() || !s.contains("value") || !s["value"].is_number()) {
          continue;  // not a component number (results export names such entries)
        }
        const std::string key = s["component"].get<std::string>() + "." + s["name"].get<std::string>();
        run.metrics.emplace_back(key, s["value"].get<double>());
        run.component_units[key] = s.contains("unit") && s["unit"].is_string() ? s["unit"].get<std::string>() : "";
      }
    }
    out.runs.push_back(std::move(run));
  }
  return out;
}

std::size_t print_comparison(std::ostream& out, const ComparedResults& a, const ComparedResults& b,
                             const CompareOptions& options) {
  out << "A: " << a.file.string() << (a.scenario.empty() ? "" : " (" + a.scenario + ")") << ", " << a.runs.size()
      << " run(s)\nB: " << b.file.string() << (b.scenario.empty() ? "" : " (" + b.scenario + ")") << ", "
      << b.runs.size() << " run(s)\n";
  const auto key = [](const ComparedRun& r) { return r.point_label + "\x1f" + r.policy_label; };
  std::vector<std::pair<const ComparedRun*, const ComparedRun*>> pairs;
  std::vector<const ComparedRun*> only_a, only_b;
  if (a.runs.size() == 1 && b.runs.size() == 1) {
    pairs.emplace_back(&a.runs[0], &b.runs[0]);
  } else {
    std::map<std::string, const ComparedRun*> in_b;
    for (const ComparedRun& r : b.runs) in_b.emplace(key(r), &r);
    for (const ComparedRun& r : a.runs) {
      auto it = in_b.find(key(r));
      if (it == in_b.end()) {
        only_a.push_back(&r);
        continue;
      }
      pairs.emplace_back(&r, it->second);
      in_b.erase(it);
    }
    for (const ComparedRun& r : b.runs) {
      if (in_b.count(key(r))) only_b.push_back(&r);
    }
    // Left over: the same policy on the same resolved scenario is the same
    // run, whatever the labels ("" for a single run, "cache.capacity=50%"
    // in a sweep). Names, descriptions, outputs and the policy list aside:
    // the policy label says which policy.
    const auto same_scenario = [](const ComparedRun& x, const ComparedRun& y) {
      if (x.resolved.empty() || y.resolved.empty() || x.policy_label != y.policy_label) return false;
      for (const std::string& d : differing_keys(x.resolved, y.resolved, 1000)) {
        const std::string k = d.substr(0, d.find(':'));
        if (k != "name" && k != "description" && !k.starts_with("outputs.") && !k.starts_with("policies.")) return false;
      }
      return true;
    };
    // Pairwise (each check parses two scenarios): for the few runs labels
    // left over, not for two unrelated sweeps of thousands.
    const bool few = only_a.size() * only_b.size() <= 10'000;
    for (auto ia = only_a.begin(); few && ia != only_a.end();) {
      const auto ib = std::find_if(only_b.begin(), only_b.end(), [&](const ComparedRun* r) { return same_scenario(**ia, *r); });
      if (ib == only_b.end()) {
        ++ia;
        continue;
      }
      pairs.emplace_back(*ia, *ib);
      only_b.erase(ib);
      ia = only_a.erase(ia);
    }
  }
  const auto name_of = [](const ComparedRun& r) {
    return r.policy_label + (r.point_label.empty() ? "" : " @ " + r.point_label);
  };
  for (const auto& [ra, rb] : pairs) {
    out << "\n" << name_of(*ra);
    if (name_of(*ra) != name_of(*rb)) out << "  vs  " << name_of(*rb);
    out << "\n";
    char line[256];
    std::snprintf(line, sizeof line, "  %-28s %16s %16s  %s\n", "metric", "A", "B", "B - A");
    out << line;
    std::map<std::string, double> mb(rb->metrics.begin(), rb->metrics.end());
    std::size_t shown = 0;
    for (const auto& [name, va] : ra->metrics) {
      const auto it = mb.find(name);
      if (it == mb.end()) continue;
      const double vb = it->second;
      if (!options.all_metrics && va == vb) continue;
      const auto cu = ra->component_units.find(name);
      const std::string unit = cu != ra->component_units.end() ? cu->second : unit_of(name);
      std::snprintf(line, sizeof line, "  %-28s %16s %16s  %s\n", name.c_str(), value_text(va, unit).c_str(),
                    value_text(vb, unit).c_str(), delta_text(va, vb, unit).c_str());
      out << line;
      ++shown;
    }
    if (shown == 0) out << "  (every metric equal)\n";
  }
  for (const ComparedRun* r : only_a) out << "\nonly in A: " << name_of(*r) << "\n";
  for (const ComparedRun* r : only_b) out << "\nonly in B: " << name_of(*r) << "\n";
  return pairs.size();
}

}  // namespace flashsim
