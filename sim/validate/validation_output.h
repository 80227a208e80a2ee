// `flashsim validate`'s outputs: the side-by-side table on a terminal and
// validation.json (schema "flashsim-validation/1", docs/validation.md),
// which tools/plot_validation.py and `flashsim report` read.
#pragma once
#include <filesystem>
#include <ostream>
#include <string>

#include "sim/validate/validation_runner.h"

namespace flashsim {

/// A metric's value for a table cell: durations for *_ns, SI bytes for
/// bytes_*, counts for misses, four decimals for ratios.
std::string format_metric_value(const std::string& metric, double value);

/// Per entry and metric: sim, hw median (min..max, repeats), absolute and
/// relative error, effective tolerance, verdict; then the suite summary per
/// metric and role (n, MAE %, Pearson r and on what, count under 10%); then
/// every failing row and problem by name.
void print_validation(std::ostream& out, const ValidationReport& report);

/// validation.json text.
std::string validation_json_text(const ValidationReport& report);

/// Writes `dir`/validation.json atomically; returns its path. Throws Error naming it.
std::filesystem::path write_validation_json(const std::filesystem::path& dir, const ValidationReport& report);

}  // namespace flashsim
