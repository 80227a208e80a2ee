// `flashsim calibrate --fit`: the hardware profile's free parameters fitted
// to recorded GPU replays by least squares, the simulator itself as the
// model. Residuals are relative errors (sim - hw) / max(hw, floor) of each
// fit entry's time per token and stall time; Levenberg-Marquardt (Eigen's
// unsupported LevenbergMarquardt, forward-difference Jacobian) over the
// logarithms of the parameters (so they stay positive). The error reported
// for the fitted profile is the one on the held-out entries.
#pragma once
#include <ostream>
#include <string>
#include <vector>

#include "sim/validate/validation_runner.h"

namespace flashsim {

/// One free parameter: the scenario key it overrides (hardware.*) and its unit.
struct FitParameter {
  std::string name;        ///< "link_latency", "link_bandwidth", "miss_penalty", "hit_latency", "contention"
  std::string key;         ///< dotted path under the scenario, e.g. "hardware.tiers.1.link.latency"
  std::string unit;        ///< "ns", "B/s", "ns/MiB"
  double initial = 0.0;    ///< the suite profile's value (a small positive start where it is 0)
  double fitted = 0.0;
};

/// The parameters `calibrate --fit` knows, by name, in this order:
/// link_latency, link_bandwidth, miss_penalty, hit_latency, contention.
const std::vector<std::string>& fit_parameter_names();

struct FitOptions {
  /// Names (empty: link_latency, link_bandwidth, miss_penalty, hit_latency;
  /// contention only when asked: on the H200 suite it drifts to a slope the
  /// direct probe refutes and raises the held-out error, VALIDATION.md).
  std::vector<std::string> parameters;
  std::vector<std::string> metrics = {"time_per_token_ns", "stall_ns"};  ///< residual metrics (suite floors apply)
  unsigned jobs = 0;                      ///< simulator runs in parallel
  unsigned max_evaluations = 0;           ///< of the whole fit set (0: 40 x (parameters + 1))
  std::filesystem::path baseline;         ///< empty: the suite's
};

/// Error of one metric over one role, before and after the fit.
struct FitError {
  std::string metric, role;  ///< role: "fit" | "holdout"
  std::size_t n = 0;
  double mae_pct_before = 0.0, mae_pct_after = 0.0;
};

struct FitResult {
  std::vector<FitParameter> parameters;
  std::vector<FitError> errors;
  double rms_before = 0.0, rms_after = 0.0;  ///< of the fit residuals
  unsigned evaluations = 0;                  ///< simulator passes over the fit entries
  std::string status;                        ///< the optimiser's stopping reason
  std::string baseline_file;
  BaselineProvenance provenance;             ///< of the baseline fitted to
  std::vector<std::string> fit_entries, holdout_entries;
};

/// Fits. Throws InputError when the suite has no profile, no fit entries, an
/// unknown parameter name, or a fit entry missing from the baseline.
FitResult fit_profile(const ValidationSuite& suite, const FitOptions& options, std::ostream* progress);

/// A profile YAML to be written at `out` that inherits the suite's profile
/// (`profile:` its path relative to `out`'s folder, so it cannot resolve to
/// another file of the same name) and overrides the fitted values, with a
/// header stating how they were fitted, on what, and the held-out error.
std::string fitted_profile_yaml(const ValidationSuite& suite, const FitResult& result, const std::string& name,
                                const std::filesystem::path& out);

/// Throws InputError unless `name` is a usable profile name ([A-Za-z0-9._-]).
void check_profile_name(const std::string& name);

/// Throws InputError when writing the fitted profile to `out` would destroy
/// something: the suite file, the profile the fit starts from, or any
/// existing file that `calibrate --fit` did not write (its first line).
void check_fit_output(const ValidationSuite& suite, const std::filesystem::path& out);

/// The parameters (initial -> fitted) and the before/after error table.
void print_fit(std::ostream& out, const FitResult& result);

}  // namespace flashsim
