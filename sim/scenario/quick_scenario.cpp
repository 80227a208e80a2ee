#include "sim/scenario/quick_scenario.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>

#include "sim/core/errors.h"
#include "sim/core/utf8.h"
#include "sim/engine/program/program_engine.h"

namespace flashsim {

std::vector<std::string> split_list(const std::vector<std::string>& values, const std::string& option) {
  std::vector<std::string> out;
  for (const std::string& v : values) {
    std::size_t from = 0;
    for (;;) {
      const std::size_t comma = v.find(',', from);
      std::string item = v.substr(from, comma == std::string::npos ? std::string::npos : comma - from);
      const std::size_t b = item.find_first_not_of(" \t"), e = item.find_last_not_of(" \t");
      item = b == std::string::npos ? "" : item.substr(b, e - b + 1);
      if (item.empty()) throw InputError(option + " '" + v + "': an empty item in the comma list");
      out.push_back(item);
      if (comma == std::string::npos) break;
      from = comma + 1;
    }
  }
  return out;
}

std::string quick_scenario_yaml(const QuickScenario& q) {
  const std::string given = q.trace_option.empty() ? "the trace" : q.trace_option;
  if (q.trace.empty()) throw InputError(given + ": an empty path");
  if (q.policies.empty()) throw InputError("--trace needs --policies (e.g. --policies lru,arc,s3fifo)");
  const bool no_tier = std::all_of(q.policies.begin(), q.policies.end(),
                                   [](const std::string& p) { return p == kAsRecordedPolicy; });
  if (q.capacities.empty() && !no_tier) {
    throw InputError("--trace needs --capacity (e.g. --capacity 10% or --capacity 1%,10%,50%)");
  }
  if (q.engine != "cache_only" && q.engine != "event" && q.engine != "program") {
    throw InputError("--engine '" + q.engine + "': expected cache_only, event or program");
  }
  // The path goes into the scenario, which results store as UTF-8 text.
  if (std::size_t bad = 0; !valid_utf8(q.trace, &bad)) {
    throw InputError(given + " '" + to_valid_utf8(q.trace) + "': the file name is not valid UTF-8 (byte " +
                     std::to_string(bad) + "); results store it as UTF-8 text: rename the file, or link it under a "
                     "UTF-8 name (ln -s)");
  }
  const std::filesystem::path trace = std::filesystem::absolute(q.trace);
  std::string stem = trace.filename().string();
  for (const char* ext : {".gz", ".zst", ".json", ".h5", ".hdf5", ".csv", ".bin", ".oracleGeneral"}) {
    const std::string e(ext);
    if (stem.size() > e.size() && stem.compare(stem.size() - e.size(), e.size(), e) == 0) stem.resize(stem.size() - e.size());
  }
  YAML::Emitter y;
  y << YAML::BeginMap;
  y << YAML::Key << "name" << YAML::Value << stem;
  y << YAML::Key << "description" << YAML::Value
    << (q.description.empty() ? "flashsim run --trace " + q.trace : q.description);
  y << YAML::Key << "engine" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "impl" << YAML::Value
    << q.engine;
  for (const auto& [key, value] : q.engine_params) {
    y << YAML::Key << key << YAML::Value << YAML::DoubleQuoted << value;
  }
  y << YAML::EndMap;
  if (q.engine != "cache_only") {  // the cache-only path has no hardware (engine_section.h refuses the key)
    y << YAML::Key << "hardware" << YAML::Value << YAML::BeginMap << YAML::Key << "profile" << YAML::Value << q.hardware
      << YAML::EndMap;
  }
  y << YAML::Key << "workload" << YAML::Value << YAML::BeginMap << YAML::Key << "trace" << YAML::Value << trace.string();
  if (!q.format.empty()) y << YAML::Key << "format" << YAML::Value << q.format;
  y << YAML::EndMap;
  if (!q.capacities.empty()) {
    y << YAML::Key << "cache" << YAML::Value << YAML::BeginMap << YAML::Key << "capacity" << YAML::Value
      << q.capacities.front() << YAML::EndMap;
  }
  y << YAML::Key << "policies" << YAML::Value << YAML::Flow << q.policies;
  if (q.capacities.size() > 1) {
    y << YAML::Key << "sweep" << YAML::Value << YAML::BeginMap << YAML::Key << "cache.capacity" << YAML::Value
      << YAML::Flow << q.capacities << YAML::EndMap;
  }
  y << YAML::EndMap;
  return std::string(y.c_str()) + "\n";
}

}  // namespace flashsim
