// A sweep's results folder as a store of finished points (docs/sweeps.md):
//
//   DIR/sweep.json          the sweep: scenario, input, every point's label,
//                           resolved scenario and file name, tool version
//   DIR/points/<hash>.h5    one finished point: a results.h5 of its runs alone
//   DIR/points/<hash>.json  the same point's summary, written last: a point
//                           is finished when its .json exists
//   DIR/results.h5, DIR/summary.json   merged from the point files, in point order
//
// <hash> is the FNV-1a 64 of the tool version and the point's resolved
// scenario: the same point of any sweep, run by the same flashsim, has the
// same name, so a rerun (or another shard, or a larger sweep) skips it.
// Every file is written to a temp file and renamed into place.
#pragma once
#include <cstddef>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/results/results_writer.h"
#include "sim/results/run_result.h"

namespace flashsim {

/// Version of sweep.json and of the points/*.json layout.
inline constexpr int kSweepStoreVersion = 1;

struct SweepPointEntry {
  std::string label;     ///< "cache.capacity=50%"; empty without a sweep
  std::string resolved;  ///< the point's resolved scenario, YAML
  std::string hash;      ///< point_hash(resolved, tool version): the point files' name
};

/// What DIR/sweep.json records.
struct SweepManifest {
  std::string tool_version;
  std::string scenario_name;
  std::string scenario_source;
  std::string input_text;  ///< the scenario as given, overrides applied
  std::vector<SweepPointEntry> points;

  /// `results` without runs: name, source, input, labels, resolved texts, version.
  static SweepManifest of(const ScenarioResults& header);
  /// The reverse (no runs, no host).
  ScenarioResults header() const;
};

/// 16 hex digits: FNV-1a 64 of `tool_version`, a newline and `resolved`.
std::string point_hash(std::string_view resolved, std::string_view tool_version);

/// DIR/sweep.json, DIR/points, DIR/points/<hash>.{h5,json}.
std::filesystem::path manifest_path(const std::filesystem::path& dir);
std::filesystem::path points_dir(const std::filesystem::path& dir);
std::filesystem::path point_h5_path(const std::filesystem::path& dir, const SweepPointEntry& point);
std::filesystem::path point_json_path(const std::filesystem::path& dir, const SweepPointEntry& point);

/// sweep.json's text (pretty JSON, fixed key order).
std::string manifest_json_text(const SweepManifest& manifest);
/// Writes DIR/sweep.json atomically (DIR must exist). Throws Error.
void write_manifest(const std::filesystem::path& dir, const SweepManifest& manifest);
/// Reads DIR/sweep.json; nullopt when it does not exist. Throws InputError
/// naming the file when it is not a sweep.json this flashsim reads.
std::optional<SweepManifest> read_manifest(const std::filesystem::path& dir);

/// The resolved scenario of each point of the results already in `dir`
/// (sweep.json, else the /scenario of a results.h5 written before sweep.json
/// existed), with the scenario as given in `input` (empty for the latter);
/// nullopt when `dir` holds neither. Throws InputError naming an unreadable file.
struct PreviousResults {
  std::vector<std::string> resolved;
  std::string input;
  std::string tool_version;  ///< empty when unknown
  std::filesystem::path from;
};
std::optional<PreviousResults> previous_results(const std::filesystem::path& dir);

/// The dotted keys whose values differ between two YAML documents, as
/// "cache.capacity: 10% -> 50%" ("(absent)" for a missing key), at most
/// `limit` of them, in key order. Unparsable text: one line saying so.
std::vector<std::string> differing_keys(const std::string& old_yaml, const std::string& new_yaml,
                                        std::size_t limit = 8);

/// Why `previous` and `manifest` are different scenarios, as "differs in:
/// KEYS" (input keys first, then those of the first differing point); empty
/// when every resolved point is the same (tool version aside).
std::string scenario_difference(const PreviousResults& previous, const SweepManifest& manifest);

/// True when point `point`'s files exist in `dir` and its .json records this
/// resolved scenario and tool version (a hash collision or a torn copy is
/// not finished). Never throws.
bool point_finished(const std::filesystem::path& dir, const SweepPointEntry& point, std::string_view tool_version);

/// Writes one finished point: `one_point` holds that point's runs alone
/// (numbered from 0, point_index 0, one resolved text and label). The .h5
/// first, then the .json; each atomically. Throws Error naming the path.
void write_point(const std::filesystem::path& dir, const SweepPointEntry& point, const ScenarioResults& one_point);

/// The sweep points shard `shard` of `shards` runs: p with p mod shards ==
/// shard (round robin, so points of growing cost spread evenly), ascending.
std::vector<std::size_t> shard_points(std::size_t points, std::size_t shard, std::size_t shards);

/// "K/N" -> {K, N}, 0 <= K < N. Throws InputError naming `option`.
std::pair<std::size_t, std::size_t> parse_shard(const std::string& option, const std::string& text);

/// The points of `manifest` without finished files in `dir`.
std::vector<std::size_t> missing_points(const std::filesystem::path& dir, const SweepManifest& manifest);

/// Merges every point file of `manifest` into DIR/results.h5 and
/// DIR/summary.json (the layout of write_results, runs renumbered in point
/// order; /host and summary.json's host: `host` and the points' wall times),
/// atomically. Throws InputError naming the missing points (and how to run
/// them) when some are not finished; Error on a write failure.
/// `progress`, when set, is called once per point as each of the two passes
/// finishes it: "reading point summaries", then "merging point results"
/// (a 900k-point merge takes long enough to need a progress line).
using MergeProgress = std::function<void(const char* pass, std::size_t done, std::size_t total)>;
ResultsPaths merge_points(const std::filesystem::path& dir, const SweepManifest& manifest, const HostInfo& host,
                          const MergeProgress& progress = {});

/// Writes `path` as results.h5 from one results.h5 per sweep point, in order
/// (each written by write_results_h5 with its runs numbered from 0):
/// /summary rows and /timeseries groups renumbered, `header`'s /scenario,
/// /host from `header.host` and the points' per-run wall times. The
/// simulated datasets equal those write_results_h5 writes for all runs at
/// once. Throws Error naming the file. (Implemented in results_h5.cpp.)
/// `on_point`, when set, is called after each point file is read.
void merge_results_h5(const std::filesystem::path& path, const ScenarioResults& header,
                      const std::vector<std::filesystem::path>& point_files,
                      const std::function<void()>& on_point = {});

/// The /scenario dataset (resolved scenarios) of a results.h5. Throws Error.
std::vector<std::string> read_resolved_scenarios_h5(const std::filesystem::path& path);

}  // namespace flashsim
