// write_results (results.h5 + summary.json, atomically) and summary.json.
#include "sim/results/results_writer.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <system_error>

#include "sim/core/errors.h"
#include "sim/results/metric_schema.h"
#include "traces/atomic_file.h"

namespace flashsim {

namespace {

// One run: every metric of the schema (sim/results/metric_schema.h) under
// its name, in its order; `params` as an object of its resolved values.
nlohmann::ordered_json run_json(const RunResult& r) {
  nlohmann::ordered_json j;
  for (const RunMetricSpec& m : run_metric_schema()) {  // then `components`
    const std::string name(m.name);
    if (name == "params") {
      nlohmann::ordered_json params = nlohmann::ordered_json::object();
      for (const auto& [k, v] : r.policy_params) params[k] = v;
      j[name] = params;
      continue;
    }
    const RunMetricValue v = m.get(r);
    switch (v.type) {
      case MetricType::u64: j[name] = v.u64; break;
      case MetricType::i64: j[name] = v.i64; break;
      case MetricType::f64: j[name] = v.f64; break;
      case MetricType::text: j[name] = v.text; break;
    }
  }
  nlohmann::ordered_json components = nlohmann::ordered_json::array();
  for (const ComponentStat& s : r.result.components.rows) {
    components.push_back({{"component", s.component}, {"name", s.name}, {"unit", s.unit}, {"value", s.value}});
  }
  j["components"] = components;
  if (!r.result.components.texts.empty()) {  // absent otherwise: the simulator's summaries stay as they were
    nlohmann::ordered_json texts = nlohmann::ordered_json::array();
    for (const ComponentText& t : r.result.components.texts) {
      texts.push_back({{"component", t.component}, {"name", t.name}, {"text", t.text}});
    }
    j["component_texts"] = texts;
  }
  if (!r.result.components.series.empty()) {  // likewise
    nlohmann::ordered_json series = nlohmann::ordered_json::array();
    for (const ComponentSeries& c : r.result.components.series) {
      series.push_back({{"component", c.component}, {"name", c.name}, {"unit", c.unit}, {"values", c.values}});
    }
    j["component_series"] = series;
  }
  return j;
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
  // Text the writers did not make (labels, a trace's catalog) is never refused: bad UTF-8 becomes U+FFFD.
  return j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
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
  commit_results_pair(h5, json, paths);
  return paths;
}

void make_readable(const std::filesystem::path& path) {
  const mode_t mask = ::umask(0);
  ::umask(mask);
  std::error_code ignored;
  std::filesystem::permissions(path, static_cast<std::filesystem::perms>(0666 & ~mask), ignored);
}

void commit_results_pair(AtomicFile& h5, AtomicFile& json, const ResultsPaths& paths) {
  make_readable(h5.temp_path());
  make_readable(json.temp_path());
  h5.commit();
  // summary.json last: from here on results.h5 is new, and a failure leaves
  // the pair out of step.
  try {
    json.commit();
  } catch (const Error& e) {
    throw Error("'" + paths.h5.string() + "' is new but '" + paths.json.string() +
                "' is stale (from an earlier run, or missing): " + e.what());
  }
}

}  // namespace flashsim
