#include "sim/scenario/hardware_loader.h"

#include <filesystem>
#include <map>
#include <mutex>
#include <string>
#include <system_error>
#include <tuple>

#include "sim/policy/i_eviction_policy.h"
#include "sim/core/unit_parse.h"
#include "sim/scenario/component_parse.h"
#include "sim/scenario/embedded_files.h"
#include "sim/scenario/param_check.h"

#ifndef FLASHSIM_SCENARIOS_DIR
#define FLASHSIM_SCENARIOS_DIR ""
#endif

namespace flashsim {

namespace {

constexpr int kMaxProfileDepth = 8;

const std::vector<ParamSpec>& profile_specs() {
  static const std::vector<ParamSpec> specs = {
      {"name", ParamType::text, "", "profile name", -1e300, 1e300, {}},
      {"source", ParamType::text, "", "where the numbers come from (citation)", -1e300, 1e300, {}},
      {"miss_penalty", ParamType::duration, "0ns",
       "fixed cost of a fast-tier miss before the transfer (seed 000 §2: 142 ns)", 0, kMaxPerAccessDurationNs, {}},
  };
  return specs;
}

bool is_file(const std::filesystem::path& p) {
  std::error_code ec;
  return std::filesystem::is_regular_file(p, ec);
}

std::string builtin_list() {
  std::string list;
  for (const auto& n : embedded_hardware_names()) list += (list.empty() ? "" : ", ") + n;
  return list.empty() ? "none" : list;
}

ConfigNode load_tree(std::string_view ref_view, const std::filesystem::path& base_dir, const SourcePos& pos, int depth);

// Applies the tree's own `profile:` (inheritance), then drops the key.
ConfigNode flatten(ConfigNode tree, const std::filesystem::path& dir, int depth) {
  expect_map(tree, "hardware", false);
  if (const ConfigNode* parent_ref = tree.find("profile")) {
    const std::string& ref = expect_scalar(*parent_ref, "hardware.profile", "a profile name or path");
    ConfigNode base = load_tree(ref, dir, parent_ref->pos, depth + 1);
    tree.erase("profile");
    merge_into(base, tree);
    return base;
  }
  return tree;
}

/// A profile file parsed once per process (and again when its size or time
/// changes): every point of a sweep resolves its hardware, and YAML parsing
/// was most of a point's milliseconds.
ConfigNode parse_profile_file(const std::filesystem::path& path) {
  static std::mutex mutex;
  static std::map<std::tuple<std::string, std::uintmax_t, std::filesystem::file_time_type::rep>, ConfigNode> parsed;
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  const auto mtime = std::filesystem::last_write_time(path, ec).time_since_epoch().count();
  if (ec) return parse_yaml_file(path);
  const auto key = std::make_tuple(path.string(), size, mtime);
  {
    std::lock_guard lock(mutex);
    if (auto it = parsed.find(key); it != parsed.end()) return it->second;
  }
  ConfigNode tree = parse_yaml_file(path);
  std::lock_guard lock(mutex);
  return parsed.emplace(key, std::move(tree)).first->second;
}

ConfigNode load_tree(std::string_view ref_view, const std::filesystem::path& base_dir, const SourcePos& pos, int depth) {
  const std::string ref(ref_view);
  if (depth > kMaxProfileDepth) throw_at(pos, "hardware.profile", "profiles inherit too deeply (a cycle?) at '" + ref + "'");
  if (ref.empty()) throw_at(pos, "hardware.profile", "empty profile name");

  const bool builtin_only = ref.starts_with("builtin:");
  const std::string name = builtin_only ? ref.substr(8) : ref;
  if (!builtin_only) {
    std::vector<std::filesystem::path> candidates;
    const std::filesystem::path as_path(name);
    candidates.push_back(base_dir / as_path);
    if (as_path.extension() != ".yaml") candidates.push_back(base_dir / (name + ".yaml"));
    const std::filesystem::path repo = std::filesystem::path(FLASHSIM_SCENARIOS_DIR) / "hardware";
    if (!std::string_view(FLASHSIM_SCENARIOS_DIR).empty() && as_path.is_relative()) {
      candidates.push_back(repo / as_path.filename());
      if (as_path.extension() != ".yaml") candidates.push_back(repo / (as_path.filename().string() + ".yaml"));
    }
    for (const auto& c : candidates) {
      if (is_file(c)) return flatten(parse_profile_file(c), c.parent_path(), depth);
    }
  }
  std::string embedded_name = std::filesystem::path(name).filename().string();
  if (const EmbeddedFile* f = find_embedded_hardware(embedded_name)) {
    return flatten(parse_yaml_text(f->data, "<builtin:" + std::string(f->path) + ">"), {}, depth);
  }
  throw_at(pos, "hardware.profile",
           "hardware profile '" + ref + "' not found (looked beside the scenario and among the built-in profiles: " +
               builtin_list() + ")");
}

TierSpec tier_from(const ParamValues& v) {
  TierSpec t;
  t.name = v.text("name");
  t.capacity_bytes = v.bytes("capacity");
  t.hit_latency_ns = v.duration_ns("hit_latency");
  t.policy = v.text("policy");
  return t;
}

TierSpec resolve_tier(const ConfigNode& node, const std::string& key, std::size_t index, std::size_t count,
                      ConfigNode& resolved) {
  expect_map(node, key, false);
  // `policy` may be a map {impl, params}; the declared spec sees only the name.
  ConfigNode scalars = node;
  const ConfigNode* policy = node.find("policy");
  ResolvedComponent policy_choice;
  const bool intermediate = index > 0 && index + 1 < count;
  if (policy && (policy->is_map() || intermediate)) {
    policy_choice = resolve_component(*policy, join_key(key, "policy"), "policy", PolicyRegistry::instance());
    scalars.set("policy", ConfigNode::make_scalar(policy_choice.choice.impl, policy->pos));
  }
  const auto& specs = TierSpec::param_specs();
  const ParamValues values = resolve_params(scalars, key, "tier " + std::to_string(index), specs, {"link"});
  TierSpec tier = tier_from(values);
  if (policy_choice.choice.impl == tier.policy) tier.policy_params = policy_choice.choice.params;
  resolved = resolved_node(specs, values);
  if (!tier.policy_params.empty()) resolved.set("policy", policy_choice.resolved);

  if (const ConfigNode* link = node.find("link")) {
    const ParamValues lv = resolve_params(*link, join_key(key, "link"), "link", LinkSpec::param_specs());
    tier.link_to_faster = LinkSpec::from(lv);
    resolved.set("link", resolved_node(LinkSpec::param_specs(), lv));
  } else if (index > 0) {
    const ParamValues lv = ParamValues::resolve("link", LinkSpec::param_specs(), {});
    tier.link_to_faster = LinkSpec::from(lv);
    resolved.set("link", resolved_node(LinkSpec::param_specs(), lv));
  }
  return tier;
}

template <class Spec>
Spec resolve_part(const ConfigNode& hw, const char* part, ConfigNode& resolved) {
  const ConfigNode empty = ConfigNode::make_map(hw.pos);
  const ConfigNode* node = hw.find(part);
  const std::string key = join_key("hardware", part);
  const ParamValues v = resolve_params(node && !node->is_null() ? *node : empty, key, part, Spec::param_specs());
  resolved.set(part, resolved_node(Spec::param_specs(), v));
  try {
    return Spec::from(v);  // cross-parameter checks (e.g. L2 line vs sector size)
  } catch (const InputError& e) {
    throw_at(node ? sources_of(*node) : hw.pos, key, e.what());
  }
}

// The execution: section: scalar keys plus three lists of [bytes, ns] points.
ExecutionSpec resolve_execution(const ConfigNode& hw, ConfigNode& resolved) {
  const ConfigNode* node = hw.find("execution");
  const ConfigNode empty = ConfigNode::make_map(hw.pos);
  const ConfigNode& map = node && !node->is_null() ? *node : empty;
  const std::vector<std::string> lists = {"pageable_h2d_points", "pageable_d2h_points", "pageable_d2h_fresh_points"};
  const ParamValues v = resolve_params(map, "hardware.execution", "execution", ExecutionSpec::param_specs(), lists);
  ExecutionSpec spec;
  try {
    spec = ExecutionSpec::from(v);
  } catch (const InputError& e) {
    throw_at(sources_of(map), "hardware.execution", e.what());
  }
  spec.calibrated = node != nullptr && !node->is_null();
  ConfigNode r = resolved_node(ExecutionSpec::param_specs(), v);
  for (const std::string& name : lists) {
    const ConfigNode* list = map.find(name);
    if (list == nullptr) continue;
    const std::string key = "hardware.execution." + name;
    if (!list->is_sequence()) throw_at(list->pos, key, "expected a list of [bytes, ns] pairs");
    std::vector<std::pair<double, double>> points;
    for (const ConfigNode& item : list->items) {
      if (!item.is_sequence() || item.items.size() != 2 || !item.items[0].is_scalar() || !item.items[1].is_scalar()) {
        throw_at(item.pos, key, "each point is a pair [bytes, ns]");
      }
      try {
        points.emplace_back(parse_real(item.items[0].scalar), parse_real(item.items[1].scalar));
      } catch (const InputError&) {
        throw_at(item.pos, key,
                 "'" + item.items[0].scalar + "', '" + item.items[1].scalar + "' are not plain numbers (bytes, ns)");
      }
    }
    try {
      CopyCurve& curve = name == lists[0] ? spec.pageable_h2d : name == lists[1] ? spec.pageable_d2h : spec.pageable_d2h_fresh;
      curve = make_copy_curve(std::move(points), key);
    } catch (const InputError& e) {
      throw_at(list->pos, key, e.what());
    }
    r.set(name, *list);
  }
  resolved.set("execution", std::move(r));
  return spec;
}

HardwareProfile resolve_flat(const ConfigNode& hw, ConfigNode& resolved) {
  const std::vector<std::string> parts = {"tiers", "tlb", "l2", "contention", "compute", "execution"};
  const ParamValues top = resolve_params(hw, "hardware", "hardware", profile_specs(), parts);
  HardwareProfile profile;
  profile.name = top.text("name");
  profile.source = top.text("source");
  profile.miss_penalty_ns = top.duration_ns("miss_penalty");
  resolved = resolved_node(profile_specs(), top);

  const ConfigNode* tiers = hw.find("tiers");
  if (!tiers) throw_at(hw.pos, "hardware", "missing key 'tiers' (fast tier first, then the backing tier)");
  expect_sequence(*tiers, "hardware.tiers");
  if (tiers->items.size() < 2) {
    throw_at(tiers->pos, "hardware.tiers",
             "needs at least two tiers (the fast tier and a backing tier), got " + std::to_string(tiers->items.size()));
  }
  ConfigNode resolved_tiers = ConfigNode::make_sequence();
  for (std::size_t i = 0; i < tiers->items.size(); ++i) {
    ConfigNode r;
    profile.tiers.push_back(
        resolve_tier(tiers->items[i], "hardware.tiers." + std::to_string(i), i, tiers->items.size(), r));
    resolved_tiers.items.push_back(std::move(r));
  }
  resolved.set("tiers", std::move(resolved_tiers));
  profile.tlb = resolve_part<TlbSpec>(hw, "tlb", resolved);
  profile.l2 = resolve_part<L2Spec>(hw, "l2", resolved);
  profile.contention = resolve_part<ContentionSpec>(hw, "contention", resolved);
  profile.compute = resolve_part<ComputeSpec>(hw, "compute", resolved);
  profile.execution = resolve_execution(hw, resolved);
  return profile;
}

}  // namespace

ConfigNode load_hardware_profile_tree(std::string_view ref, const std::filesystem::path& base_dir, const SourcePos& pos) {
  return load_tree(ref, base_dir, pos, 0);
}

HardwareProfile resolve_hardware(const ConfigNode* node, const std::filesystem::path& base_dir, ConfigNode& resolved) {
  ConfigNode tree;
  if (!node || node->is_null()) {
    tree = load_tree(kDefaultHardwareProfile, base_dir, node ? node->pos : SourcePos{"<default>", 0, 0}, 0);
  } else {
    expect_map(*node, "hardware", false);
    ConfigNode given = *node;
    // A hardware: section that --set made (a scenario without one) overrides
    // the default profile the scenario ran on; it is no inline profile.
    if (given.pos.line == 0 && !given.find("profile") && !given.find("tiers")) {
      given.set("profile", ConfigNode::make_scalar(std::string(kDefaultHardwareProfile), given.pos), given.pos);
    }
    tree = flatten(std::move(given), base_dir, 0);
  }
  return resolve_flat(tree, resolved);
}

HardwareProfile load_hardware_profile(std::string_view ref, const std::filesystem::path& base_dir) {
  ConfigNode resolved;
  const ConfigNode tree = load_tree(ref, base_dir, SourcePos{"hardware profile '" + std::string(ref) + "'", 0, 0}, 0);
  return resolve_flat(tree, resolved);
}

}  // namespace flashsim
