// The hit ratio over time of a `flashsim run` results folder, for `flashsim
// report`: each run's windows read from results.h5 (/timeseries/run_NNN:
// start_ns, hits, accesses; attribute window_ns), hits / accesses per window,
// windows without accesses left out (an idle window has no ratio, and a 0
// there would read as a cold cache). Long runs have their windows summed
// into wider ones so that a line has at most `max_windows` points; every run
// of a summary gets the same width (its lines share one axis).
//
// Many runs do not fit one chart: up to kMaxLines runs share one; beyond,
// one panel per sweep point (its runs share the trace and the capacity, so
// the lines compare policies on one time axis), at most kMaxPanels of them,
// evenly spread over the points; the data file holds every run either way.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/core/units.h"
#include "sim/report/json_fields.h"
#include "sim/report/run_summary_document.h"

namespace flashsim::report {

/// Lines per chart: matplotlib's ten distinct colours.
inline constexpr std::size_t kMaxLines = 10;
/// Panels of a sweep's chart: six keep each readable on one page.
inline constexpr std::size_t kMaxPanels = 6;
/// Points per line: windows beyond are summed into wider ones. A chart about
/// 700 px wide shows no more (finer windows only add noise there; results.h5
/// keeps them).
inline constexpr std::size_t kMaxWindows = 200;

struct HitRatioSeries {
  std::size_t row = 0;         ///< its run: RunSummaryDocument::runs[row]
  Nanoseconds window_ns = 0;   ///< width of a plotted window: results.h5's window_ns times `merged`
  std::size_t merged = 1;      ///< results.h5 windows summed into one plotted window
  /// The plotted windows (those with accesses), by time: window k covers
  /// [start_ns[k], end_ns[k]) of simulated time (the last one cut at the
  /// run's end) and had hits[k] of accesses[k] > 0 accesses hit.
  std::vector<Nanoseconds> start_ns, end_ns;
  std::vector<std::uint64_t> hits, accesses;
  std::size_t empty_windows = 0;  ///< plotted windows without accesses, left out
};

struct HitRatioOverTime {
  std::vector<HitRatioSeries> runs;  ///< runs with a window with accesses, in summary order
  /// One line when there is no chart, or some runs have no line, saying why
  /// ("No hit ratio over time: the runs keep no time series (engine
  /// cache_only has no simulated time)."). Empty when every run has one.
  std::string note;
};

/// Reads the windows of `doc`'s runs from results.h5 beside its summary.json
/// (runs[i].run names the group), summed so that the longest run has at most
/// `max_windows` (>= 1) and every run the same plotted width.
/// No results.h5, or one without /timeseries, gives no series and `note`
/// says so (nothing thrown: the summary still makes a page). Throws
/// InputError naming the file and group when a run's group is missing, its
/// columns differ in length, its window_ns is not positive while it has
/// windows, or a window has more hits than accesses.
HitRatioOverTime read_hit_ratio_over_time(const RunSummaryDocument& doc, std::size_t max_windows = kMaxWindows);

struct HitRatioPanel {
  /// A panel of a sweep point: "capacity 25% (768 MB) · x.y=2"; the one chart
  /// of runs at one place: "every run at capacity 25% (768 MB)"; else "".
  std::string title;
  std::vector<std::size_t> series;  ///< indexes into HitRatioOverTime::runs, one line each
  /// The legend, parallel to series: "lru @ 25% (768 MB) · x.y=2" in the one
  /// chart of runs at several places, else the policy label ("lru").
  std::vector<std::string> labels;
};

struct HitRatioLayout {
  std::vector<HitRatioPanel> panels;  ///< empty when no run has a series
  /// What was left out of the chart and why (empty when nothing was):
  /// "Shown: 6 of 20 sweep points (evenly spread, first and last kept); ..."
  std::string note;
};

/// The charts of `series`: one panel of every run when there are at most
/// `max_lines` (the capacity in the title when the runs share it, else in
/// each legend entry); else a panel per sweep point (RunSummaryRow::point, in
/// summary order), at most `max_panels` of them (evenly spread, the first and
/// the last kept), each with its first `max_lines` runs. `data_file` (the
/// data's file name) goes into the note.
HitRatioLayout layout_hit_ratio(const RunSummaryDocument& doc, const HitRatioOverTime& series,
                                const std::string& data_file, std::size_t max_lines = kMaxLines,
                                std::size_t max_panels = kMaxPanels);

/// Schema of the data `flashsim report` writes beside its page (FILE.html ->
/// FILE-hit-ratio.json) and plots from: {"schema", "sections": [hit_ratio_section_json ...]}.
inline constexpr const char* kReportHitRatioSchema = "flashsim-report-hit-ratio/1";

/// One run summary's hit ratio over time: scenario, file, note (series and
/// layout notes), time_unit ("ns", "µs", "ms" or "s": the x axis's, by the
/// longest run), runs (per series: run, policy_label, point_label, capacity,
/// capacity_bytes, window_ns, merged, empty_windows, and the plotted windows'
/// start_ns, end_ns, hits, accesses and hit_ratio = hits / accesses) and
/// panels (title, and lines: per line its series, an index into runs, and its label).
Json hit_ratio_section_json(const RunSummaryDocument& doc, const HitRatioOverTime& series,
                            const HitRatioLayout& layout);

}  // namespace flashsim::report
