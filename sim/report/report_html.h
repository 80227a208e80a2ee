// The one self-contained HTML page of `flashsim report`: per validation
// result its provenance (suite, baseline commit, device, driver, clocks,
// profile), the failures, the summary per metric and role (n, MAE %,
// Pearson r and on what, count under 10%), the figures (SVG inlined), the
// per-scenario table (sim, hw, spread, errors, tolerance, pass/fail; failing
// rows highlighted); per `flashsim run` summary a table of its runs (with the
// optimal-caching bound at each capacity of a capacity sweep, and the
// miss-ratio curves with the bound as a band; the hit ratio over time of runs
// with a time series). No
// external resources: CSS inline, no scripts. Every string from the inputs
// is HTML-escaped.
#pragma once
#include <string>
#include <vector>

#include "sim/report/hit_ratio_over_time.h"
#include "sim/report/mrc_bound.h"
#include "sim/report/plot_runner.h"
#include "sim/report/report_input.h"

namespace flashsim::report {

struct ReportSection {
  ReportInput input;
  PlotOutcome plots;  ///< ran == false: the page says why (skipped_reason); run summaries: the miss-ratio curves of a capacity sweep, then the hit ratio over time
  MrcBounds bounds{};  ///< run summaries: the bound per run (compute_mrc_bounds); attempted == false: none shown
  HitRatioOverTime hit_ratio{};  ///< run summaries: the series charted (read_hit_ratio_over_time); its note is shown
};

/// The page. `tool_version` and `date_utc` go into its header line.
std::string report_html(const std::vector<ReportSection>& sections, const std::string& tool_version,
                        const std::string& date_utc);

}  // namespace flashsim::report
