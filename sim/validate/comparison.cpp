#include "sim/validate/comparison.h"

#include <algorithm>
#include <cmath>

#include "sim/core/errors.h"

namespace flashsim {

ComparisonRow compare_metric(const MetricSpec& spec, double sim, const MeasuredValue* hw, bool in_scope) {
  ComparisonRow r;
  r.metric = spec.name;
  r.sim = sim;
  r.tolerance = spec.tolerance;
  if (!hw) return r;
  r.hw = hw->median;
  r.hw_min = hw->min;
  r.hw_max = hw->max;
  r.hw_repeats = static_cast<unsigned>(hw->values.size());
  r.abs_error = std::fabs(sim - hw->median);
  r.rel_error = r.abs_error / std::max(std::fabs(hw->median), spec.floor > 0.0 ? spec.floor : 1e-300);
  if (r.abs_error == 0.0) r.rel_error = 0.0;
  switch (spec.kind) {
    case ToleranceKind::relative:
      r.tolerance_effective = std::max(spec.tolerance, 3.0 * hw->relative_spread());
      r.passed = r.rel_error <= r.tolerance_effective;
      break;
    case ToleranceKind::absolute:
      r.tolerance_effective = std::max(spec.tolerance, 3.0 * (hw->max - hw->min));
      r.passed = r.abs_error <= r.tolerance_effective;
      break;
    case ToleranceKind::exact:
      // Both sides compute the ratio from integer counts the same way; a
      // last-bit difference would be a different count.
      r.tolerance_effective = 0.0;
      r.passed = r.abs_error <= 1e-12 * std::max(1.0, std::fabs(hw->median));
      break;
  }
  r.judged = in_scope;
  r.gated = in_scope && spec.gate;
  if (!in_scope) r.passed = true;
  return r;
}

bool EntryComparison::passed() const {
  return std::all_of(rows.begin(), rows.end(), [](const ComparisonRow& r) { return !r.gated || r.passed; });
}

std::optional<double> pearson_r(const std::vector<double>& x, const std::vector<double>& y) {
  if (x.size() != y.size()) throw Error("pearson_r: sizes differ");
  const std::size_t n = x.size();
  if (n < 3) return std::nullopt;  // two points always correlate perfectly
  double mx = 0, my = 0;
  for (std::size_t i = 0; i < n; ++i) mx += x[i], my += y[i];
  mx /= static_cast<double>(n);
  my /= static_cast<double>(n);
  double sxy = 0, sxx = 0, syy = 0;
  for (std::size_t i = 0; i < n; ++i) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) * (x[i] - mx);
    syy += (y[i] - my) * (y[i] - my);
  }
  if (sxx <= 0.0 || syy <= 0.0) return std::nullopt;
  return sxy / std::sqrt(sxx * syy);
}

std::vector<MetricSummary> summarize(const std::vector<MetricSpec>& metrics, const std::vector<EntryComparison>& entries,
                                     double log_span) {
  std::vector<MetricSummary> out;
  for (std::size_t m = 0; m < metrics.size(); ++m) {
    for (const char* role : {"all", "fit", "holdout"}) {
      MetricSummary s;
      s.metric = metrics[m].name;
      s.role = role;
      std::vector<double> sim, hw;
      double sum = 0.0;
      for (const EntryComparison& e : entries) {
        if (s.role == "fit" && !e.fit) continue;
        if (s.role == "holdout" && e.fit) continue;
        const ComparisonRow& r = e.rows.at(m);
        if (!r.judged || !r.hw) continue;
        ++s.n;
        sum += r.rel_error;
        s.max_rel_error = std::max(s.max_rel_error, r.rel_error);
        if (r.rel_error < 0.10) ++s.under_10pct;
        sim.push_back(r.sim);
        hw.push_back(*r.hw);
      }
      if (s.n == 0) continue;
      s.mae_pct = 100.0 * sum / static_cast<double>(s.n);
      const auto [lo_s, hi_s] = std::minmax_element(sim.begin(), sim.end());
      const auto [lo_h, hi_h] = std::minmax_element(hw.begin(), hw.end());
      const double lo = std::min(*lo_s, *lo_h), hi = std::max(*hi_s, *hi_h);
      s.pearson_log10 = lo > 0.0 && hi / lo > log_span;
      if (s.pearson_log10) {
        for (double& v : sim) v = std::log10(v);
        for (double& v : hw) v = std::log10(v);
      }
      s.pearson_r = pearson_r(sim, hw);
      out.push_back(std::move(s));
    }
  }
  return out;
}

}  // namespace flashsim
