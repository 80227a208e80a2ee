// Recorded hardware results of a validation suite (validate/baselines/...):
// per entry, every metric's median over the repeats with its spread and the
// repeats themselves, the series of the median repeat, and the provenance
// that makes the numbers defensible — the commit that produced them, the
// device (name, UUID, driver, clocks as the replay read them) and the
// calibrated hardware profile in force. A baseline without complete
// provenance is refused. One JSON file (reviewable diffs).
#pragma once
#include <cstdint>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/validate/entry_metrics.h"
#include "sim/validate/hw_backend.h"
#include "sim/validate/validation_suite.h"

namespace flashsim {

/// A metric over the repeats: median (the reported figure), min, max, and
/// every repeat's value in run order.
struct MeasuredValue {
  double median = 0.0;
  double min = 0.0;
  double max = 0.0;
  std::vector<double> values;
  /// (max - min) / |median|; 0 when the median is 0.
  double relative_spread() const;
};

/// Median (mean of the two middle values for an even count), min and max.
/// Throws Error on an empty list.
MeasuredValue summarize_repeats(std::vector<double> values);

struct BaselineEntry {
  std::string name;
  std::string scenario_fingerprint;  ///< suite_entry_fingerprint at recording time
  std::string inputs_fingerprint;    ///< entry_inputs_fingerprint at recording time (empty in older baselines: not checked)
  HwReplayKnobs replay;
  std::uint64_t tokens = 0;
  std::uint64_t accesses = 0;
  ByteCount footprint_bytes = 0;
  ByteCount capacity_bytes = 0;
  std::map<std::string, MeasuredValue> metrics;
  RunSeries series;                  ///< of the repeat whose time_per_token_ns is the median
};

struct BaselineProvenance {
  std::string commit;                ///< 40 hex digits of the flashsim commit that recorded it
  std::string tool_version;
  std::string date_utc;
  std::string host;
  DeviceIdentity device;
  std::string profile_name;          ///< the calibrated hardware profile in force
  std::string profile_file;
  std::string profile_fingerprint;   ///< content_fingerprint of profile_text
  std::string profile_text;          ///< the profile file, verbatim
  unsigned repeats = 0;
};

struct Baseline {
  std::string suite;                 ///< the suite's name
  BaselineProvenance provenance;
  std::vector<BaselineEntry> entries;
  const BaselineEntry* find(std::string_view name) const;
};

/// The JSON forms shared by baselines and validation.json (field names as
/// the structs'; series: latency_q, latency_ns, window_ns, hit_ratio).
nlohmann::ordered_json to_json(const DeviceIdentity& device);
nlohmann::ordered_json to_json(const RunSeries& series);

/// "fnv1a64:" + 16 hex digits of the FNV-1a 64-bit hash of `text` (an
/// identity check for reviewable inputs, not a security digest).
std::string content_fingerprint(std::string_view text);

/// What identifies an entry's input: its scenario file's bytes and its
/// overrides (the suite's profile override excluded, so a refitted profile
/// does not invalidate the recording).
std::string suite_entry_fingerprint(const ValidationSuite& suite, const SuiteEntry& entry);

/// What identifies the files an entry's scenario reads besides itself: the
/// contents of generator parameters that name files (model config.json,
/// routing and transition tables), a builtin trace's name, a trace file's
/// name and size (not its bytes: traces are large). Paths are not part of it,
/// so it is the same on every machine.
std::string entry_inputs_fingerprint(const SuiteEntry& entry);

/// Throws InputError naming `where` and the first missing or malformed
/// provenance field (commit not 40 hex digits, device name empty, UUID not
/// GPU-8-4-4-4-12 hex, driver version empty, zero clocks, date not
/// YYYY-MM-DDTHH:MM:SSZ, empty profile name or text, a profile text whose
/// fingerprint differs, repeats < 5).
void check_provenance(const BaselineProvenance& provenance, const std::string& where);

/// Reads a baseline file; refuses (InputError naming the file and field)
/// a wrong schema, incomplete provenance, or an entry without metrics.
Baseline read_baseline(const std::filesystem::path& file);

/// Writes `baseline` atomically after check_provenance. Throws InputError /
/// Error naming the file.
void write_baseline(const std::filesystem::path& file, const Baseline& baseline);

}  // namespace flashsim
