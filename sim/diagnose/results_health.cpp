#include "sim/diagnose/results_health.h"

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>

#include "sim/core/errors.h"
#include "sim/diagnose/registered_policies.h"
#include "sim/results/run_result.h"
#include "sim/policy/i_eviction_policy.h"
#include "sim/run/scenario_runner.h"
#include "sim/scenario/scenario_document.h"
#include "traces/hdf5_io.h"

namespace flashsim::diagnose {
namespace {

using json = nlohmann::json;

std::filesystem::path summary_path(const std::filesystem::path& p) {
  std::error_code ec;
  return std::filesystem::is_directory(p, ec) ? p / "summary.json" : p;
}

const json& field(const json& run, const char* key, const std::string& where) {
  if (!run.is_object() || !run.contains(key)) throw InputError(where + ": lacks '" + key + "'");
  return run[key];
}

double number(const json& run, const char* key, const std::string& where) {
  const json& v = field(run, key, where);
  if (!v.is_number()) throw InputError(where + ": '" + key + "' is not a number");
  return v.get<double>();
}

std::string text(const json& run, const char* key, const std::string& where) {
  const json& v = field(run, key, where);
  if (!v.is_string()) throw InputError(where + ": '" + key + "' is not a string");
  return v.get<std::string>();
}

/// The value of component `component` / `name`, or -1.
double component(const json& run, const std::string& prefix, const char* name) {
  if (!run.contains("components") || !run["components"].is_array()) return -1;
  for (const json& c : run["components"]) {
    if (!c.is_object() || !c.contains("component") || !c["component"].is_string()) continue;
    if (c["component"].get<std::string>().rfind(prefix, 0) != 0 || c.value("name", "") != name) continue;
    if (c.contains("value") && c["value"].is_number()) return c["value"].get<double>();
  }
  return -1;
}

}  // namespace

ResultsHealth read_results_health(const std::filesystem::path& input, const HardwareProfile& hardware) {
  const std::filesystem::path file = summary_path(input);
  std::ifstream in(file);
  if (!in) throw InputError(file.string() + ": cannot read (a results folder of flashsim run or replay?)");
  json doc;
  try {
    doc = json::parse(in);
  } catch (const json::exception& e) {
    throw InputError(file.string() + ": not JSON (" + e.what() + ")");
  }
  if (!doc.is_object() || !doc.contains("runs")) {
    throw InputError(file.string() + ": lacks 'runs' (not a summary.json of flashsim run or replay)");
  }
  if (!doc["runs"].is_array()) throw InputError(file.string() + ": 'runs' is not an array");
  if (!doc.contains("results_schema_version") || doc["results_schema_version"] != kResultsSchemaVersion) {
    throw InputError(file.string() + ": results_schema_version " +
                     (doc.contains("results_schema_version") ? doc["results_schema_version"].dump() : "missing") +
                     ", this flashsim reads " + std::to_string(kResultsSchemaVersion));
  }
  const BytesPerSecond ceiling = hardware.execution.h2d_bandwidth > 0 ? hardware.execution.h2d_bandwidth
                                 : hardware.tiers.size() > 1         ? hardware.tiers[1].link_to_faster.bandwidth
                                                                     : 0;
  ResultsHealth results;
  results.summary = file;
  if (doc.contains("scenario_source") && doc["scenario_source"].is_string()) {
    results.scenario_source = doc["scenario_source"].get<std::string>();
  }
  std::vector<RunHealth>& out = results.runs;
  for (std::size_t i = 0; i < doc["runs"].size(); ++i) {
    const json& r = doc["runs"][i];
    const std::string where = file.string() + ": runs[" + std::to_string(i) + "]";
    RunHealth h;
    h.run = static_cast<std::size_t>(number(r, "run", where));
    h.point = r.contains("point") && r["point"].is_number_unsigned() ? r["point"].get<std::size_t>() : 0;
    h.policy = text(r, "policy", where);
    h.policy_label = r.contains("policy_label") && r["policy_label"].is_string() ? r["policy_label"].get<std::string>()
                                                                                 : h.policy;
    h.point_label = text(r, "point_label", where);
    h.engine = text(r, "engine", where);
    if (r.contains("components") && !r["components"].is_array()) throw InputError(where + ": 'components' is not an array");
    const double sim_ns = number(r, "simulated_ns", where), stall_ns = number(r, "stall_ns", where);
    if (sim_ns < 0 || stall_ns < 0 || stall_ns > sim_ns) {
      throw InputError(where + ": stall_ns " + std::to_string(stall_ns) + " and simulated_ns " + std::to_string(sim_ns) +
                       " are not times of one run");
    }
    h.simulated_ms = sim_ns / 1e6;
    h.stall_ms = stall_ns / 1e6;
    h.stall_share = sim_ns > 0 ? stall_ns / sim_ns : 0;
    const double l2_accesses = component(r, "l2", "accesses");
    if (l2_accesses > 0) {
      h.inputs.l2_hit_rate = component(r, "l2", "sector_hit_ratio");
      h.hit_rate_source = "l2 model (sector hit ratio)";
    } else {
      h.inputs.l2_hit_rate = number(r, "hit_ratio_by_byte", where);
      h.hit_rate_source = "fast tier (hit ratio by byte)";
    }
    if (!(*h.inputs.l2_hit_rate >= 0 && *h.inputs.l2_hit_rate <= 1)) {
      throw InputError(where + ": hit ratio " + std::to_string(*h.inputs.l2_hit_rate) + " outside [0, 1]");
    }
    // Time-based inputs need simulated time (the cache-only engine has none),
    // and per-step ones a step timeline, which a program run keeps in its capture.
    if (sim_ns == 0 || h.engine == "program") {
      h.note = sim_ns == 0 ? "no simulated time (engine " + h.engine + "): PCIe use, load time and stall not known"
                           : "a captured program (engine program): its per-step copy timeline is in the capture; "
                             "run `flashsim diagnose TRACE.h5` on it for PCIe use, load time and stall per step";
      out.push_back(std::move(h));
      continue;
    }
    const double tokens = number(r, "output_tokens", where);
    h.steps = tokens > 0 ? static_cast<std::uint64_t>(tokens) : 1;
    double busy_ns = component(r, "link.", "busy_ns");
    if (busy_ns < 0 && ceiling > 0) busy_ns = number(r, "bytes_fetched", where) / ceiling * 1e9;
    if (sim_ns > 0 && busy_ns >= 0) {
      h.inputs.pcie_utilisation = busy_ns / sim_ns;
      h.inputs.weight_load_ms = busy_ns / 1e6 / static_cast<double>(h.steps);
    }
    out.push_back(std::move(h));
  }
  if (out.empty()) throw InputError(file.string() + ": no runs");
  return results;
}

ResultsLevers::ResultsLevers(const ResultsHealth& results, unsigned jobs)
    : summary_(results.summary), h5_(results.summary.parent_path() / "results.h5"), jobs_(jobs) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(h5_, ec)) {
    throw InputError(h5_.string() + ": no such file; the levers re-run the resolved scenario it holds (--no-levers "
                                    "to skip them)");
  }
  {
    h5::QuietErrors quiet;  // libhdf5's own stack would print before our message
    auto file = h5::open_file_read(h5_.string());
    if (!h5::link_exists(file.get(), "scenario")) {
      throw InputError(h5_.string() +
                       ": lacks /scenario (the resolved scenarios); levers need a results folder of flashsim run");
    }
    auto ds = h5::open_dataset(file.get(), "scenario");
    texts_ = h5::read_strings(ds.get(), h5::length(ds.get(), h5_.string() + ": /scenario"));
  }
  const std::string& source = results.scenario_source;
  base_ = source.empty() || source.front() == '<' ? std::filesystem::current_path()
                                                  : std::filesystem::path(source).parent_path();
}

std::vector<ResultsLever> ResultsLevers::run_point(std::size_t point, const std::vector<std::string>& sets) const {
  std::vector<Override> overrides;
  for (const auto& s : sets) overrides.push_back(parse_override(s));
  const ScenarioDocument document =
      ScenarioDocument::from_text(texts_[point], h5_.string() + " point " + std::to_string(point), base_, overrides);
  RunnerOptions options;
  options.jobs = jobs_;
  std::vector<ResultsLever> out;
  for (const RunResult& r : run_scenario(document, options).runs) {
    ResultsLever l;
    l.name = r.policy;
    l.stall_ms = static_cast<double>(r.result.metrics.total.stall_ns) / 1e6;
    l.simulated_ms = static_cast<double>(r.result.metrics.simulated_ns) / 1e6;
    out.push_back(std::move(l));
  }
  return out;
}

std::vector<ResultsLever> ResultsLevers::simulate(const RunHealth& run) {
  if (run.point >= texts_.size()) {
    throw InputError(h5_.string() + ": /scenario has " + std::to_string(texts_.size()) + " point(s), run " +
                     std::to_string(run.run) + " is of point " + std::to_string(run.point));
  }
  if (!PolicyRegistry::instance().has(run.policy)) {
    throw InputError(summary_.string() + ": run " + std::to_string(run.run) + " names policy '" + run.policy +
                     "', which this flashsim does not have");
  }
  // Every registered policy at the run's capacity, the run's prefetchers kept: once a point.
  auto cached = policy_levers_.find(run.point);
  if (cached == policy_levers_.end()) {
    std::string list;
    const std::vector<std::string> plain = registered_policy_names();  // those that need no catalog
    for (const std::string& name : plain) list += (list.empty() ? "" : ", ") + ("{impl: " + name + "}");
    std::vector<ResultsLever> levers = run_point(run.point, {"policies=[" + list + "]"});
    // The model-aware ones, one by one: each runs where the trace's catalog
    // has what it needs (layers, experts) and is left out where it refuses.
    for (const auto* e : PolicyRegistry::instance().entries()) {
      if (std::find(plain.begin(), plain.end(), e->name) != plain.end()) continue;
      try {
        for (ResultsLever& l : run_point(run.point, {"policies=[{impl: " + e->name + "}]"})) levers.push_back(std::move(l));
      } catch (const InputError&) {
      }
    }
    for (ResultsLever& l : levers) {
      l.offline = is_offline_policy(l.name);
      l.name = "policy:" + l.name;
    }
    cached = policy_levers_.emplace(run.point, std::move(levers)).first;
  }
  std::vector<ResultsLever> out = cached->second;
  for (ResultsLever& l : run_point(run.point, {"prefetch=[{impl: lookahead}]", "policies=[{impl: " + run.policy + "}]"})) {
    l.name = "prefetch:lookahead";
    out.push_back(std::move(l));
  }
  for (ResultsLever& l : out) {
    l.change = run.simulated_ms > 0 ? (l.simulated_ms - run.simulated_ms) / run.simulated_ms : 0;
  }
  return out;
}

}  // namespace flashsim::diagnose
