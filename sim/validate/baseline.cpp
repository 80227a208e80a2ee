#include "sim/validate/baseline.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

#include "sim/core/errors.h"
#include "sim/scenario/config_tree.h"
#include "traces/atomic_file.h"

namespace flashsim {
namespace {

using json = nlohmann::ordered_json;
constexpr const char* kSchema = "flashsim-baseline/1";

RunSeries series_from(const json& j) {
  RunSeries s;
  if (j.is_null()) return s;
  s.latency_q = j.value("latency_q", std::vector<double>{});
  s.latency_ns = j.value("latency_ns", std::vector<double>{});
  s.window_ns = j.value("window_ns", Nanoseconds{0});
  s.hit_ratio = j.value("hit_ratio", std::vector<double>{});
  return s;
}

// j.value(key, def), with a type error naming the key.
template <class T>
T field(const json& j, const char* key, T def) {
  try {
    return j.value(key, def);
  } catch (const json::exception&) {
    throw InputError(std::string("key '") + key + "' has the wrong type (" + j.at(key).type_name() + ")");
  }
}

DeviceIdentity device_from(const json& j) {
  DeviceIdentity d;
  d.name = field<std::string>(j, "name", "");
  d.uuid = field<std::string>(j, "uuid", "");
  d.driver_version = field<std::string>(j, "driver_version", "");
  d.cuda_driver_version = field(j, "cuda_driver_version", 0);
  d.pci_bus_id = field<std::string>(j, "pci_bus_id", "");
  d.sm_clock_mhz = field(j, "sm_clock_mhz", 0u);
  d.memory_clock_mhz = field(j, "memory_clock_mhz", 0u);
  d.sm_clock_max_mhz = field(j, "sm_clock_max_mhz", 0u);
  d.memory_clock_max_mhz = field(j, "memory_clock_max_mhz", 0u);
  d.sm_clock_application_mhz = field(j, "sm_clock_application_mhz", 0u);
  d.source = field<std::string>(j, "source", "");
  return d;
}

// The provenance object; errors say ".device: key ..." or ": key ..." (the
// caller prefixes "FILE: provenance").
BaselineProvenance provenance_from(const json& p) {
  BaselineProvenance v;
  try {
    v.device = device_from(p.value("device", json::object()));
  } catch (const InputError& x) {
    throw InputError(std::string(".device: ") + x.what());
  }
  try {
    v.commit = field<std::string>(p, "commit", "");
    v.tool_version = field<std::string>(p, "tool_version", "");
    v.date_utc = field<std::string>(p, "date_utc", "");
    v.host = field<std::string>(p, "host", "");
    const json prof = p.value("profile", json::object());
    v.profile_name = field<std::string>(prof, "name", "");
    v.profile_file = field<std::string>(prof, "file", "");
    v.profile_fingerprint = field<std::string>(prof, "fingerprint", "");
    v.profile_text = field<std::string>(prof, "text", "");
    v.repeats = field(p, "repeats", 0u);
  } catch (const InputError& x) {
    throw InputError(std::string(": ") + x.what());
  }
  return v;
}

json replay_json(const HwReplayKnobs& k) {
  return json{{"backing", k.backing}, {"no_cache", k.no_cache}, {"copy_streams", k.copy_streams}, {"run_ahead", k.run_ahead}};
}

HwReplayKnobs replay_from(const json& j) {
  HwReplayKnobs k;
  k.backing = j.value("backing", "pinned");
  k.no_cache = j.value("no_cache", false);
  k.copy_streams = j.value("copy_streams", 1u);
  k.run_ahead = j.value("run_ahead", 8u);
  return k;
}

bool is_gpu_uuid(const std::string& s) {
  // GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx (nvidia-smi, NVML)
  if (s.size() != 40 || !s.starts_with("GPU-")) return false;
  for (std::size_t i = 4; i < s.size(); ++i) {
    const bool dash = i == 12 || i == 17 || i == 22 || i == 27;
    if (dash ? s[i] != '-' : !std::isxdigit(static_cast<unsigned char>(s[i]))) return false;
  }
  return true;
}

bool is_iso_utc(const std::string& s) {
  // YYYY-MM-DDTHH:MM:SSZ
  if (s.size() != 20) return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    const bool ok = i == 4 || i == 7 ? c == '-' : i == 10 ? c == 'T' : i == 13 || i == 16 ? c == ':' : i == 19 ? c == 'Z'
                                                                                                           : std::isdigit(static_cast<unsigned char>(c)) != 0;
    if (!ok) return false;
  }
  return true;
}

bool is_hex40(const std::string& s) {
  return s.size() == 40 && std::all_of(s.begin(), s.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); });
}

}  // namespace

json to_json(const RunSeries& s) {
  return json{{"latency_q", s.latency_q}, {"latency_ns", s.latency_ns}, {"window_ns", s.window_ns}, {"hit_ratio", s.hit_ratio}};
}

json to_json(const DeviceIdentity& d) {
  return json{{"name", d.name},
              {"uuid", d.uuid},
              {"driver_version", d.driver_version},
              {"cuda_driver_version", d.cuda_driver_version},
              {"pci_bus_id", d.pci_bus_id},
              {"sm_clock_mhz", d.sm_clock_mhz},
              {"memory_clock_mhz", d.memory_clock_mhz},
              {"sm_clock_max_mhz", d.sm_clock_max_mhz},
              {"memory_clock_max_mhz", d.memory_clock_max_mhz},
              {"sm_clock_application_mhz", d.sm_clock_application_mhz},
              {"source", d.source}};
}

double MeasuredValue::relative_spread() const { return median != 0.0 ? (max - min) / std::fabs(median) : 0.0; }

MeasuredValue summarize_repeats(std::vector<double> values) {
  if (values.empty()) throw Error("summarize_repeats: no values");
  MeasuredValue m;
  m.values = values;
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  m.median = n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
  m.min = values.front();
  m.max = values.back();
  return m;
}

const BaselineEntry* Baseline::find(std::string_view name) const {
  for (const BaselineEntry& e : entries)
    if (e.name == name) return &e;
  return nullptr;
}

std::string content_fingerprint(std::string_view text) {
  std::uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a 64-bit offset basis and prime (Fowler, Noll, Vo)
  for (unsigned char c : text) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return std::string("fnv1a64:") + buf;
}

std::string suite_entry_fingerprint(const ValidationSuite& suite, const SuiteEntry& entry) {
  std::string text = read_text_file(entry.scenario, entry.scenario.string());
  for (const Override& o : entry.overrides) {
    if (o.path == "hardware.profile" && o.value.is_scalar() && o.value.scalar == suite.profile.string()) continue;
    text += "\n" + o.path + "=" + to_flow_text(o.value);
  }
  return content_fingerprint(text);
}

std::string entry_inputs_fingerprint(const SuiteEntry& entry) {
  const ScenarioDocument doc = entry.document();
  const Scenario sc = doc.resolve(doc.points().front());
  std::string text;
  const WorkloadSpec& w = sc.workload;
  if (w.generated) {
    for (const auto& [key, value] : w.generator_params) {
      std::error_code ec;
      const std::filesystem::path p(value);
      if (value.empty() || !p.is_absolute() || !std::filesystem::is_regular_file(p, ec)) continue;
      if (std::filesystem::file_size(p, ec) > (16u << 20)) continue;
      text += key + "=" + read_text_file(p, p.string()) + "\n";
    }
  } else if (w.builtin) {
    text += "builtin=" + w.builtin_name + "\n";
  } else {
    std::error_code ec;
    text += "trace=" + w.path.filename().string() + " " + std::to_string(std::filesystem::file_size(w.path, ec)) + "\n";
  }
  return content_fingerprint(text);
}

void check_provenance(const BaselineProvenance& p, const std::string& where) {
  auto fail = [&](const std::string& field, const std::string& why) {
    throw InputError(where + ": provenance." + field + ": " + why + " (a baseline without provenance is refused)");
  };
  if (!is_hex40(p.commit)) fail("commit", "expected the 40 hex digits of the commit that recorded it, got '" + p.commit + "'");
  if (p.device.name.empty()) fail("device.name", "missing");
  if (!is_gpu_uuid(p.device.uuid)) fail("device.uuid", "expected GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx, got '" + p.device.uuid + "'");
  if (p.device.driver_version.empty()) fail("device.driver_version", "missing");
  if (p.device.sm_clock_mhz == 0) fail("device.sm_clock_mhz", "missing (0)");
  if (p.device.memory_clock_mhz == 0) fail("device.memory_clock_mhz", "missing (0)");
  if (p.profile_name.empty()) fail("profile.name", "missing");
  if (p.profile_text.empty()) fail("profile.text", "missing (the calibrated profile, verbatim)");
  if (content_fingerprint(p.profile_text) != p.profile_fingerprint) fail("profile.fingerprint", "does not match profile.text");
  if (p.repeats < 5) fail("repeats", "expected >= 5 (each figure is a median of at least 5 repeats)");
  if (!is_iso_utc(p.date_utc)) fail("date_utc", "expected YYYY-MM-DDTHH:MM:SSZ, got '" + p.date_utc + "'");
}

Baseline read_baseline(const std::filesystem::path& file) {
  const std::string where = file.string();
  json j;
  try {
    j = json::parse(read_text_file(file, where));
  } catch (const json::exception& e) {
    throw InputError(where + ": not valid JSON: " + e.what());
  }
  try {
    if (j.value("schema", "") != kSchema) throw InputError(where + ": schema: expected \"" + std::string(kSchema) + "\"");
    Baseline b;
    b.suite = j.value("suite", "");
    if (!j.contains("provenance")) throw InputError(where + ": no provenance (a baseline without provenance is refused)");
    const json& p = j.at("provenance");
    try {
      b.provenance = provenance_from(p);
    } catch (const InputError& x) {
      throw InputError(where + ": provenance" + x.what());
    }
    check_provenance(b.provenance, where);
    if (!j.contains("entries") || !j.at("entries").is_array()) throw InputError(where + ": entries: expected a list");
    std::size_t index = 0;
    for (const json& e : j.at("entries")) {
      const std::string at = where + ": entries[" + std::to_string(index++) + "]" +
                             (e.is_object() && e.contains("name") && e.at("name").is_string() ? " ('" + e.at("name").get<std::string>() + "')" : "");
      try {
        BaselineEntry be;
        be.name = e.at("name").get<std::string>();
        be.scenario_fingerprint = e.value("scenario_fingerprint", "");
        be.inputs_fingerprint = e.value("inputs_fingerprint", "");
        be.replay = replay_from(e.value("replay", json::object()));
        be.tokens = e.value("tokens", std::uint64_t{0});
        be.accesses = e.value("accesses", std::uint64_t{0});
        be.footprint_bytes = e.value("footprint_bytes", ByteCount{0});
        be.capacity_bytes = e.value("capacity_bytes", ByteCount{0});
        for (const auto& [name, m] : e.at("metrics").items()) {
          MeasuredValue v;
          v.median = m.at("median").get<double>();
          v.min = m.at("min").get<double>();
          v.max = m.at("max").get<double>();
          v.values = m.value("values", std::vector<double>{});
          if (v.values.size() < b.provenance.repeats)
            throw InputError(at + ": metric '" + name + "': " + std::to_string(v.values.size()) + " values, provenance says " +
                             std::to_string(b.provenance.repeats) + " repeats");
          if (!(v.min <= v.median && v.median <= v.max))
            throw InputError(at + ": metric '" + name + "': expected min <= median <= max");
          be.metrics.emplace(name, std::move(v));
        }
        if (be.metrics.empty()) throw InputError(at + ": no metrics");
        be.series = series_from(e.value("series", json()));
        if (b.find(be.name)) throw InputError(at + ": appears twice");
        b.entries.push_back(std::move(be));
      } catch (const json::exception& x) {
        throw InputError(at + ": " + x.what());
      }
    }
    return b;
  } catch (const json::exception& e) {
    throw InputError(where + ": " + e.what());
  }
}

void write_baseline(const std::filesystem::path& file, const Baseline& b) {
  check_provenance(b.provenance, file.string());
  const BaselineProvenance& p = b.provenance;
  json j;
  j["schema"] = kSchema;
  j["suite"] = b.suite;
  j["provenance"] = json{{"commit", p.commit},
                         {"tool_version", p.tool_version},
                         {"date_utc", p.date_utc},
                         {"host", p.host},
                         {"device", to_json(p.device)},
                         {"profile", json{{"name", p.profile_name},
                                          {"file", p.profile_file},
                                          {"fingerprint", p.profile_fingerprint},
                                          {"text", p.profile_text}}},
                         {"repeats", p.repeats}};
  json entries = json::array();
  for (const BaselineEntry& e : b.entries) {
    json metrics = json::object();
    for (const auto& [name, v] : e.metrics)
      metrics[name] = json{{"median", v.median}, {"min", v.min}, {"max", v.max}, {"values", v.values}};
    entries.push_back(json{{"name", e.name},
                           {"scenario_fingerprint", e.scenario_fingerprint},
                           {"inputs_fingerprint", e.inputs_fingerprint},
                           {"replay", replay_json(e.replay)},
                           {"tokens", e.tokens},
                           {"accesses", e.accesses},
                           {"footprint_bytes", e.footprint_bytes},
                           {"capacity_bytes", e.capacity_bytes},
                           {"metrics", metrics},
                           {"series", to_json(e.series)}});
  }
  j["entries"] = entries;
  std::filesystem::create_directories(file.parent_path().empty() ? "." : file.parent_path());
  AtomicFile out(file);
  {
    std::ofstream f(out.temp_path());
    f << j.dump(1) << "\n";
    if (!f) throw Error(file.string() + ": write failed");
  }
  out.commit();
}

}  // namespace flashsim
