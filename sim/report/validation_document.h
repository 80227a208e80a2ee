// The validation.json that `flashsim validate` writes (schema
// flashsim-validation/1, see docs/validation.md), read for the report:
// provenance, per-metric tolerances, per-scenario rows, the suite summary
// and the failures. Unknown keys are ignored; `series` is left to the plot
// script (tools/plot_validation.py).
#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace flashsim::report {

inline constexpr const char* kValidationSchema = "flashsim-validation/1";

struct ValidationMetric {
  std::string name;  ///< "time_per_token_ns", "hit_ratio_by_access", ...
  std::string unit;  ///< "ns", "B", "" (a ratio or a count)
  std::string kind;  ///< "relative" or "exact"
  std::optional<double> tolerance;  ///< relative (0.10 = 10%)
  double floor = 0;                 ///< relative error is taken against max(hw, floor), in the metric's unit
  bool gate = false;                ///< failing it fails the suite
  std::string applies;              ///< "all", "demand_only", ...
};

/// One metric of one scenario. Optional values are null or absent in the file
/// (no hardware value in the baseline; a tolerance that does not apply).
struct ValidationRow {
  std::string metric;
  std::optional<double> sim, hw, hw_min, hw_max;
  int hw_repeats = 0;
  std::optional<double> abs_error, rel_error;          ///< rel_error: |sim - hw| / max(|hw|, floor)
  std::optional<double> tolerance, tolerance_effective;  ///< effective: at least 3x the hw spread
  std::optional<bool> judged;  ///< false: the tolerance does not apply (e.g. exact metric, prefetching entry)
  std::optional<bool> gated;   ///< false: reported, never fails the suite; absent: gated
  std::optional<bool> passed;  ///< null: not checked
  /// Judged and out of tolerance (whether or not it is gated).
  bool over_tolerance() const { return passed == false && judged != false; }
  /// Out of tolerance on a gated metric: fails the suite.
  bool failed() const { return over_tolerance() && gated != false; }
};

struct ValidationEntry {
  std::string name, group, role, policy, prefetch;  ///< role: "fit" or "holdout"
  bool demand_only = false;
  double block_bytes = 0, capacity_fraction = 0, capacity_bytes = 0, footprint_bytes = 0, tokens = 0, accesses = 0;
  std::vector<ValidationRow> rows;
  bool failed() const;  ///< any row failed()
};

struct ValidationSummary {
  std::string metric, role;  ///< role: "all", "fit", "holdout"
  int n = 0;
  std::optional<double> mae_pct, pearson_r, max_rel_error;
  std::string pearson_on;  ///< "log10" or "linear"
  std::optional<int> under_10pct;
};

struct ValidationFailure {
  std::string entry, metric;
  std::optional<double> sim, hw, rel_error, tolerance_effective;
};

struct ValidationDocument {
  std::filesystem::path file;
  std::string suite_name, suite_file, hw_source, date_utc, tool_version;
  bool passed = false;
  /// suite, baseline (with its provenance: commit, device, driver, clocks,
  /// profile), hw_source, date_utc and tool_version flattened to
  /// ("baseline.provenance.device.name", "NVIDIA H200") pairs, in file order.
  std::vector<std::pair<std::string, std::string>> provenance;
  std::vector<ValidationMetric> metrics;
  std::vector<ValidationEntry> entries;
  std::vector<ValidationSummary> summary;
  std::vector<ValidationFailure> failures;
  std::vector<std::string> problems;  ///< "problems": what validate could not compare (stale or missing baseline rows)

  const ValidationMetric* find_metric(const std::string& name) const;  ///< nullptr if not listed
};

/// Reads `file`. Throws InputError naming the file (and the key) when it
/// cannot be read, is not JSON, has another "schema" than
/// flashsim-validation/1, or lacks a required key (metrics, entries, an
/// entry's name and rows, a row's metric) or has one of the wrong type.
ValidationDocument load_validation_document(const std::filesystem::path& file);

class JsonFields;
/// The same from an already parsed file.
ValidationDocument read_validation_document(const JsonFields& json);

}  // namespace flashsim::report
