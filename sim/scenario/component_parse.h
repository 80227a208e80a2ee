// A registered component in YAML: `{impl: NAME, param: value, ...}`, or the
// bare name as shorthand (`lru`). The name is looked up in its registry
// (PolicyRegistry, SlotAllocatorRegistry) and the params are checked against
// that entry's declared ParamSpecs.
#pragma once
#include <map>
#include <string>
#include <string_view>

#include "sim/engine/engine.h"
#include "sim/scenario/config_tree.h"
#include "sim/scenario/param_check.h"

namespace flashsim {

struct ResolvedComponent {
  ComponentChoice choice;                          ///< name + every param (defaults filled in)
  std::map<std::string, std::string> user_params;  ///< what the YAML wrote
  ConfigNode resolved;                             ///< {impl: NAME, every param}
};

/// "a policy", "an admission policy": the article of a component kind.
inline std::string with_article(std::string_view what) {
  const bool vowel = !what.empty() && std::string_view("aeiou").find(what.front()) != std::string_view::npos;
  return (vowel ? "an " : "a ") + std::string(what);
}

/// Throws UnknownNameError at `pos` for a name `registry` lacks, with a
/// "did you mean" and the registered names.
template <class RegistryT>
const typename RegistryT::Entry& find_component(const RegistryT& registry, const std::string& name, const SourcePos& pos,
                                                std::string_view key, std::string_view what) {
  std::vector<std::string> names;
  for (const auto* e : registry.entries()) {
    if (e->name == name) return *e;
    names.push_back(e->name);
  }
  std::string message = "unknown " + std::string(what) + " '" + name + "'";
  const std::string guess = closest_match(name, names);
  if (!guess.empty()) message += " (did you mean '" + guess + "'?)";
  std::string list;
  for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
  message += "; registered: " + (list.empty() ? std::string("none") : list);
  throw_at<UnknownNameError>(pos, key, message);
}

/// Resolves `node` (a map with `impl`, or a scalar name) against `registry`.
/// `key` is the node's dotted path; `what` names the kind ("policy").
/// Throws InputError / UnitError / UnknownNameError at the offending text.
template <class RegistryT>
ResolvedComponent resolve_component(const ConfigNode& node, std::string_view key, std::string_view what,
                                    const RegistryT& registry) {
  ResolvedComponent out;
  const ConfigNode* impl_node = &node;
  std::string impl_key(key);
  if (node.is_map()) {
    impl_node = node.find("impl");
    impl_key = join_key(key, "impl");
    if (!impl_node) throw_at(node.pos, key, "missing key 'impl' (the registered name of the " + std::string(what) + ")");
  } else if (!node.is_scalar()) {
    throw_at(node.pos, key,
             "wrong type: expected a map {impl: NAME, ...} or " + with_article(what) + " name, got a " +
                 std::string(node.kind_name()));
  }
  const std::string& name = expect_scalar(*impl_node, impl_key, with_article(what) + " name");
  const auto& entry = find_component(registry, name, impl_node->pos, impl_key, what);
  ParamValues values;
  if (node.is_map()) {
    values = resolve_params(node, key, std::string(what) + " " + name, entry.params, {"impl"});
    out.user_params = scalar_entries(node, {"impl"});
  } else {
    values = resolve_params(ConfigNode::make_map(node.pos), key, std::string(what) + " " + name, entry.params);
  }
  out.choice.impl = name;
  out.choice.params = values.resolved_text();
  out.resolved = ConfigNode::make_map();
  out.resolved.set("impl", ConfigNode::make_scalar(name));
  for (const auto& e : resolved_node(entry.params, values).entries) out.resolved.set(e.key, e.value);
  return out;
}

}  // namespace flashsim
