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
  const RunMetrics& m = r.result.metrics;
  j["prefetch"] = {{"issued", c.prefetches},
                   {"bytes", c.bytes_prefetched},
                   {"used_timely", c.prefetch_used_timely},
                   {"used_late", c.prefetch_used_late},
                   {"unused", c.prefetch_unused},
                   {"accuracy", c.prefetch_accuracy()},
                   {"coverage", c.prefetch_coverage()},
                   {"timeliness", c.prefetch_timeliness()}};
  j["write_allocations"] = c.write_allocations;
  j["bytes_written_back"] = c.bytes_written_back;
  const ServingMetrics& sv = m.serving;
  nlohmann::ordered_json serving;
  serving["requests"] = sv.requests.size();
  serving["output_tokens"] = sv.output_tokens;
  serving["tokens_per_second"] = sv.tokens_per_second;
  serving["ttft_ns"] = {{"mean", sv.ttft_mean_ns}, {"p50", sv.ttft_p50_ns}, {"p90", sv.ttft_p90_ns}, {"p99", sv.ttft_p99_ns}};
  serving["tpot_ns"] = {{"mean", sv.tpot_mean_ns}, {"p50", sv.tpot_p50_ns}, {"p99", sv.tpot_p99_ns}};
  serving["e2e_ns"] = {{"p50", sv.e2e_p50_ns}, {"p90", sv.e2e_p90_ns}, {"p99", sv.e2e_p99_ns}};
  j["serving"] = serving;
  const OccupancyMetrics& o = m.occupancy;
  j["occupancy_peak_bytes"] = {{"weights", o.peak_weights_bytes},
                               {"kv", o.peak_kv_bytes},
                               {"other", o.peak_other_bytes},
                               {"total", o.peak.total_bytes()},
                               {"total_at_ns", o.peak.time_ns}};
  const OutOfMemoryPoint& oom = m.out_of_memory;
  if (oom.reached) {
    j["out_of_memory"] = {{"time_ns", oom.time_ns},     {"request_id", oom.request_id},
                          {"token_index", oom.token_index}, {"block_id", oom.block_id},
                          {"kv_bytes", oom.kv_bytes},   {"reserved_bytes", oom.reserved_bytes},
                          {"pinned_bytes", oom.pinned_bytes}};
  } else {
    j["out_of_memory"] = nullptr;
  }
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
