// The name of a run's group under /timeseries in results.h5
// (sim/results/results_writer.h): one rule for the writer, the sweep merge
// and the readers (flashsim report, flashsim timeline).
#pragma once
#include <cstddef>
#include <string>

namespace flashsim {

/// "run_007": run `index` of a results file holding `count` runs, zero-padded
/// to 3 digits, or to the digits of count - 1 beyond 1000 runs (so names sort
/// in run order).
std::string timeseries_group_name(std::size_t index, std::size_t count);

}  // namespace flashsim
