#include "sim/validate/validation_suite.h"

#include <algorithm>
#include <set>

#include "sim/core/unit_parse.h"

namespace flashsim {
namespace {

const ConfigNode& require(const ConfigNode& map, std::string_view key, const SourcePos& where) {
  const ConfigNode* n = map.find(key);
  if (!n || n->is_null()) throw_at(where, key, "missing");
  return *n;
}

std::string scalar_of(const ConfigNode& n, std::string_view key) {
  if (!n.is_scalar()) throw_at(n.pos, key, "expected a value, got a " + std::string(n.kind_name()));
  return n.scalar;
}

void check_keys(const ConfigNode& map, const std::vector<std::string>& allowed, std::string_view what) {
  if (!map.is_map()) throw_at(map.pos, what, "expected a map, got a " + std::string(map.kind_name()));
  for (const ConfigEntry& e : map.entries) {
    if (std::find(allowed.begin(), allowed.end(), e.key) != allowed.end()) continue;
    const std::string near = closest_match(e.key, allowed);
    throw_at(e.key_pos, e.key, "unknown key in " + std::string(what) + (near.empty() ? "" : " (did you mean '" + near + "'?)"));
  }
}

// A value in the metric's unit: durations for *_ns, sizes for bytes_*, plain numbers otherwise.
double metric_quantity(const ConfigNode& n, const std::string& metric, std::string_view key) {
  const std::string text = scalar_of(n, key);
  try {
    if (metric.ends_with("_ns")) return static_cast<double>(parse_duration_ns(text));
    if (metric.starts_with("bytes")) return static_cast<double>(parse_bytes(text));
    return parse_real(text);
  } catch (const InputError& e) {
    throw_at(n.pos, key, e.what());
  }
}

long long integer_in(const ConfigNode& n, std::string_view key, long long lo, long long hi) {
  long long v = 0;
  try {
    v = parse_integer(scalar_of(n, key));
  } catch (const InputError& e) {
    throw_at(n.pos, key, e.what());
  }
  if (v < lo || v > hi) throw_at(n.pos, key, "expected " + std::to_string(lo) + " to " + std::to_string(hi));
  return v;
}

bool parse_bool(const ConfigNode& n, std::string_view key) {
  const std::string t = scalar_of(n, key);
  if (t == "true" || t == "yes") return true;
  if (t == "false" || t == "no") return false;
  throw_at(n.pos, key, "expected true or false, got '" + t + "'");
}

MetricSpec parse_metric(const ConfigEntry& entry) {
  MetricSpec m;
  m.name = entry.key;
  const auto& names = validation_metric_names();
  if (std::find(names.begin(), names.end(), m.name) == names.end()) {
    // Renamed to the results schema's names (sim/results/metric_schema.h).
    if (m.name == "hit_ratio" || m.name == "byte_hit_ratio") {
      throw_at(entry.key_pos, m.name,
               "is now '" + std::string(m.name == "hit_ratio" ? "hit_ratio_by_access" : "hit_ratio_by_byte") +
                   "' (the results schema's name; baselines recorded under the old name need it renamed too)");
    }
    const std::string near = closest_match(m.name, names);
    throw_at(entry.key_pos, m.name, "not a validation metric" + (near.empty() ? "" : " (did you mean '" + near + "'?)"));
  }
  const ConfigNode& spec = entry.value;
  check_keys(spec, {"kind", "tolerance", "floor", "gate", "scope"}, "metrics." + m.name);
  const std::string kind = scalar_of(require(spec, "kind", spec.pos), "kind");
  if (kind == "relative") m.kind = ToleranceKind::relative;
  else if (kind == "absolute") m.kind = ToleranceKind::absolute;
  else if (kind == "exact") m.kind = ToleranceKind::exact;
  else throw_at(spec.find("kind")->pos, "kind", "expected relative, absolute or exact, got '" + kind + "'");
  if (const ConfigNode* t = spec.find("tolerance")) {
    if (m.kind == ToleranceKind::exact) throw_at(t->pos, "tolerance", "an exact metric takes no tolerance");
    const std::string text = scalar_of(*t, "tolerance");
    if (m.kind == ToleranceKind::relative) {
      try {
        m.tolerance = text.ends_with('%') ? parse_real(text.substr(0, text.size() - 1)) / 100.0 : parse_real(text);
      } catch (const InputError& e) {
        throw_at(t->pos, "tolerance", e.what());
      }
    } else {
      m.tolerance = metric_quantity(*t, m.name, "tolerance");  // names the position itself
    }
    if (!(m.tolerance > 0.0)) throw_at(t->pos, "tolerance", "must be > 0 (use kind: exact for zero)");
    if (m.kind == ToleranceKind::relative && !text.ends_with('%') && m.tolerance > 1.0)
      throw_at(t->pos, "tolerance", "'" + text + "': a relative tolerance is a fraction (0.1) or a percentage (10%)");
    if (m.kind == ToleranceKind::relative && m.tolerance > 10.0) throw_at(t->pos, "tolerance", "'" + text + "': at most 1000%");
  } else if (m.kind != ToleranceKind::exact) {
    throw_at(spec.pos, "tolerance", "missing (required for kind " + kind + ")");
  }
  if (const ConfigNode* f = spec.find("floor")) {
    if (m.kind == ToleranceKind::exact) throw_at(f->pos, "floor", "an exact metric takes no floor");
    m.floor = metric_quantity(*f, m.name, "floor");
    if (m.floor < 0.0) throw_at(f->pos, "floor", "must be >= 0");
  }
  if (const ConfigNode* g = spec.find("gate")) m.gate = parse_bool(*g, "gate");
  if (const ConfigNode* s = spec.find("scope")) {
    const std::string t = scalar_of(*s, "scope");
    if (t == "all") m.scope = MetricScope::all;
    else if (t == "demand_only") m.scope = MetricScope::demand_only;
    else if (t == "prefetch") m.scope = MetricScope::prefetch;
    else throw_at(s->pos, "scope", "expected all, demand_only or prefetch, got '" + t + "'");
  }
  return m;
}

bool valid_entry_name(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
  });
}

std::vector<Override> overrides_of(const ConfigNode& map, std::string_view what) {
  if (!map.is_map()) throw_at(map.pos, what, "expected a map of dotted keys to values");
  std::vector<Override> out;
  for (const ConfigEntry& e : map.entries) {
    (void)split_dotted_path(e.key);  // throws on an empty component
    out.push_back(Override{e.key, e.value});
  }
  return out;
}

HwReplayKnobs parse_replay(const ConfigNode& n, HwReplayKnobs k) {
  check_keys(n, {"backing", "no_cache", "copy_streams", "run_ahead"}, "replay");
  if (const ConfigNode* b = n.find("backing")) {
    k.backing = scalar_of(*b, "backing");
    if (k.backing != "pinned" && k.backing != "pageable") throw_at(b->pos, "backing", "expected pinned or pageable");
  }
  if (const ConfigNode* c = n.find("no_cache")) k.no_cache = parse_bool(*c, "no_cache");
  if (const ConfigNode* c = n.find("copy_streams")) k.copy_streams = static_cast<unsigned>(integer_in(*c, "copy_streams", 1, 64));
  if (const ConfigNode* c = n.find("run_ahead")) k.run_ahead = static_cast<unsigned>(integer_in(*c, "run_ahead", 1, 4096));
  return k;
}

}  // namespace

const std::vector<std::string>& validation_metric_names() {
  static const std::vector<std::string> names = {
      "time_per_token_ns", "stall_ns",       "simulated_ns",   "hit_ratio_by_access", "hit_ratio_by_byte", "bytes_fetched",
      "misses",            "latency_p50_ns", "latency_p99_ns", "prefetch_accuracy", "prefetch_coverage", "bytes_written_back"};
  return names;
}

bool metric_applies(const MetricSpec& spec, bool demand_only) {
  return spec.scope == MetricScope::all || (spec.scope == MetricScope::demand_only) == demand_only;
}

std::string to_string(ToleranceKind kind) {
  switch (kind) {
    case ToleranceKind::relative: return "relative";
    case ToleranceKind::absolute: return "absolute";
    case ToleranceKind::exact: return "exact";
  }
  return "?";
}

std::string to_string(MetricScope scope) {
  switch (scope) {
    case MetricScope::all: return "all";
    case MetricScope::demand_only: return "demand_only";
    case MetricScope::prefetch: return "prefetch";
  }
  return "?";
}

void set_suite_profile(ValidationSuite& suite, const std::filesystem::path& profile) {
  const std::filesystem::path p = std::filesystem::absolute(profile).lexically_normal();
  if (!std::filesystem::is_regular_file(p)) throw InputError("profile '" + profile.string() + "': no such file");
  for (SuiteEntry& e : suite.entries) {
    auto it = std::find_if(e.overrides.begin(), e.overrides.end(), [&](const Override& o) {
      return o.path == "hardware.profile" && o.value.is_scalar() && o.value.scalar == suite.profile.string();
    });
    if (it != e.overrides.end()) it->value.scalar = p.string();
    else e.overrides.push_back(Override{"hardware.profile", ConfigNode::make_scalar(p.string(), SourcePos{"--profile", 0, 0})});
  }
  suite.profile = p;
}

ScenarioDocument SuiteEntry::document(const std::vector<Override>& extra) const {
  std::vector<Override> all = overrides;
  all.insert(all.end(), extra.begin(), extra.end());
  return ScenarioDocument::from_file(scenario, all);
}

const SuiteEntry* ValidationSuite::find(std::string_view entry_name) const {
  for (const SuiteEntry& e : entries)
    if (e.name == entry_name) return &e;
  return nullptr;
}

ValidationSuite load_validation_suite(const std::filesystem::path& file) {
  const ConfigNode root = parse_yaml_file(file);
  const SourcePos top{file.string(), 0, 0};
  check_keys(root, {"name", "description", "profile", "baseline", "repeats", "warmup", "log_span", "metrics", "defaults", "replay", "entries"},
             "the suite");
  const std::filesystem::path base = std::filesystem::absolute(file).parent_path();
  ValidationSuite s;
  s.file = file;
  s.name = scalar_of(require(root, "name", top), "name");
  if (!valid_entry_name(s.name)) throw_at(root.find("name")->pos, "name", "use letters, digits, '.', '_' and '-'");
  if (const ConfigNode* d = root.find("description")) s.description = scalar_of(*d, "description");
  if (const ConfigNode* p = root.find("profile")) {
    s.profile = (base / scalar_of(*p, "profile")).lexically_normal();
    if (!std::filesystem::is_regular_file(s.profile)) throw_at(p->pos, "profile", "no such file: " + s.profile.string());
  }
  s.baseline = (base / scalar_of(require(root, "baseline", top), "baseline")).lexically_normal();
  if (const ConfigNode* r = root.find("repeats")) s.repeats = static_cast<unsigned>(integer_in(*r, "repeats", 1, 1000));
  if (const ConfigNode* w = root.find("warmup")) s.warmup = static_cast<unsigned>(integer_in(*w, "warmup", 0, 100));
  if (const ConfigNode* l = root.find("log_span")) {
    try {
      s.log_span = parse_real(scalar_of(*l, "log_span"));
    } catch (const InputError& e) {
      throw_at(l->pos, "log_span", e.what());
    }
    if (!(s.log_span > 1.0)) throw_at(l->pos, "log_span", "must be > 1");
  }
  const ConfigNode& metrics = require(root, "metrics", top);
  if (!metrics.is_map() || metrics.entries.empty()) throw_at(metrics.pos, "metrics", "expected a map of metric: {kind, tolerance, ...}");
  for (const ConfigEntry& e : metrics.entries) s.metrics.push_back(parse_metric(e));

  HwReplayKnobs replay_defaults;
  if (const ConfigNode* r = root.find("replay")) replay_defaults = parse_replay(*r, replay_defaults);
  std::vector<Override> defaults;
  if (const ConfigNode* d = root.find("defaults")) defaults = overrides_of(*d, "defaults");
  const ConfigNode& entries = require(root, "entries", top);
  if (!entries.is_sequence() || entries.items.empty()) throw_at(entries.pos, "entries", "expected a non-empty list");
  std::set<std::string> seen;
  for (const ConfigNode& n : entries.items) {
    check_keys(n, {"name", "group", "scenario", "set", "role", "replay"}, "an entry");
    SuiteEntry e;
    e.pos = n.pos;
    e.name = scalar_of(require(n, "name", n.pos), "name");
    if (!valid_entry_name(e.name)) throw_at(n.find("name")->pos, "name", "'" + e.name + "': use letters, digits, '.', '_' and '-'");
    if (!seen.insert(e.name).second) throw_at(n.find("name")->pos, "name", "'" + e.name + "' appears twice");
    e.group = n.find("group") ? scalar_of(*n.find("group"), "group") : e.name;
    const ConfigNode& sc = require(n, "scenario", n.pos);
    e.scenario = (base / scalar_of(sc, "scenario")).lexically_normal();
    if (!std::filesystem::is_regular_file(e.scenario)) throw_at(sc.pos, "scenario", "no such file: " + e.scenario.string());
    e.overrides = defaults;
    if (const ConfigNode* set = n.find("set")) {
      const auto own = overrides_of(*set, "set");
      e.overrides.insert(e.overrides.end(), own.begin(), own.end());
    }
    if (!s.profile.empty()) {
      e.overrides.push_back(Override{"hardware.profile", ConfigNode::make_scalar(s.profile.string(), top)});
    }
    if (const ConfigNode* role = n.find("role")) {
      const std::string r = scalar_of(*role, "role");
      if (r != "fit" && r != "holdout") throw_at(role->pos, "role", "expected fit or holdout, got '" + r + "'");
      e.fit = r == "fit";
    }
    e.replay = replay_defaults;
    if (const ConfigNode* r = n.find("replay")) e.replay = parse_replay(*r, replay_defaults);
    s.entries.push_back(std::move(e));
  }
  return s;
}

}  // namespace flashsim
