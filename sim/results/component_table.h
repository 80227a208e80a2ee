// The components' statistics (sim/metrics/component_stats.h) as the terminal
// shows them: `flashsim run --components`, below the metric tables.
#pragma once
#include <cstddef>
#include <ostream>

#include "sim/results/run_result.h"

namespace flashsim {

/// Prints, per sweep point of `results` that has any, every component
/// statistic of its runs: the numbers as a table (one row per
/// component.name in first-seen order, one column per policy, each value in
/// its unit: ns as a duration, bytes SI, "1" as a percent, counts exact; "-"
/// where a run lacks it), then the texts (once when every run of the point
/// has the same, else one line per run, a multi-line text indented) and the
/// series (once when every run has the same values, else one line per run:
/// up to 8 values listed, longer ones as length, min, median, max in the
/// series' unit).
void print_component_tables(std::ostream& out, const ScenarioResults& results);

/// The distinct component.name keys (numbers, texts and series) over the
/// runs of `results`, for the metric table's pointer to --components.
std::size_t count_component_statistics(const ScenarioResults& results);

}  // namespace flashsim
