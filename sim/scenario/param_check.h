// Checks a YAML map against a component's declared parameters (ParamSpec),
// so that every error names the file, line and column of the bad text and
// the full dotted key: unknown keys (with a "did you mean"), wrong node
// types, bad units, out-of-range values.
#pragma once
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/params.h"
#include "sim/scenario/config_tree.h"

namespace flashsim {

/// Joins a key path: join_key("cache", "capacity") == "cache.capacity".
std::string join_key(std::string_view prefix, std::string_view key);

/// Throws InputError at `node` unless it is a map (null counts as an empty
/// map when `null_ok`). `key` is the node's dotted path.
void expect_map(const ConfigNode& node, std::string_view key, bool null_ok = true);
/// Throws InputError at `node` unless it is a list.
void expect_sequence(const ConfigNode& node, std::string_view key);
/// Throws InputError at `node` unless it is a scalar; returns its text.
/// `what` describes the expected value in the message ("a duration, e.g. 142ns").
const std::string& expect_scalar(const ConfigNode& node, std::string_view key, std::string_view what = "a value");

/// Throws InputError at the first key of `map` that is not in `known`,
/// with a "did you mean" suggestion and the list of known keys.
void reject_unknown_keys(const ConfigNode& map, std::string_view prefix, const std::vector<std::string>& known);

/// Checks one scalar value against `spec` (type, unit, choices, range).
/// Throws UnitError (unparsable number or unit) or InputError (not a
/// choice, out of range, not a scalar) at the node's position.
void check_param_value(const ConfigNode& node, std::string_view key, const ParamSpec& spec);

/// Validates the entries of `map` (keys in `specs`, plus `extra_keys`
/// that the caller handles itself and that are skipped here) and resolves
/// them with defaults. `prefix` is the map's dotted path; `owner` names the
/// component in ParamValues' own messages. Throws as above.
ParamValues resolve_params(const ConfigNode& map, std::string_view prefix, std::string_view owner,
                           const std::vector<ParamSpec>& specs, const std::vector<std::string>& extra_keys = {});

/// The user-given entries of `map` (scalars only, `extra_keys` skipped) as key → text.
std::map<std::string, std::string> scalar_entries(const ConfigNode& map, const std::vector<std::string>& extra_keys = {});

/// A map node holding `values` in the order of `specs` (the resolved form
/// of a component, every default filled in).
ConfigNode resolved_node(const std::vector<ParamSpec>& specs, const ParamValues& values);

/// Names of `specs`, in order.
std::vector<std::string> spec_names(const std::vector<ParamSpec>& specs);

}  // namespace flashsim
