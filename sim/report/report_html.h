// The one self-contained HTML page of `flashsim report`: per validation
// result its provenance (suite, baseline commit, device, driver, clocks,
// profile), the failures, the summary per metric and role (n, MAE %,
// Pearson r and on what, count under 10%), the figures (SVG inlined), the
// per-scenario table (sim, hw, spread, errors, tolerance, pass/fail; failing
// rows highlighted); per `flashsim run` summary a table of its runs (with the
// optimal-caching bound at each capacity of a capacity sweep, and the
// miss-ratio curves with the bound as a band). No
// external resources: CSS inline, no scripts. Every string from the inputs
// is HTML-escaped.
#pragma once
#include <string>
#include <vector>

#include "sim/report/mrc_bound.h"
#include "sim/report/plot_runner.h"
#include "sim/report/report_input.h"

namespace flashsim::report {

struct ReportSection {
  ReportInput input;
  PlotOutcome plots;  ///< ran == false: the page says why (skipped_reason); run summaries: only capacity sweeps are plotted
  MrcBounds bounds{};  ///< run summaries: the bound per run (compute_mrc_bounds); attempted == false: none shown
};

/// The page. `tool_version` and `date_utc` go into its header line.
std::string report_html(const std::vector<ReportSection>& sections, const std::string& tool_version,
                        const std::string& date_utc);

}  // namespace flashsim::report
