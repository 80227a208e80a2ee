// A validation suite (validate/*.yaml): scenarios that each resolve to one
// simulator run and one GPU replay, the metrics compared between the two and
// their tolerances, and where the recorded hardware baselines live. Schema
// in docs/validation.md; `flashsim validate` (sim/cli/validate_command.cpp)
// runs it.
#pragma once
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "sim/scenario/scenario_document.h"
#include "sim/validate/hw_backend.h"

namespace flashsim {

/// How a metric's simulated value is judged against the hardware's.
enum class ToleranceKind {
  relative,  ///< |sim - hw| / max(|hw|, floor) <= tolerance
  absolute,  ///< |sim - hw| <= tolerance (ratios: hit ratio, accuracy)
  exact,     ///< sim == hw (integers, or ratios of integers computed the same way)
};

/// Which entries a metric is judged on.
enum class MetricScope {
  all,
  demand_only,  ///< entries without prefetchers: decisions are the same on both sides
  prefetch,     ///< entries with at least one prefetcher
};

struct MetricSpec {
  std::string name;          ///< one of validation_metric_names()
  ToleranceKind kind = ToleranceKind::relative;
  double tolerance = 0.0;    ///< fraction for relative ("10%" -> 0.1), value for absolute
  /// Relative error is taken against max(|hw|, floor), in the metric's unit,
  /// so near-zero values (a stall of a few µs) do not blow it up.
  double floor = 0.0;
  bool gate = true;          ///< false: reported, never fails the suite
  MetricScope scope = MetricScope::all;
};

/// True when `spec` judges an entry that is (or is not) demand-only.
bool metric_applies(const MetricSpec& spec, bool demand_only);

/// One scenario of the suite: a scenario file with overrides that must
/// resolve to exactly one run (one sweep point, one policy).
struct SuiteEntry {
  std::string name;               ///< unique; [A-Za-z0-9._-]
  std::string group;              ///< entries of one workload (MRC plots); default: the name
  std::filesystem::path scenario; ///< absolute path
  std::vector<Override> overrides;  ///< the suite's `defaults`, then the entry's `set`, then the profile
  HwReplayKnobs replay;           ///< how the hardware runs it (the suite's `replay:`, then the entry's)
  bool fit = false;               ///< role: fit (used by `calibrate --fit`) or holdout
  SourcePos pos;                  ///< of the entry in the suite file

  /// The entry's scenario document with its overrides (and `extra` after them).
  ScenarioDocument document(const std::vector<Override>& extra = {}) const;
};

struct ValidationSuite {
  std::string name;
  std::string description;
  std::filesystem::path file;       ///< the suite file as given
  std::filesystem::path profile;    ///< absolute path of `profile:` (the simulator's hardware); empty = the scenarios'
  std::filesystem::path baseline;   ///< absolute path of `baseline:` (recorded hardware results)
  unsigned repeats = 5;             ///< hardware repeats per entry (>= 5 when recording)
  /// Replays run and discarded before the repeats of each entry (the first
  /// replay of a process pays page faults and lazy CUDA set-up).
  unsigned warmup = 1;
  /// Pearson r is computed on log10 of the values when max/min over the
  /// suite exceeds this (and every value is > 0).
  double log_span = 10.0;
  std::vector<MetricSpec> metrics;
  std::vector<SuiteEntry> entries;

  const SuiteEntry* find(std::string_view entry_name) const;
};

/// Replaces the suite's `profile:` (and every entry's hardware.profile
/// override) by `profile`. Throws InputError when the file does not exist.
void set_suite_profile(ValidationSuite& suite, const std::filesystem::path& profile);

/// The metric names `flashsim validate` computes (entry_metrics.h).
const std::vector<std::string>& validation_metric_names();

/// Reads a suite file. Relative paths (scenario, profile, baseline) resolve
/// against the suite's folder. Throws InputError naming FILE:LINE:COLUMN and
/// the key for: unknown keys, a metric not in validation_metric_names(),
/// a bad tolerance or floor, repeats < 1, duplicate or malformed entry
/// names, a missing scenario file, an unknown role or replay option.
ValidationSuite load_validation_suite(const std::filesystem::path& file);

std::string to_string(ToleranceKind kind);
std::string to_string(MetricScope scope);

}  // namespace flashsim
