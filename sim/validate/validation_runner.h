// Runs a suite's entries: the simulator side (one run per entry), the
// hardware side (repeats of the GPU replay through the registered
// IHwBackend, summarised into a BaselineEntry), and their comparison.
#pragma once
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "sim/validate/baseline.h"
#include "sim/validate/comparison.h"
#include "sim/validate/validation_suite.h"

namespace flashsim {

/// One entry on the simulator.
struct SimulatedEntry {
  RunResult run;
  std::uint64_t tokens = 0;
  std::uint64_t distinct_blocks = 0;
  bool demand_only = true;
  std::string prefetch;              ///< prefetcher names, '+'-joined
};

/// Runs `entry` on the simulator, `extra` overrides after the entry's own
/// (calibrate --fit sets hardware parameters this way). Throws InputError
/// when the entry does not resolve to exactly one run (one sweep point,
/// one policy), naming the entry and the suite file.
SimulatedEntry simulate_entry(const ValidationSuite& suite, const SuiteEntry& entry, const std::vector<Override>& extra = {});

/// simulate_entry for every entry, `jobs` at a time (0: one per core), in
/// suite order. `progress` (may be null) gets one line per finished entry.
std::vector<SimulatedEntry> simulate_suite(const ValidationSuite& suite, const std::vector<const SuiteEntry*>& entries,
                                           unsigned jobs, std::ostream* progress, const std::vector<Override>& extra = {});

/// Replays `entry` suite.warmup times (discarded), then `repeats` times on
/// the GPU; every metric's median and
/// spread, the series of the median repeat. `tokens` comes from the
/// simulator side (same trace). Fills `device` with the identity read
/// before the first repeat. Throws what the backend throws.
BaselineEntry record_entry(const ValidationSuite& suite, const SuiteEntry& entry, const SimulatedEntry& simulated,
                           const IHwBackend& backend, unsigned repeats, DeviceIdentity& device);

/// The comparison of one entry; `hw` may be null (no hardware figures).
EntryComparison compare_entry(const ValidationSuite& suite, const SuiteEntry& entry, const SimulatedEntry& simulated,
                              const BaselineEntry* hw);

/// Everything `flashsim validate` reports.
struct ValidationReport {
  const ValidationSuite* suite = nullptr;
  std::string baseline_file;
  std::optional<BaselineProvenance> provenance;  ///< of the hw figures (recorded or live)
  std::string hw_source;                         ///< "recorded" | "live"
  std::string profile_name;                      ///< the simulator's hardware profile
  std::string profile_fingerprint;
  std::vector<EntryComparison> entries;
  std::vector<MetricSummary> summary;
  std::vector<std::string> problems;             ///< entries without hw figures, stale baselines
  bool passed() const;
};

/// Where the hardware figures come from.
enum class HwSource {
  automatic,  ///< live when a backend is registered and a GPU is visible, else recorded
  recorded,   ///< the suite's baseline file
  live,       ///< replay now (InputError without a GPU)
  none,       ///< simulator only: the table without hardware columns, never fails
};

struct ValidationOptions {
  HwSource hw = HwSource::automatic;
  bool record = false;                    ///< live, then write the baseline (>= 5 repeats, commit required)
  std::string commit;                     ///< 40 hex digits, for the recorded provenance
  unsigned repeats = 0;                   ///< 0: the suite's
  std::filesystem::path baseline;         ///< empty: the suite's `baseline:`
  unsigned jobs = 0;                      ///< simulator runs in parallel (0: one per core)
  std::vector<std::string> only;          ///< entry names (empty: all); InputError for an unknown one
  std::vector<Override> extra;            ///< applied after every entry's overrides (simulator side only)
};

/// The whole of `flashsim validate`: simulates the entries, takes the
/// hardware figures (live or recorded), compares and summarises; with
/// `record`, writes the baseline atomically (with provenance) before
/// returning. A recorded entry whose scenario changed since recording
/// (fingerprint) or that is missing is listed in `problems`. Throws
/// InputError for bad options or a refused baseline.
ValidationReport run_validation(const ValidationSuite& suite, const ValidationOptions& options, std::ostream* progress);

}  // namespace flashsim
