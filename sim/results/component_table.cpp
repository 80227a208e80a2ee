#include "sim/results/component_table.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "sim/results/results_table.h"

namespace flashsim {
namespace {

using Key = std::pair<std::string, std::string>;  // component, name

std::string key_text(const Key& k) { return k.first + "." + k.second; }

// A number in its declared unit (ComponentStat::unit).
std::string format_value(double value, const std::string& unit) {
  if (std::isnan(value)) return "nan";
  if (unit == "ns") return format_duration(std::llround(value));
  if (unit == "bytes" && value >= 0) return format_bytes_si(static_cast<ByteCount>(std::llround(value)));
  if (unit == "1") return format_percent(value);
  char buffer[48];
  if (value == std::floor(value) && std::fabs(value) < 1e15) {
    std::snprintf(buffer, sizeof buffer, "%.0f", value);  // counts exact
  } else {
    std::snprintf(buffer, sizeof buffer, "%.6g", value);
  }
  return std::string(buffer) + (unit.empty() || unit == "count" ? "" : " " + unit);
}

template <class Item>
std::vector<Key> keys_of(const std::vector<const RunResult*>& runs, const std::vector<Item> ComponentStats::*list) {
  std::vector<Key> keys;
  std::set<Key> seen;
  for (const RunResult* r : runs) {
    for (const Item& item : r->result.components.*list) {
      Key k{item.component, item.name};
      if (seen.insert(k).second) keys.push_back(std::move(k));
    }
  }
  return keys;
}

void print_text(std::ostream& out, const std::string& head, const std::string& text) {
  out << "  " << head << ":";
  if (text.find('\n') == std::string::npos) {
    out << " " << (text.empty() ? "(empty)" : text) << "\n";
    return;
  }
  out << "\n";
  std::size_t begin = 0;
  while (begin <= text.size()) {
    const std::size_t end = std::min(text.find('\n', begin), text.size());
    out << "    " << text.substr(begin, end - begin) << "\n";
    begin = end + 1;
  }
}

// Series this short are listed whole; longer ones summarised.
constexpr std::size_t kListedSeriesValues = 8;

std::string describe_series(const ComponentSeries& s) {
  if (!s.values.empty() && s.values.size() <= kListedSeriesValues) {
    std::string list;
    for (double x : s.values) list += (list.empty() ? "" : ", ") + format_value(x, s.unit);
    return list;
  }
  std::vector<double> v;
  for (double x : s.values) {
    if (!std::isnan(x)) v.push_back(x);
  }
  const std::size_t nans = s.values.size() - v.size();
  std::string text = std::to_string(s.values.size()) + " value" + (s.values.size() == 1 ? "" : "s");
  if (nans > 0) text += " (" + std::to_string(nans) + " nan)";
  if (v.empty()) return text;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  const double median = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  return text + ": min " + format_value(v.front(), s.unit) + ", median " + format_value(median, s.unit) + ", max " +
         format_value(v.back(), s.unit);
}

void print_point(std::ostream& out, const std::vector<const RunResult*>& runs) {
  const bool one = runs.size() == 1;
  const std::vector<Key> numbers = keys_of(runs, &ComponentStats::rows);
  if (!numbers.empty()) {
    std::vector<std::vector<std::string>> cells;
    std::vector<std::string> head = {"component.name"};
    for (const RunResult* r : runs) head.push_back(r->policy_label);
    cells.push_back(std::move(head));
    for (const Key& k : numbers) {
      std::vector<std::string> row = {key_text(k)};
      for (const RunResult* r : runs) {
        const ComponentStat* s = r->result.components.find(k.first, k.second);
        row.push_back(s ? format_value(s->value, s->unit) : "-");
      }
      cells.push_back(std::move(row));
    }
    print_aligned_table(out, cells);
  }
  for (const Key& k : keys_of(runs, &ComponentStats::texts)) {
    std::vector<const ComponentText*> texts;
    for (const RunResult* r : runs) texts.push_back(r->result.components.find_text(k.first, k.second));
    const bool same = std::all_of(texts.begin(), texts.end(), [&](const ComponentText* t) {
      return t && texts.front() && t->text == texts.front()->text;
    });
    if (same) {
      print_text(out, key_text(k), texts.front()->text);
      continue;
    }
    for (std::size_t i = 0; i < runs.size(); ++i) {
      print_text(out, key_text(k) + " [" + runs[i]->policy_label + "]", texts[i] ? texts[i]->text : "-");
    }
  }
  for (const Key& k : keys_of(runs, &ComponentStats::series)) {
    std::vector<const ComponentSeries*> series;
    for (const RunResult* r : runs) series.push_back(r->result.components.find_series(k.first, k.second));
    const bool same = std::all_of(series.begin(), series.end(), [&](const ComponentSeries* x) {
      return x && series.front() && x->values == series.front()->values;
    });
    for (std::size_t i = 0; i < runs.size(); ++i) {
      if (!series[i]) continue;
      out << "  " << key_text(k) << (one || same ? "" : " [" + runs[i]->policy_label + "]") << ": "
          << describe_series(*series[i]) << "\n";
      if (same) break;
    }
  }
}

}  // namespace

void print_component_tables(std::ostream& out, const ScenarioResults& results) {
  std::size_t points = results.point_labels.size();
  for (const auto& r : results.runs) points = std::max(points, r.point_index + 1);
  for (std::size_t p = 0; p < points; ++p) {
    std::vector<const RunResult*> runs;
    bool any = false;
    for (const auto& r : results.runs) {
      if (r.point_index != p) continue;
      runs.push_back(&r);
      const ComponentStats& c = r.result.components;
      any = any || !c.rows.empty() || !c.texts.empty() || !c.series.empty();
    }
    if (!any) continue;
    out << "\n" << results.scenario_name;
    if (points > 1) out << "  [point " << (p + 1) << "/" << points << "] " << runs.front()->point_label;
    out << ": components\n";
    print_point(out, runs);
  }
}

std::size_t count_component_statistics(const ScenarioResults& results) {
  std::set<std::pair<int, Key>> keys;
  for (const RunResult& r : results.runs) {
    for (const ComponentStat& s : r.result.components.rows) keys.insert({0, {s.component, s.name}});
    for (const ComponentText& t : r.result.components.texts) keys.insert({1, {t.component, t.name}});
    for (const ComponentSeries& s : r.result.components.series) keys.insert({2, {s.component, s.name}});
  }
  return keys.size();
}

}  // namespace flashsim
