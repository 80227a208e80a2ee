#include "sim/results/sweep_store.h"

#include <sys/stat.h>
#include <yaml-cpp/yaml.h>

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <system_error>

#include "sim/core/errors.h"
#include "traces/atomic_file.h"

namespace flashsim {

namespace {

using Json = nlohmann::ordered_json;

std::string dump(const Json& j) { return j.dump(2, ' ', false, Json::error_handler_t::replace) + "\n"; }

// The whole file, or nullopt when it cannot be read.
std::optional<std::string> slurp(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return std::nullopt;
  return text;
}

// Every scalar of a YAML tree under its dotted path (sequence items by index).
void flatten(const YAML::Node& node, const std::string& path, std::map<std::string, std::string>& out) {
  if (node.IsMap()) {
    for (const auto& kv : node) flatten(kv.second, path.empty() ? kv.first.Scalar() : path + "." + kv.first.Scalar(), out);
    if (node.size() == 0) out[path] = "{}";
  } else if (node.IsSequence()) {
    for (std::size_t i = 0; i < node.size(); ++i) flatten(node[i], path + "." + std::to_string(i), out);
    if (node.size() == 0) out[path] = "[]";
  } else {
    out[path] = node.IsNull() ? "null" : node.Scalar();
  }
}

}  // namespace

SweepManifest SweepManifest::of(const ScenarioResults& header) {
  SweepManifest m;
  m.tool_version = header.tool_version;
  m.scenario_name = header.scenario_name;
  m.scenario_source = header.scenario_source;
  m.input_text = header.input_text;
  for (std::size_t p = 0; p < header.resolved_texts.size(); ++p) {
    m.points.push_back(SweepPointEntry{p < header.point_labels.size() ? header.point_labels[p] : "",
                                       header.resolved_texts[p], point_hash(header.resolved_texts[p], m.tool_version)});
  }
  return m;
}

ScenarioResults SweepManifest::header() const {
  ScenarioResults r;
  r.scenario_name = scenario_name;
  r.scenario_source = scenario_source;
  r.input_text = input_text;
  r.tool_version = tool_version;
  for (const auto& p : points) {
    r.resolved_texts.push_back(p.resolved);
    r.point_labels.push_back(p.label);
  }
  return r;
}

std::string point_hash(std::string_view resolved, std::string_view tool_version) {
  std::uint64_t h = 14695981039346656037ull;  // FNV-1a 64
  auto add = [&](std::string_view text) {
    for (unsigned char c : text) {
      h ^= c;
      h *= 1099511628211ull;
    }
  };
  add(tool_version);
  add("\n");
  add(resolved);
  char buffer[17];
  std::snprintf(buffer, sizeof buffer, "%016llx", static_cast<unsigned long long>(h));
  return buffer;
}

std::filesystem::path manifest_path(const std::filesystem::path& dir) { return dir / "sweep.json"; }
std::filesystem::path points_dir(const std::filesystem::path& dir) { return dir / "points"; }
std::filesystem::path point_h5_path(const std::filesystem::path& dir, const SweepPointEntry& point) {
  return points_dir(dir) / (point.hash + ".h5");
}
std::filesystem::path point_json_path(const std::filesystem::path& dir, const SweepPointEntry& point) {
  return points_dir(dir) / (point.hash + ".json");
}

std::string manifest_json_text(const SweepManifest& manifest) {
  Json j;
  j["sweep_store_version"] = kSweepStoreVersion;
  j["tool_version"] = manifest.tool_version;
  j["scenario"] = manifest.scenario_name;
  j["scenario_source"] = manifest.scenario_source;
  j["input"] = manifest.input_text;
  Json points = Json::array();
  for (const auto& p : manifest.points) points.push_back({{"label", p.label}, {"file", p.hash}, {"resolved", p.resolved}});
  j["points"] = points;
  return dump(j);
}

void write_manifest(const std::filesystem::path& dir, const SweepManifest& manifest) {
  write_file_atomically(manifest_path(dir), manifest_json_text(manifest));
}

std::optional<SweepManifest> read_manifest(const std::filesystem::path& dir) {
  const std::filesystem::path path = manifest_path(dir);
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return std::nullopt;
  const auto text = slurp(path);
  if (!text) throw InputError("'" + path.string() + "': cannot read it");
  try {
    const Json j = Json::parse(*text);
    if (j.at("sweep_store_version").get<int>() != kSweepStoreVersion) {
      throw InputError("'" + path.string() + "': sweep_store_version " + j.at("sweep_store_version").dump() +
                       ", this flashsim reads " + std::to_string(kSweepStoreVersion));
    }
    SweepManifest m;
    m.tool_version = j.at("tool_version").get<std::string>();
    m.scenario_name = j.at("scenario").get<std::string>();
    m.scenario_source = j.at("scenario_source").get<std::string>();
    m.input_text = j.at("input").get<std::string>();
    for (const auto& p : j.at("points")) {
      m.points.push_back(
          SweepPointEntry{p.at("label").get<std::string>(), p.at("resolved").get<std::string>(), p.at("file").get<std::string>()});
    }
    return m;
  } catch (const nlohmann::json::exception& e) {
    throw InputError("'" + path.string() + "': not a flashsim sweep.json: " + e.what());
  }
}

std::optional<PreviousResults> previous_results(const std::filesystem::path& dir) {
  if (auto m = read_manifest(dir)) {
    PreviousResults p;
    for (const auto& point : m->points) p.resolved.push_back(point.resolved);
    p.input = m->input_text;
    p.tool_version = m->tool_version;
    p.from = manifest_path(dir);
    return p;
  }
  const std::filesystem::path h5 = dir / "results.h5";
  std::error_code ec;
  if (!std::filesystem::exists(h5, ec)) return std::nullopt;
  try {
    PreviousResults p;
    p.resolved = read_resolved_scenarios_h5(h5);
    p.from = h5;
    return p;
  } catch (const Error& e) {
    throw InputError("'" + h5.string() + "' is in the way and unreadable (" + e.what() +
                     "): pass --force to replace it, or choose another --out");
  }
}

std::vector<std::string> differing_keys(const std::string& old_yaml, const std::string& new_yaml, std::size_t limit) {
  std::map<std::string, std::string> a, b;
  try {
    flatten(YAML::Load(old_yaml), "", a);
    flatten(YAML::Load(new_yaml), "", b);
  } catch (const YAML::Exception&) {
    return {"(a scenario that does not parse as YAML)"};
  }
  std::vector<std::string> out;
  auto shown = [](const std::map<std::string, std::string>& m, const std::string& key) {
    const auto it = m.find(key);
    return it == m.end() ? std::string("(absent)") : it->second;
  };
  std::map<std::string, bool> keys;
  for (const auto& [k, v] : a) keys[k] = true;
  for (const auto& [k, v] : b) keys[k] = true;
  std::size_t more = 0;
  for (const auto& [k, unused] : keys) {
    const std::string x = shown(a, k), y = shown(b, k);
    if (x == y) continue;
    if (out.size() < limit) {
      out.push_back(k + ": " + x + " -> " + y);
    } else {
      ++more;
    }
  }
  if (more > 0) out.push_back("and " + std::to_string(more) + " more");
  return out;
}

std::string scenario_difference(const PreviousResults& previous, const SweepManifest& manifest) {
  bool same = previous.resolved.size() == manifest.points.size();
  std::size_t first = 0;
  for (; same && first < manifest.points.size(); ++first) same = previous.resolved[first] == manifest.points[first].resolved;
  if (same) return "";
  std::vector<std::string> keys;
  if (!previous.input.empty()) keys = differing_keys(previous.input, manifest.input_text);
  if (keys.empty()) {
    // Same input, other resolution (a default or an included file changed): the first differing point.
    std::size_t p = 0;
    while (p < previous.resolved.size() && p < manifest.points.size() && previous.resolved[p] == manifest.points[p].resolved) ++p;
    if (p < previous.resolved.size() && p < manifest.points.size()) {
      keys = differing_keys(previous.resolved[p], manifest.points[p].resolved);
      for (auto& k : keys) k = "point " + std::to_string(p + 1) + " " + k;
    }
  }
  std::string text = "differs in: ";
  for (std::size_t i = 0; i < keys.size(); ++i) text += (i ? "; " : "") + keys[i];
  if (keys.empty()) text += "the number of sweep points";
  if (previous.resolved.size() != manifest.points.size()) {
    text += " (" + std::to_string(previous.resolved.size()) + " sweep points before, " +
            std::to_string(manifest.points.size()) + " now)";
  }
  return text;
}

bool point_finished(const std::filesystem::path& dir, const SweepPointEntry& point, std::string_view tool_version) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(point_h5_path(dir, point), ec)) return false;
  const auto text = slurp(point_json_path(dir, point));
  if (!text) return false;
  try {
    const Json j = Json::parse(*text);
    return j.at("sweep_store_version").get<int>() == kSweepStoreVersion &&
           j.at("tool_version").get<std::string>() == tool_version &&
           j.at("resolved").get<std::string>() == point.resolved && j.at("summary").at("runs").is_array();
  } catch (const nlohmann::json::exception&) {
    return false;
  }
}

void write_point(const std::filesystem::path& dir, const SweepPointEntry& point, const ScenarioResults& one_point) {
  std::error_code ec;
  std::filesystem::create_directories(points_dir(dir), ec);
  if (ec) throw Error("cannot create '" + points_dir(dir).string() + "': " + ec.message());
  {
    AtomicFile h5(point_h5_path(dir, point));
    write_results_h5(h5.temp_path(), one_point);
    make_readable(h5.temp_path());
    h5.commit();
  }
  Json j;
  j["sweep_store_version"] = kSweepStoreVersion;
  j["tool_version"] = one_point.tool_version;
  j["label"] = point.label;
  j["resolved"] = point.resolved;
  j["summary"] = Json::parse(summary_json_text(one_point));
  write_file_atomically(point_json_path(dir, point), dump(j));
}

std::vector<std::size_t> shard_points(std::size_t points, std::size_t shard, std::size_t shards) {
  std::vector<std::size_t> out;
  for (std::size_t p = shard; shards > 0 && p < points; p += shards) out.push_back(p);
  return out;
}

std::pair<std::size_t, std::size_t> parse_shard(const std::string& option, const std::string& text) {
  const auto slash = text.find('/');
  auto number = [&](std::string_view s, std::size_t& v) {
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    return ec == std::errc() && end == s.data() + s.size() && !s.empty();
  };
  std::size_t k = 0, n = 0;
  if (slash == std::string::npos || !number(std::string_view(text).substr(0, slash), k) ||
      !number(std::string_view(text).substr(slash + 1), n) || n == 0 || k >= n) {
    throw InputError(option + " '" + text + "': expected K/N with 0 <= K < N (shard K of N, counted from 0)");
  }
  return {k, n};
}

std::vector<std::size_t> missing_points(const std::filesystem::path& dir, const SweepManifest& manifest) {
  std::vector<std::size_t> out;
  for (std::size_t p = 0; p < manifest.points.size(); ++p) {
    if (!point_finished(dir, manifest.points[p], manifest.tool_version)) out.push_back(p);
  }
  return out;
}

ResultsPaths merge_points(const std::filesystem::path& dir, const SweepManifest& manifest, const HostInfo& host,
                          const MergeProgress& progress) {
  const std::vector<std::size_t> missing = missing_points(dir, manifest);
  if (!missing.empty()) {
    std::string which;
    for (std::size_t i = 0; i < missing.size() && i < 5; ++i) {
      const auto& p = manifest.points[missing[i]];
      which += (i ? ", " : "") + std::to_string(missing[i]) + (p.label.empty() ? "" : " (" + p.label + ")");
    }
    if (missing.size() > 5) which += ", ...";
    // A scenario given as a file can be named; one written from flags (the
    // quick form, Python) only by the command that made it.
    std::error_code ec;
    const std::string rerun =
        manifest.scenario_source == "<builtin:default.yaml>" ? "`flashsim run --out " + dir.string() + "`"
        : std::filesystem::is_regular_file(manifest.scenario_source, ec)
            ? "`flashsim run " + manifest.scenario_source + " --out " + dir.string() + "`"
            : "the command that made it (" + manifest.scenario_source + ") with --out " + dir.string();
    throw InputError("'" + dir.string() + "': " + std::to_string(missing.size()) + " of " +
                     std::to_string(manifest.points.size()) + " sweep points not finished (point " + which +
                     "): run their shards, or " + rerun +
                     " to run what is missing here");
  }
  ScenarioResults header = manifest.header();
  header.host = host;

  // summary.json: summary_json_text's layout, from the points' summaries.
  Json merged;
  Json runs = Json::array(), host_runs = Json::array();
  std::string clock, engine;
  std::uint64_t seed = 0;
  std::size_t run = 0;
  for (std::size_t p = 0; p < manifest.points.size(); ++p) {
    const auto& point = manifest.points[p];
    const auto text = slurp(point_json_path(dir, point));
    if (!text) throw Error("cannot read '" + point_json_path(dir, point).string() + "'");
    Json s;
    try {
      s = Json::parse(*text).at("summary");
    } catch (const nlohmann::json::exception& e) {
      throw Error("'" + point_json_path(dir, point).string() + "': " + e.what());
    }
    if (p == 0) {
      seed = s.at("seed").get<std::uint64_t>();
      clock = s.at("decision_clock").get<std::string>();
      engine = s.at("engine").get<std::string>();
    }
    if (s.at("decision_clock").get<std::string>() != clock) clock = "mixed";
    if (s.at("engine").get<std::string>() != engine) engine = "mixed";
    const std::size_t first_run = run;
    for (Json r : s.at("runs")) {
      r["run"] = run++;
      r["point"] = p;
      r["point_label"] = point.label;
      runs.push_back(std::move(r));
    }
    std::size_t k = first_run;
    for (Json r : s.at("host").at("runs")) {
      r["run"] = k++;
      host_runs.push_back(std::move(r));
    }
    if (progress) progress("reading point summaries", p + 1, manifest.points.size());
  }
  merged["results_schema_version"] = kResultsSchemaVersion;
  merged["tool_version"] = manifest.tool_version;
  merged["scenario"] = manifest.scenario_name;
  merged["scenario_source"] = manifest.scenario_source;
  merged["seed"] = seed;
  merged["decision_clock"] = clock;
  merged["engine"] = engine;
  merged["points"] = header.point_labels;
  merged["runs"] = runs;
  Json h;
  h["hostname"] = host.hostname;
  h["date_utc"] = host.date_utc;
  h["jobs"] = host.jobs;
  h["total_wall_seconds"] = host.total_wall_seconds;
  h["runs"] = host_runs;
  merged["host"] = h;

  std::vector<std::filesystem::path> files;
  for (const auto& point : manifest.points) files.push_back(point_h5_path(dir, point));
  ResultsPaths paths{dir / "results.h5", dir / "summary.json"};
  AtomicFile h5(paths.h5);
  AtomicFile json(paths.json);
  std::size_t merged_points = 0;
  std::function<void()> on_point;
  if (progress) {
    on_point = [&] { progress("merging point results", ++merged_points, files.size()); };
  }
  merge_results_h5(h5.temp_path(), header, files, on_point);
  {
    std::ofstream out(json.temp_path(), std::ios::binary | std::ios::trunc);
    out << dump(merged);
    out.close();
    if (!out) throw Error("cannot write '" + json.temp_path().string() + "'");
  }
  commit_results_pair(h5, json, paths);
  return paths;
}

}  // namespace flashsim
