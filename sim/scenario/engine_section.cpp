#include "sim/scenario/engine_section.h"

#include <optional>

#include "sim/core/warnings.h"
#include "sim/engine/program/program_engine.h"
#include "sim/scenario/param_check.h"

namespace flashsim {
namespace {

// Where a scenario writes an optional key: its position and full dotted key.
struct Written {
  SourcePos pos;
  std::string key;
};

// An entry of `map` (a written, non-null value other than `neutral`), at its key's position.
std::optional<Written> entry_of(const ConfigNode* map, std::string_view prefix, std::string_view key,
                                std::string_view neutral = {}) {
  if (map == nullptr || !map->is_map()) return std::nullopt;
  const ConfigEntry* e = map->find_entry(key);
  if (e == nullptr || e->value.is_null()) return std::nullopt;
  if (!neutral.empty() && e->value.is_scalar() && e->value.scalar == neutral) return std::nullopt;
  // `prefetch: []` and `segment_shares: {}` ask for nothing.
  if (e->value.is_sequence() && e->value.items.empty()) return std::nullopt;
  if (e->value.is_map() && e->value.entries.empty()) return std::nullopt;
  return Written{e->key_pos.line > 0 ? e->key_pos : e->value.pos, join_key(prefix, key)};
}

// An optional key: where it sits (`section` "" for the top level, "policies"
// for a key of each policy entry) and its name there. Sections whose keys
// engines read apart (bandwidth, serving, the hardware profile's parts) are
// listed key by key.
struct Feature {
  std::string key;      ///< the dotted name engines declare
  std::string section;  ///< "", "workload", "cache", "outputs" or "policies"
  std::string leaf;     ///< the key inside the section ("" for policies.as_recorded)
  std::string neutral = {};  ///< a value that asks for nothing (cache.granularity: whole), allowed everywhere
};

const std::vector<Feature>& features() {
  static const std::vector<Feature> list = {
      // Parts of a hardware profile written over a named one (hardware:
      // {profile: h200, l2: ...}); a profile file, or one written whole
      // inline (with tiers, as resolved text is), brings them all and is
      // not checked. Before the section, so that a refusal names who reads the part.
      {"hardware.l2", "hardware", "l2"}, {"hardware.tlb", "hardware", "tlb"},
      {"hardware.contention", "hardware", "contention"}, {"hardware.miss_penalty", "hardware", "miss_penalty"},
      {"hardware.execution", "hardware", "execution"},
      {"hardware", "", "hardware"},           {"workload.issue", "workload", "issue"},
      {"workload.gap", "workload", "gap"},    {"decision_clock", "", "decision_clock"},
      {"prefetch", "", "prefetch"},           {"policies.prefetch", "policies", "prefetch"},
      {"policies.admission", "policies", "admission"}, {"policies.as_recorded", "policies", ""},
      {"bandwidth.segment_shares", "bandwidth", "segment_shares"},
      {"bandwidth.reservation", "bandwidth", "reservation"},
      {"serving.kv_resident", "serving", "kv_resident"},
      {"serving.occupancy_window", "serving", "occupancy_window"},
      {"outputs.window", "outputs", "window"}, {"cache.granularity", "cache", "granularity", "whole"},
      {"cache.allocator", "cache", "allocator"}, {"cache.pin", "cache", "pin"},
      {"cache.size_change", "cache", "size_change"}, {"cache.ignore_sizes", "cache", "ignore_sizes"},
  };
  return list;
}

// Whether policy entry `p` is the policy as_recorded.
bool is_as_recorded(const ConfigNode& p) {
  const ConfigNode* impl = p.is_map() ? p.find("impl") : &p;
  return impl != nullptr && impl->is_scalar() && impl->scalar == kAsRecordedPolicy;
}

// Where `tree` writes `f`, if it does.
std::optional<Written> written(const ConfigNode& tree, const Feature& f) {
  if (f.section == "hardware") {  // a whole profile written inline (tiers and all, as resolved text is) is one unit
    const ConfigNode* hw = tree.find("hardware");
    if (hw == nullptr || !hw->is_map() || hw->find("tiers") != nullptr) return std::nullopt;
  }
  if (f.section != "policies") {
    return entry_of(f.section.empty() ? &tree : tree.find(f.section), f.section, f.leaf, f.neutral);
  }
  const ConfigNode* policies = tree.find("policies");
  if (policies == nullptr || !policies->is_sequence()) return std::nullopt;
  for (std::size_t i = 0; i < policies->items.size(); ++i) {
    const ConfigNode& p = policies->items[i];
    const std::string key = "policies." + std::to_string(i);
    if (f.leaf.empty()) {
      if (is_as_recorded(p)) return Written{p.is_map() ? p.find("impl")->pos : p.pos, key};
    } else if (auto w = entry_of(&p, key, f.leaf)) {
      return w;
    }
  }
  return std::nullopt;
}

// Removes `f` from a resolved tree (policy as_recorded entries stay: the
// check refuses them before a tree is resolved).
void erase(ConfigNode& tree, const Feature& f) {
  if (f.leaf.empty()) return;
  if (f.section.empty()) {
    tree.erase(f.leaf);
    return;
  }
  ConfigNode* section = tree.find(f.section);
  if (section == nullptr) return;
  if (section->is_map()) {
    section->erase(f.leaf);
    // A section left empty (bandwidth, serving: every key unused) goes too.
    if (section->entries.empty()) {
      tree.erase(f.section);
      return;
    }
  }
  for (ConfigNode& item : section->items) {
    if (item.is_map()) item.erase(f.leaf);
  }
}

bool uses(const EngineRegistry::Entry& e, const std::string& key) {
  for (const auto& u : e.traits.uses) {
    if (u == key) return true;
  }
  return false;
}

// Old keys that moved under their engine: workload.KEY -> engine: {impl: program, KEY: ...}.
constexpr const char* kMovedWorkloadKeys[] = {"host_memory", "skip_steps"};

}  // namespace

const std::vector<std::string>& scenario_feature_keys() {
  static const std::vector<std::string> keys = [] {
    std::vector<std::string> k;
    for (const Feature& f : features()) k.push_back(f.key);
    return k;
  }();
  return keys;
}

ResolvedComponent resolve_engine_section(const ConfigNode& tree) {
  const ConfigNode* node = tree.find("engine");
  const ConfigNode absent = ConfigNode::make_scalar("event", tree.pos);
  const ConfigNode& given = node != nullptr && !node->is_null() ? *node : absent;
  ConfigNode engine = given;
  if (given.is_scalar()) {
    if (node != nullptr && !node->is_null() && EngineRegistry::instance().has(node->scalar)) {  // else refused below
      warn(node->pos.describe() + ": key 'engine': `engine: " + node->scalar + "` is the old spelling; write `engine: {impl: " +
           node->scalar + "}` (its parameters go beside impl)");
    }
    engine = ConfigNode::make_map(given.pos);
    engine.set("impl", given, given.pos);
  }
  // workload.host_memory and workload.skip_steps: now the program engine's own.
  if (const ConfigNode* workload = tree.find("workload"); workload != nullptr && workload->is_map()) {
    for (const char* key : kMovedWorkloadKeys) {
      const ConfigEntry* old = workload->find_entry(key);
      if (old == nullptr || old->value.is_null()) continue;
      const std::string old_key = std::string("workload.") + key;
      if (engine.is_map() && engine.find(key) != nullptr) {
        throw_at(old->key_pos, old_key, std::string("given twice: here and as engine.") + key + " (keep engine." + key + ")");
      }
      const ConfigNode* impl = engine.is_map() ? engine.find("impl") : nullptr;
      const std::string name = impl != nullptr && impl->is_scalar() ? impl->scalar : "";
      const EngineRegistry& registry = EngineRegistry::instance();
      bool has_param = false;
      if (registry.has(name)) {
        for (const auto& p : registry.find(name).params) has_param |= p.name == key;
      }
      if (!has_param) {
        std::string users;
        for (const auto* e : registry.entries()) {
          for (const auto& p : e->params) {
            if (p.name == key) users += (users.empty() ? "" : ", ") + e->name;
          }
        }
        throw_at(old->key_pos, old_key,
                 "engine '" + name + "' has no parameter " + key + " (a parameter of engine " + users + ": engine: {impl: " +
                     users + ", " + key + ": ...})");
      }
      warn(old->key_pos.describe() + ": key '" + old_key + "' moved under its engine; write `engine: {impl: " + name + ", " +
           key + ": " + (old->value.is_scalar() ? old->value.scalar : "...") + "}`");
      if (engine.is_map()) engine.set(key, old->value, old->key_pos);
    }
  }
  return resolve_component(engine, "engine", "engine", EngineRegistry::instance());
}

void check_engine_uses(const ConfigNode& tree, const std::string& engine, bool generated_workload) {
  const EngineRegistry& registry = EngineRegistry::instance();
  for (const auto* e : registry.entries()) {
    for (const auto& u : e->traits.uses) {
      bool known = false;
      for (const Feature& f : features()) known |= f.key == u;
      if (!known) throw Error("engine '" + e->name + "' declares it uses '" + u + "', which is no scenario key it may declare");
    }
  }
  const EngineRegistry::Entry& mine = registry.find(engine);
  for (const Feature& f : features()) {
    if (uses(mine, f.key)) continue;
    if (f.key == "hardware" && generated_workload) continue;  // the generator's roofline rates
    const std::optional<Written> w = written(tree, f);
    if (!w) continue;
    std::string users;
    for (const auto* e : registry.entries()) {
      if (uses(*e, f.key)) users += (users.empty() ? "" : ", ") + e->name;
    }
    const std::string it = f.leaf.empty() ? "the policy " + std::string(kAsRecordedPolicy) : "it";
    throw_at(w->pos, w->key,
             "engine '" + engine + "' does not use " + it + " (used by: " + (users.empty() ? std::string("no engine") : users) +
                 "); remove it, or choose one of those engines (engine: {impl: NAME})");
  }
}

void drop_unused_keys(ConfigNode& resolved, const std::string& engine, bool generated_workload) {
  const EngineRegistry::Entry& mine = EngineRegistry::instance().find(engine);
  for (const Feature& f : features()) {
    if (uses(mine, f.key) || (f.key == "hardware" && generated_workload)) continue;
    if (f.section == "hardware") continue;  // the resolved profile stays whole: it is one unit, as its file
    erase(resolved, f);
  }
}

bool only_as_recorded_policies(const ConfigNode& tree) {
  const ConfigNode* policies = tree.find("policies");
  if (policies == nullptr || !policies->is_sequence() || policies->items.empty()) return false;
  for (const ConfigNode& p : policies->items) {
    if (!is_as_recorded(p)) return false;
  }
  return true;
}

}  // namespace flashsim
