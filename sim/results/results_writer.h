// Results files of one `flashsim run`: results.h5 and summary.json in the
// scenario's output folder, both written completely to temporary files
// beside their targets, then renamed into place, summary.json last
// (DESIGN.md, principle 5): on an error while writing nothing partial
// remains and existing files are left untouched. The two renames cannot be
// one atomic step; if the second fails, results.h5 is new and summary.json
// is stale, and the error says so.
//
// results.h5 layout (schema kResultsSchemaVersion):
//   /                 attributes: results_schema_version, tool_version,
//                     scenario (name), scenario_source, seed (of run 0),
//                     decision_clock and engine ("mixed" if runs differ)
//   /summary          compound dataset, one row per policy × sweep point
//                     (fields: see summary_fields() in results_h5.cpp and
//                     docs/scenarios.md): policy, params, capacity, counters,
//                     hit ratio by access and by byte, bytes fetched (H2D),
//                     evictions, stall, p50/p99/max latency, simulated time, events;
//                     prefetches issued/used timely/used late/unused, accuracy,
//                     coverage, timeliness; KV write allocations, bytes written
//                     back; serving: requests, output tokens, tokens/s, TTFT
//                     p50/p90/p99/mean, TPOT mean/p50/p99, end-to-end p50/p90/p99;
//                     peak occupancy by kind; the KV out-of-memory point (oom_*)
//   /timeseries/run_NNN/  per-window datasets of run NNN: start_ns, accesses,
//                     hits, delayed_hits, misses, bytes_accessed, bytes_hit,
//                     bytes_fetched, stall_ns, link_busy_ns, occupancy_bytes,
//                     hit_ratio_by_access, hit_ratio_by_byte, link_utilisation;
//                     attributes policy, point, window_ns
//   /timeseries/run_NNN/occupancy/  time_ns, weights_bytes, kv_bytes, other_bytes
//                     (every serving.occupancy_window, then the end; attribute sample_ns)
//   /timeseries/run_NNN/requests/   one row per serving request: request_id,
//                     arrival_ns, admitted_ns, first_token_ns, end_ns,
//                     output_tokens, input_tokens, accesses, ttft_ns, tpot_ns, e2e_ns
//                     (absent when the trace has no request ids)
//   /scenario         1-D string dataset: the resolved scenario (YAML) of each
//                     sweep point; attribute `input`: the scenario as given
//   /host             hostname, date_utc, jobs, total_wall_seconds (attributes);
//                     wall_seconds and accesses_per_second per run (datasets).
// Everything outside /host is a function of the inputs alone; HDF5 object
// timestamps are off, so those datasets are byte-identical across runs.
#pragma once
#include <filesystem>
#include <functional>
#include <string_view>

#include "sim/results/run_result.h"

namespace flashsim {

struct ResultsWriteOptions {
  /// Test hook: called after each stage of writing ("summary", "timeseries",
  /// "scenario", "host", "h5-closed", "json"); throwing from it simulates a failure.
  std::function<void(std::string_view stage)> after_stage;
};

class AtomicFile;  // traces/atomic_file.h

struct ResultsPaths {
  std::filesystem::path h5;
  std::filesystem::path json;
};

/// Writes `dir`/results.h5 and `dir`/summary.json (creating `dir`).
/// Throws Error naming the path on any failure, after removing its temp files;
/// if only summary.json could not be renamed into place, the message names
/// both paths and says that results.h5 is new and summary.json stale.
ResultsPaths write_results(const std::filesystem::path& dir, const ScenarioResults& results,
                           const ResultsWriteOptions& options = {});

/// Gives a temp file made by mkstemp (0600) an ordinary file's mode: 0666
/// less the umask. Best effort (a failure leaves the file as it was).
void make_readable(const std::filesystem::path& path);

/// Renames a results pair into place, both made readable first: results.h5,
/// then summary.json last (no POSIX call renames two files at once). Throws
/// Error naming both paths when only results.h5 could be renamed (it is new,
/// summary.json stale). `h5` and `json` are the AtomicFiles of paths.h5 and
/// paths.json (traces/atomic_file.h).
void commit_results_pair(AtomicFile& h5, AtomicFile& json, const ResultsPaths& paths);

/// Writes results.h5 content into `path` (a fresh file, truncated). Used by
/// write_results on its temp file. Throws Error.
void write_results_h5(const std::filesystem::path& path, const ScenarioResults& results,
                      const ResultsWriteOptions& options = {});

/// The summary.json document as text (pretty-printed, keys in a fixed order).
std::string summary_json_text(const ScenarioResults& results);

}  // namespace flashsim
