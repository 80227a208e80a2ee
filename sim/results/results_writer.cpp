// write_results (results.h5 + summary.json, atomically) and summary.json.
#include "sim/results/results_writer.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <system_error>

#include "sim/core/errors.h"
#include "traces/atomic_file.h"

namespace flashsim {

namespace {

nlohmann::ordered_json run_json(const RunResult& r) {
  const AccessCounters& c = r.result.metrics.total;
  const LatencyHistogram& lat = r.result.metrics.latency;
  nlohmann::ordered_json j;
  j["run"] = r.index;
  j["point"] = r.point_index;
  j["point_label"] = r.point_label;
  j["policy_index"] = r.policy_index;
  j["policy"] = r.policy;
  j["policy_label"] = r.policy_label;
  nlohmann::ordered_json params = nlohmann::ordered_json::object();
  for (const auto& [k, v] : r.policy_params) params[k] = v;
  j["params"] = params;
  j["engine"] = r.engine;
  j["decision_clock"] = r.decision_clock;
  j["seed"] = r.seed;
  j["capacity"] = r.capacity_text;
  j["capacity_bytes"] = r.capacity_bytes;
  j["footprint_bytes"] = r.footprint_bytes;
  j["accesses"] = c.accesses;
  j["hits"] = c.hits;
  j["delayed_hits"] = c.delayed_hits;
  j["misses"] = c.misses;
  j["bypasses"] = c.bypasses;
  j["hit_ratio_by_access"] = c.hit_ratio_by_access();
  j["hit_ratio_by_byte"] = c.hit_ratio_by_byte();
  j["bytes_accessed"] = c.bytes_accessed;
  j["bytes_hit"] = c.bytes_hit;
  j["bytes_fetched"] = c.bytes_fetched;
  j["bytes_prefetched"] = c.bytes_prefetched;
  j["evictions"] = c.evictions;
  j["bytes_evicted"] = c.bytes_evicted;
  j["stall_ns"] = c.stall_ns;
  j["latency_ns"] = {{"p50", lat.quantile_ns(0.50)}, {"p99", lat.quantile_ns(0.99)}, {"max", lat.max_ns()}};
  j["simulated_ns"] = r.result.metrics.simulated_ns;
  j["events"] = r.result.events_processed;
  j["pinned_bytes"] = r.result.pinned_bytes;
  j["slot_reserved_peak_bytes"] = r.result.slot_reserved_peak_bytes;
  j["fragmentation_evictions"] = r.result.fragmentation_evictions;
  j["windows"] = r.result.metrics.windows.size();
  return j;
}

// mkstemp creates 0600 files; results are ordinary files (0666 less umask).
void make_readable(const std::filesystem::path& path) {
  const mode_t mask = ::umask(0);
  ::umask(mask);
  std::error_code ignored;
  std::filesystem::permissions(path, static_cast<std::filesystem::perms>(0666 & ~mask), ignored);
}

void write_text(const std::filesystem::path& path, const std::string& text) {
  errno = 0;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();  // a full disk may only show when the last buffer is written
  if (!out) {
    const int error = errno;
    throw Error("cannot write '" + path.string() + "'" + (error != 0 ? std::string(": ") + std::strerror(error) : ""));
  }
}

}  // namespace

std::string summary_json_text(const ScenarioResults& results) {
  nlohmann::ordered_json j;
  j["results_schema_version"] = kResultsSchemaVersion;
  j["tool_version"] = results.tool_version;
  j["scenario"] = results.scenario_name;
  j["scenario_source"] = results.scenario_source;
  j["seed"] = results.runs.empty() ? 0 : results.runs.front().seed;
  j["decision_clock"] = results.common_decision_clock();
  j["engine"] = results.common_engine();
  j["points"] = results.point_labels;
  nlohmann::ordered_json runs = nlohmann::ordered_json::array();
  for (const auto& r : results.runs) runs.push_back(run_json(r));
  j["runs"] = runs;
  nlohmann::ordered_json host;
  host["hostname"] = results.host.hostname;
  host["date_utc"] = results.host.date_utc;
  host["jobs"] = results.host.jobs;
  host["total_wall_seconds"] = results.host.total_wall_seconds;
  nlohmann::ordered_json per_run = nlohmann::ordered_json::array();
  for (const auto& r : results.runs) {
    per_run.push_back({{"run", r.index}, {"wall_seconds", r.wall_seconds}, {"accesses_per_second", r.accesses_per_second()}});
  }
  host["runs"] = per_run;
  j["host"] = host;
  return j.dump(2) + "\n";
}

ResultsPaths write_results(const std::filesystem::path& dir, const ScenarioResults& results,
                           const ResultsWriteOptions& options) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw Error("cannot create results folder '" + dir.string() + "': " + ec.message());
  ResultsPaths paths{dir / "results.h5", dir / "summary.json"};
  AtomicFile h5(paths.h5);
  AtomicFile json(paths.json);
  // Both temp files complete (and closed) before either rename.
  write_results_h5(h5.temp_path(), results, options);
  write_text(json.temp_path(), summary_json_text(results));
  if (options.after_stage) options.after_stage("json");
  make_readable(h5.temp_path());
  make_readable(json.temp_path());
  h5.commit();
  // summary.json last: from here on results.h5 is new, and a failure leaves
  // the pair out of step (no POSIX call renames two files at once).
  try {
    json.commit();
  } catch (const Error& e) {
    throw Error("'" + paths.h5.string() + "' is new but '" + paths.json.string() +
                "' is stale (from an earlier run, or missing): " + e.what());
  }
  return paths;
}

}  // namespace flashsim
