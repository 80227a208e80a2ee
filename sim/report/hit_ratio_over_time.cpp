#include "sim/report/hit_ratio_over_time.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "sim/core/errors.h"
#include "sim/results/results_table.h"
#include "sim/results/timeseries_column.h"
#include "sim/results/timeseries_group.h"
#include "traces/hdf5_io.h"

namespace flashsim::report {

namespace {

// One run's windows as results.h5 holds them, checked.
struct RawWindows {
  Nanoseconds window_ns = 0;
  std::vector<std::int64_t> start;
  std::vector<std::uint64_t> hits, accesses;
  Nanoseconds span_ns() const { return start.empty() ? 0 : *std::max_element(start.begin(), start.end()) + window_ns; }
};

RawWindows read_windows(hid_t group, const std::string& where) {
  const auto start = read_timeseries_column<std::int64_t>(group, "start_ns", H5T_NATIVE_INT64, where);
  const auto hits = read_timeseries_column<std::uint64_t>(group, "hits", H5T_NATIVE_UINT64, where);
  const auto accesses = read_timeseries_column<std::uint64_t>(group, "accesses", H5T_NATIVE_UINT64, where);
  if (hits.size() != start.size() || accesses.size() != start.size()) {
    throw InputError(where + ": start_ns, hits and accesses differ in length (" + std::to_string(start.size()) + ", " +
                     std::to_string(hits.size()) + ", " + std::to_string(accesses.size()) + ")");
  }
  RawWindows raw;
  if (start.empty()) return raw;
  const Nanoseconds window = h5::read_attr_int(group, "window_ns").value_or(0);
  if (window <= 0) throw InputError(where + ": window_ns is " + std::to_string(window) + " but it has windows");
  for (std::size_t k = 0; k < start.size(); ++k) {
    if (start[k] < 0) throw InputError(where + ": start_ns[" + std::to_string(k) + "] is negative");
    if (hits[k] > accesses[k]) {
      throw InputError(where + ": window " + std::to_string(k) + " has more hits (" + std::to_string(hits[k]) +
                       ") than accesses (" + std::to_string(accesses[k]) + ")");
    }
  }
  raw.window_ns = window;
  raw.start = start;
  raw.hits = hits;
  raw.accesses = accesses;
  return raw;
}

// A run's windows summed by `merged` into plotted windows aligned to time 0
// (the engine's windows are), empty ones counted.
HitRatioSeries series_of(const RawWindows& raw, const RunSummaryRow& row, std::size_t merged) {
  HitRatioSeries s;
  if (raw.start.empty()) return s;
  s.merged = merged;
  s.window_ns = raw.window_ns * static_cast<Nanoseconds>(merged);
  std::map<Nanoseconds, std::pair<std::uint64_t, std::uint64_t>> buckets;  // plotted window -> hits, accesses
  for (std::size_t k = 0; k < raw.start.size(); ++k) {
    auto& b = buckets[raw.start[k] / s.window_ns];
    b.first += raw.hits[k];
    b.second += raw.accesses[k];
  }
  const auto end_of_run = static_cast<Nanoseconds>(std::llround(row.simulated_ns));
  for (const auto& [index, b] : buckets) {
    if (b.second == 0) {
      ++s.empty_windows;
      continue;
    }
    const Nanoseconds from = index * s.window_ns;
    Nanoseconds to = from + s.window_ns;
    if (end_of_run > from && end_of_run < to) to = end_of_run;  // the last window is cut by the run's end
    s.start_ns.push_back(from);
    s.end_ns.push_back(to);
    s.hits.push_back(b.first);
    s.accesses.push_back(b.second);
  }
  return s;
}

std::string capacity_text(const RunSummaryRow& r) {
  const std::string size = r.size_unit == "blocks" ? format_count(r.capacity_bytes) + " blk"
                                                   : format_bytes_si(static_cast<ByteCount>(std::llround(r.capacity_bytes)));
  return r.capacity.empty() || r.capacity == size ? size : r.capacity + " (" + size + ")";
}

std::string time_unit(Nanoseconds longest) {
  if (longest >= 1'000'000'000) return "s";
  if (longest >= 1'000'000) return "ms";
  if (longest >= 1'000) return "\u00b5s";
  return "ns";
}

std::string plural(std::size_t n, const std::string& one, const std::string& many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

}  // namespace

HitRatioOverTime read_hit_ratio_over_time(const RunSummaryDocument& doc, std::size_t max_windows) {
  if (max_windows < 1) throw Error("read_hit_ratio_over_time: max_windows must be >= 1");
  HitRatioOverTime out;
  const std::filesystem::path h5 = doc.file.parent_path() / "results.h5";
  std::error_code ec;
  if (!std::filesystem::is_regular_file(h5, ec)) {
    out.note = "No hit ratio over time: no " + h5.string() + " beside the summary.";
    return out;
  }
  h5::QuietErrors quiet;  // libhdf5's own stack would print before our message
  auto file = h5::open_file_read(h5.string());
  if (!h5::link_exists(file.get(), "timeseries")) {
    out.note = "No hit ratio over time: " + h5.string() + " has no /timeseries.";
    return out;
  }
  auto top = h5::open_group(file.get(), "timeseries");
  std::vector<RawWindows> raw(doc.runs.size());
  Nanoseconds longest = 0;
  for (std::size_t i = 0; i < doc.runs.size(); ++i) {
    const RunSummaryRow& r = doc.runs[i];
    const std::string name = timeseries_group_name(r.run, doc.runs.size());
    const std::string where = h5.string() + ": /timeseries/" + name;
    if (!h5::link_exists(top.get(), name.c_str())) {
      throw InputError(where + ": no such group (run " + std::to_string(r.run) + " of the summary, " + r.policy_label +
                       "); is summary.json of another run?");
    }
    auto g = h5::open_group(top.get(), name.c_str());
    raw[i] = read_windows(g.get(), where);
    longest = std::max(longest, raw[i].span_ns());
  }
  // One plotted width for every run (their lines share an axis and should
  // be equally smooth): the longest run's windows, at most max_windows.
  std::size_t without = 0;
  for (std::size_t i = 0; i < doc.runs.size(); ++i) {
    std::size_t merged = 1;
    if (raw[i].window_ns > 0) {
      const auto windows = static_cast<std::size_t>((longest + raw[i].window_ns - 1) / raw[i].window_ns);
      merged = (windows + max_windows - 1) / max_windows;
    }
    HitRatioSeries s = series_of(raw[i], doc.runs[i], merged);
    s.row = i;
    if (s.start_ns.empty()) {
      ++without;
    } else {
      out.runs.push_back(std::move(s));
    }
  }
  if (out.runs.empty()) {
    out.note = doc.engine == "cache_only"
                   ? "No hit ratio over time: the runs keep no time series (engine cache_only has no simulated time)."
                   : "No hit ratio over time: no run has a window with accesses.";
  } else if (without > 0) {
    out.note = plural(without, "run has", "runs have") + " no window with accesses and no line.";
  }
  return out;
}

HitRatioLayout layout_hit_ratio(const RunSummaryDocument& doc, const HitRatioOverTime& series,
                                const std::string& data_file, std::size_t max_lines, std::size_t max_panels) {
  HitRatioLayout out;
  if (series.runs.empty()) return out;
  const auto where = [&](const RunSummaryRow& r) {  // "25% (768 MB) · x.y=2"
    const std::string rest = r.point_label_without_capacity();
    return capacity_text(r) + (rest.empty() ? "" : " \u00b7 " + rest);
  };
  if (series.runs.size() <= max_lines) {
    // One chart. Runs at one capacity (and point) say it once, in the title,
    // not in every legend entry.
    bool one_place = true;
    const std::string first = where(doc.runs[series.runs[0].row]);
    for (const HitRatioSeries& s : series.runs) one_place = one_place && where(doc.runs[s.row]) == first;
    HitRatioPanel panel;
    if (one_place) panel.title = "every run at capacity " + first;
    for (std::size_t k = 0; k < series.runs.size(); ++k) {
      const RunSummaryRow& r = doc.runs[series.runs[k].row];
      panel.series.push_back(k);
      panel.labels.push_back(one_place ? r.policy_label : r.policy_label + " @ " + where(r));
    }
    out.panels.push_back(std::move(panel));
    return out;
  }
  // A panel per sweep point, in the order the summary first names them.
  std::vector<std::size_t> points;
  std::map<std::size_t, std::vector<std::size_t>> by_point;
  for (std::size_t k = 0; k < series.runs.size(); ++k) {
    const std::size_t p = doc.runs[series.runs[k].row].point;
    if (by_point.find(p) == by_point.end()) points.push_back(p);
    by_point[p].push_back(k);
  }
  std::vector<std::size_t> shown = points;
  if (points.size() > max_panels) {
    shown.clear();
    for (std::size_t i = 0; i < max_panels; ++i) {
      const std::size_t at = max_panels == 1 ? 0 : static_cast<std::size_t>(std::llround(
                                                       double(i) * double(points.size() - 1) / double(max_panels - 1)));
      shown.push_back(points[at]);
    }
  }
  std::size_t lines_left_out = 0, widest = 0;
  for (const std::size_t p : shown) {
    const std::vector<std::size_t>& runs = by_point[p];
    HitRatioPanel panel;
    panel.title = "capacity " + where(doc.runs[series.runs[runs.front()].row]);
    for (std::size_t j = 0; j < runs.size() && j < max_lines; ++j) {
      panel.series.push_back(runs[j]);
      panel.labels.push_back(doc.runs[series.runs[runs[j]].row].policy_label);
    }
    if (runs.size() > max_lines) lines_left_out += runs.size() - max_lines;
    widest = std::max(widest, runs.size());
    out.panels.push_back(std::move(panel));
  }
  std::vector<std::string> parts;
  if (shown.size() < points.size()) {
    parts.push_back("Shown: " + std::to_string(shown.size()) + " of " + std::to_string(points.size()) +
                    " sweep points (evenly spread, the first and the last kept)");
  }
  if (lines_left_out > 0) {
    parts.push_back((parts.empty() ? "Shown: " : "") + std::string("the first ") + std::to_string(max_lines) +
                    " runs of a point (up to " + std::to_string(widest) + "; " +
                    plural(lines_left_out, "run", "runs") + " of the shown points left out)");
  }
  if (!parts.empty()) {
    std::string note = parts[0];
    for (std::size_t i = 1; i < parts.size(); ++i) note += "; " + parts[i];
    out.note = note + ". Every run's series is in " + data_file + ".";
  }
  return out;
}

Json hit_ratio_section_json(const RunSummaryDocument& doc, const HitRatioOverTime& series,
                            const HitRatioLayout& layout) {
  Json j;
  j["scenario"] = doc.scenario;
  j["file"] = doc.file.string();
  std::string note = series.note;
  if (!layout.note.empty()) note += (note.empty() ? "" : " ") + layout.note;
  j["note"] = note;
  Nanoseconds longest = 0;
  for (const HitRatioSeries& s : series.runs) longest = std::max(longest, s.end_ns.empty() ? 0 : s.end_ns.back());
  j["time_unit"] = time_unit(longest);
  j["runs"] = Json::array();
  for (const HitRatioSeries& s : series.runs) {
    const RunSummaryRow& r = doc.runs[s.row];
    Json ratios = Json::array();
    for (std::size_t k = 0; k < s.hits.size(); ++k) ratios.push_back(double(s.hits[k]) / double(s.accesses[k]));
    j["runs"].push_back(Json{{"run", r.run},
                             {"policy_label", r.policy_label},
                             {"point_label", r.point_label},
                             {"capacity", r.capacity},
                             {"capacity_bytes", r.capacity_bytes},
                             {"window_ns", s.window_ns},
                             {"merged", s.merged},
                             {"empty_windows", s.empty_windows},
                             {"start_ns", s.start_ns},
                             {"end_ns", s.end_ns},
                             {"hits", s.hits},
                             {"accesses", s.accesses},
                             {"hit_ratio", std::move(ratios)}});
  }
  j["panels"] = Json::array();
  for (const HitRatioPanel& p : layout.panels) {
    Json lines = Json::array();
    for (std::size_t k = 0; k < p.series.size(); ++k) lines.push_back(Json{{"series", p.series[k]}, {"label", p.labels[k]}});
    j["panels"].push_back(Json{{"title", p.title}, {"lines", std::move(lines)}});
  }
  return j;
}

}  // namespace flashsim::report
