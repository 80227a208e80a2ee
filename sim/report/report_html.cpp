#include "sim/report/report_html.h"

#include <cmath>

#include "sim/results/results_table.h"

#include <algorithm>
#include <optional>
#include <sstream>

#include "sim/report/html_text.h"

namespace flashsim::report {

namespace {

constexpr const char* kStyle = R"(body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:1.5em auto;max-width:1400px;padding:0 1em;color:#222}
h1{font-size:1.5em}h2{font-size:1.25em;border-bottom:1px solid #ccc;padding-bottom:.2em;margin-top:2em}h3{font-size:1.05em;margin-top:1.5em}
table{border-collapse:collapse;font-size:.85em;margin:.5em 0}th,td{border:1px solid #ccc;padding:.2em .5em;vertical-align:top}
th{background:#f2f2f2;text-align:left}td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
tr.fail td{background:#fde2e2}td.fail{background:#fbcaca;font-weight:bold;color:#900}td.pass{color:#176317}td.warn{color:#8a5a00}
.badge{display:inline-block;padding:.1em .6em;border-radius:.3em;font-size:.8em;margin-left:.5em;vertical-align:middle}
.badge.pass{background:#d8f0d8;color:#176317}.badge.fail{background:#fbcaca;color:#900}
.notice{background:#fff4d6;border:1px solid #e8c660;padding:.5em .8em}.meta{color:#555;font-size:.9em}
figure{margin:1em 0}figure svg{max-width:100%;height:auto}figcaption{font-size:.85em;color:#444})";

std::string esc(const std::string& s) { return html_escape(s); }

std::string td(const std::string& text, const char* cls = nullptr) {
  return cls ? "<td class=\"" + std::string(cls) + "\">" + text + "</td>" : "<td>" + text + "</td>";
}

std::string num(const std::string& text) { return td(text, "num"); }

std::string result_cell(const ValidationRow& r) {
  if (!r.passed || r.judged == false) return td("not checked");
  if (r.failed()) return td("FAIL", "fail");
  if (r.over_tolerance()) return td("over (not gated)", "warn");
  return td("pass", "pass");
}

std::string tolerance_text(const ValidationMetric* m, const ValidationRow& r) {
  if (r.judged == false || (!r.tolerance_effective && !r.tolerance)) return "\u2014";
  if (m != nullptr && m->kind == "exact") return "exact";
  std::string t = format_percent(r.tolerance_effective ? r.tolerance_effective : r.tolerance, 1);
  if (r.tolerance && r.tolerance_effective && *r.tolerance_effective > *r.tolerance + 1e-12) {
    t += " (stated " + format_percent(r.tolerance, 1) + ", widened to 3\u00d7 the hw spread)";
  }
  return t;
}

void provenance_table(std::ostream& out, const ValidationDocument& doc) {
  out << "<h3>Provenance</h3>\n<table>\n";
  for (const auto& [key, value] : doc.provenance) {
    out << "<tr><th>" << esc(key) << "</th>" << td(esc(value)) << "</tr>\n";
  }
  out << "</table>\n";
}

void problems_list(std::ostream& out, const ValidationDocument& doc) {
  if (doc.problems.empty()) return;
  out << "<h3>Problems (" << doc.problems.size() << ")</h3>\n<ul class=\"notice\">\n";
  for (const auto& p : doc.problems) out << "<li>" << esc(p) << "</li>\n";
  out << "</ul>\n";
}

void failures_table(std::ostream& out, const ValidationDocument& doc) {
  if (doc.failures.empty()) return;
  out << "<h3>Failures (" << doc.failures.size() << ")</h3>\n<table>\n<tr><th>scenario</th><th>metric</th><th>sim</th>"
      << "<th>hw</th><th>relative error</th><th>tolerance</th></tr>\n";
  for (const auto& f : doc.failures) {
    out << "<tr class=\"fail\">" << td(esc(f.entry)) << td(esc(f.metric)) << num(format_value(f.sim))
        << num(format_value(f.hw)) << num(format_percent(f.rel_error)) << num(format_percent(f.tolerance_effective, 1))
        << "</tr>\n";
  }
  out << "</table>\n";
}

void metric_summary_table(std::ostream& out, const ValidationDocument& doc) {
  out << "<h3>Summary per metric</h3>\n<table>\n<tr><th>metric</th><th>unit</th><th>kind</th><th>gate</th>"
      << "<th>tolerance</th><th>role</th><th>n</th><th>MAE</th><th>Pearson r</th><th>r on</th><th>under 10%</th>"
      << "<th>max relative error</th></tr>\n";
  auto metric_cells = [&](const std::string& name) {
    const ValidationMetric* m = doc.find_metric(name);
    if (m == nullptr) return td(esc(name)) + td("") + td("") + td("") + td("");
    return td(esc(m->name)) + td(esc(m->unit)) + td(esc(m->kind)) + td(m->gate ? "yes" : "no") +
           num(m->kind == "exact" ? "exact" : format_percent(m->tolerance, 1));
  };
  // Summary rows in the order of the metric list, then any others.
  std::vector<const ValidationSummary*> ordered;
  for (const auto& m : doc.metrics) {
    for (const auto& s : doc.summary) {
      if (s.metric == m.name) ordered.push_back(&s);
    }
  }
  for (const auto& s : doc.summary) {
    if (doc.find_metric(s.metric) == nullptr) ordered.push_back(&s);
  }
  for (const ValidationSummary* s : ordered) {
    out << "<tr>" << metric_cells(s->metric) << td(esc(s->role)) << num(std::to_string(s->n))
        << num(s->mae_pct ? format_fixed(s->mae_pct, 2) + "%" : "\u2014") << num(format_fixed(s->pearson_r, 4))
        << td(esc(s->pearson_on))
        << num(s->under_10pct ? std::to_string(*s->under_10pct) + " / " + std::to_string(s->n) : "\u2014")
        << num(format_percent(s->max_rel_error)) << "</tr>\n";
  }
  if (ordered.empty()) out << "<tr><td colspan=\"12\">no summary in the file</td></tr>\n";
  out << "</table>\n";
}

void figures(std::ostream& out, const PlotOutcome& plots) {
  out << "<h3>Plots</h3>\n";
  if (!plots.ran) {
    out << "<p class=\"notice\">Plots skipped: " << esc(plots.skipped_reason) << "."
        << (plots.disabled ? "" : " Install matplotlib (Debian: python3-matplotlib, see tools/install-deps.sh) or pass --python.")
        << "</p>\n";
    return;
  }
  if (plots.figures.empty()) out << "<p class=\"notice\">The plot script drew no figures (no data to plot).</p>\n";
  for (const auto& f : plots.figures) {
    out << "<figure id=\"fig-" << esc(f.name) << "\">\n" << f.svg << "\n<figcaption><b>" << esc(f.title) << ".</b> "
        << esc(f.caption) << "</figcaption>\n</figure>\n";
  }
}

void entry_table(std::ostream& out, const ValidationDocument& doc) {
  out << "<h3>Scenarios (" << doc.entries.size() << ")</h3>\n<table>\n<tr><th>scenario</th><th>group</th><th>role</th>"
      << "<th>policy</th><th>capacity</th><th>metric</th><th>sim</th><th>hw</th><th>hw spread (min \u2026 max, repeats)</th>"
      << "<th>absolute error</th><th>relative error</th><th>tolerance</th><th>result</th></tr>\n";
  for (const auto& e : doc.entries) {
    const std::size_t span = std::max<std::size_t>(1, e.rows.size());
    const std::string policy = e.policy + (e.prefetch.empty() ? "" : " + " + e.prefetch);
    const std::string head = "<td rowspan=\"" + std::to_string(span) + "\"" + (e.failed() ? " class=\"fail\"" : "") +
                             ">" + esc(e.name) + "</td><td rowspan=\"" + std::to_string(span) + "\">" + esc(e.group) +
                             "</td><td rowspan=\"" + std::to_string(span) + "\">" + esc(e.role) + "</td><td rowspan=\"" +
                             std::to_string(span) + "\">" + esc(policy) + "</td><td rowspan=\"" +
                             std::to_string(span) + "\" class=\"num\">" + format_percent(e.capacity_fraction, 0) + "</td>";
    if (e.rows.empty()) {
      out << "<tr>" << head << "<td colspan=\"8\">no rows</td></tr>\n";
      continue;
    }
    for (std::size_t i = 0; i < e.rows.size(); ++i) {
      const ValidationRow& r = e.rows[i];
      const std::string spread = r.hw_min || r.hw_max ? format_value(r.hw_min) + " \u2026 " + format_value(r.hw_max) +
                                                            " (" + std::to_string(r.hw_repeats) + ")"
                                                      : "\u2014";
      out << (r.failed() ? "<tr class=\"fail\">" : "<tr>") << (i == 0 ? head : "") << td(esc(r.metric))
          << num(format_value(r.sim)) << num(format_value(r.hw)) << num(spread)
          << num(r.hw ? format_value(r.abs_error) : "\u2014")  // validate writes 0 when there is no hw value
          << num(r.hw ? format_percent(r.rel_error) : "\u2014") << td(tolerance_text(doc.find_metric(r.metric), r))
          << result_cell(r) << "</tr>\n";
    }
  }
  out << "</table>\n";
}

void validation_section(std::ostream& out, const ValidationDocument& doc, const PlotOutcome& plots) {
  out << "<section>\n<h2>Validation: " << esc(doc.suite_name.empty() ? doc.file.string() : doc.suite_name)
      << (doc.passed ? "<span class=\"badge pass\">passed</span>" : "<span class=\"badge fail\">FAILED</span>")
      << "</h2>\n<p class=\"meta\">" << esc(doc.file.string()) << " \u00b7 suite file " << esc(doc.suite_file)
      << " \u00b7 hardware values: " << esc(doc.hw_source) << " \u00b7 " << esc(doc.date_utc) << " \u00b7 flashsim "
      << esc(doc.tool_version) << " \u00b7 " << doc.entries.size() << " scenarios, " << doc.failures.size()
      << (doc.failures.size() == 1 ? " failure" : " failures") << "</p>\n";
  provenance_table(out, doc);
  problems_list(out, doc);
  failures_table(out, doc);
  metric_summary_table(out, doc);
  figures(out, plots);
  entry_table(out, doc);
  out << "</section>\n";
}

// "0.0606 \u2026 0.0875": lower .. upper of an optimal hit ratio.
std::string bound_range(double lower, double upper) {
  return format_fixed(lower, 4) + " \u2026 " + format_fixed(upper, 4);
}

void run_summary_section(std::ostream& out, const ReportSection& section) {
  const RunSummaryDocument& doc = section.input.run_summary;
  const MrcBounds& bounds = section.bounds;
  bool any_bound = false;
  for (const auto& b : bounds.per_run) any_bound = any_bound || b.has_value();
  // With cache.ignore_sizes the bytes fields count blocks (summary.json size_unit).
  const std::string unit = doc.size_unit();
  const std::string fetched = unit == "bytes" ? "bytes fetched" : "fetched (" + unit + ")";
  out << "<section>\n<h2>Runs: " << esc(doc.scenario) << "</h2>\n<p class=\"meta\">" << esc(doc.file.string())
      << " \u00b7 flashsim " << esc(doc.tool_version) << " \u00b7 engine " << esc(doc.engine) << " \u00b7 "
      << esc(doc.date_utc) << " \u00b7 " << doc.runs.size() << " runs</p>\n";
  if (!bounds.note.empty()) out << "<p class=\"notice\">" << esc(bounds.note) << "</p>\n";
  bool serving = false;
  for (const auto& r : doc.runs) serving = serving || r.tpot_mean_ns.has_value();
  // Humanised: bytes in SI units (blocks counted with cache.ignore_sizes), times in ns/µs/ms/s.
  const auto size = [&](double v) {
    return unit == "bytes" ? format_bytes_si(static_cast<ByteCount>(std::llround(v))) : format_count(v) + " blk";
  };
  const auto time = [](std::optional<double> v) {
    return v ? format_duration(static_cast<Nanoseconds>(std::llround(*v))) : std::string("\u2014");
  };
  out << "<table>\n<tr><th>policy</th><th>point</th>"
      << "<th>capacity</th><th>fast tier</th><th>accesses</th><th>misses</th><th>hit ratio</th>"
      << "<th>byte hit ratio</th>";
  if (any_bound) out << "<th>optimal hit ratio (lower \u2026 upper)</th><th>optimal byte hit ratio (lower \u2026 upper)</th><th>bound</th>";
  out << "<th>" << esc(fetched) << "</th><th>stall</th><th>latency p50</th>"
      << "<th>latency p99</th><th>simulated</th>";
  if (serving) out << "<th>TTFT p50</th><th>TPOT</th><th>tokens/s</th>";
  out << "</tr>\n";
  for (std::size_t i = 0; i < doc.runs.size(); ++i) {
    const RunSummaryRow& r = doc.runs[i];
    out << "<tr>" << td(esc(r.policy_label)) << td(esc(r.point_label)) << td(esc(r.capacity))
        << num(size(r.capacity_bytes)) << num(format_count(r.accesses)) << num(format_count(r.misses))
        << num(format_percent(r.hit_ratio_by_access)) << num(format_percent(r.hit_ratio_by_byte));
    if (any_bound) {
      const std::optional<HitBound>& b = i < bounds.per_run.size() ? bounds.per_run[i] : std::nullopt;
      if (b) {
        out << num(bound_range(b->hit_ratio_by_access_lower, b->hit_ratio_by_access_upper))
            << num(bound_range(b->hit_ratio_by_byte_lower, b->hit_ratio_by_byte_upper)) << td(esc(b->method));
      } else {
        out << num("\u2014") << num("\u2014") << td("\u2014");
      }
    }
    out << num(size(r.bytes_fetched)) << num(time(r.stall_ns)) << num(time(r.latency_p50_ns))
        << num(time(r.latency_p99_ns)) << num(time(r.simulated_ns));
    if (serving) {
      out << num(time(r.ttft_p50_ns)) << num(time(r.tpot_mean_ns))
          << num(r.tokens_per_second ? format_fixed(*r.tokens_per_second, 1) : "\u2014");
    }
    out << "</tr>\n";
  }
  out << "</table>\n";
  if (any_bound) {
    out << "<p class=\"meta\">Optimal hit ratio: bounds on what any policy can hit at the run's capacity (no policy "
           "hits more than the upper; the lower is a schedule that exists): FOO, min-cost flow, exact on short traces "
           "(--bound-exact-max-accesses); PFOO-L and segmented FOO-U beyond (docs/policies.md; `flashsim trace bound` "
           "for tighter ones).</p>\n";
  }
  if (is_capacity_sweep(doc) || !section.hit_ratio.runs.empty()) figures(out, section.plots);
  if (!section.hit_ratio.note.empty()) out << "<p class=\"meta\">" << esc(section.hit_ratio.note) << "</p>\n";
  if (!is_capacity_sweep(doc)) {
    out << "<p class=\"meta\">A run summary has no hardware side: no parity plots; a capacity sweep gets its "
           "miss-ratio curves.</p>\n";
  }
  out << "</section>\n";
}

}  // namespace

std::string report_html(const std::vector<ReportSection>& sections, const std::string& tool_version,
                        const std::string& date_utc) {
  std::ostringstream out;
  std::string title;
  for (const auto& s : sections) {
    const std::string name = s.input.kind == ReportInput::Kind::validation ? s.input.validation.suite_name
                                                                            : s.input.run_summary.scenario;
    title += (title.empty() ? "" : ", ") + (name.empty() ? s.input.file.filename().string() : name);
  }
  out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>flashsim report: " << esc(title)
      << "</title>\n<style>\n" << kStyle << "\n</style>\n</head>\n<body>\n<h1>flashsim report</h1>\n<p class=\"meta\">"
      << "Written by flashsim " << esc(tool_version) << " at " << esc(date_utc) << " from:</p>\n<ul>\n";
  for (const auto& s : sections) out << "<li>" << esc(s.input.file.string()) << "</li>\n";
  out << "</ul>\n";
  for (const auto& s : sections) {
    if (s.input.kind == ReportInput::Kind::validation) {
      validation_section(out, s.input.validation, s.plots);
    } else {
      run_summary_section(out, s);
    }
  }
  out << "</body>\n</html>\n";
  return out.str();
}

}  // namespace flashsim::report
