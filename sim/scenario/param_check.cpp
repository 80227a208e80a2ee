#include "sim/scenario/param_check.h"

#include <algorithm>
#include <sstream>

#include "sim/core/unit_parse.h"
#include "sim/core/warnings.h"

namespace flashsim {

std::string join_key(std::string_view prefix, std::string_view key) {
  if (prefix.empty()) return std::string(key);
  return std::string(prefix) + "." + std::string(key);
}

void expect_map(const ConfigNode& node, std::string_view key, bool null_ok) {
  if (node.is_map() || (null_ok && node.is_null())) return;
  throw_at(node.pos, key, "wrong type: expected a map (key: value lines), got a " + std::string(node.kind_name()));
}

void expect_sequence(const ConfigNode& node, std::string_view key) {
  if (node.is_sequence()) return;
  throw_at(node.pos, key, "wrong type: expected a list, got a " + std::string(node.kind_name()));
}

const std::string& expect_scalar(const ConfigNode& node, std::string_view key, std::string_view what) {
  if (!node.is_scalar()) {
    throw_at(node.pos, key,
             "wrong type: expected " + std::string(what) + ", got a " + std::string(node.kind_name()));
  }
  return node.scalar;
}

void reject_unknown_keys(const ConfigNode& map, std::string_view prefix, const std::vector<std::string>& known) {
  for (const auto& e : map.entries) {
    if (std::find(known.begin(), known.end(), e.key) != known.end()) continue;
    std::string message = "unknown key";
    const std::string guess = closest_match(e.key, known);
    if (!guess.empty()) message += " (did you mean '" + guess + "'?)";
    std::string list;
    for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
    message += "; known keys" + std::string(prefix.empty() ? "" : " of '" + std::string(prefix) + "'") + ": " +
               (list.empty() ? "none" : list);
    throw_at(e.key_pos, join_key(prefix, e.key), message);
  }
}

namespace {

std::string describe_type(const ParamSpec& spec) {
  switch (spec.type) {
    case ParamType::integer: return "an integer";
    case ParamType::real: return "a number";
    case ParamType::duration: return "a duration (e.g. 142ns, 4.5us)";
    case ParamType::bytes: return "a size (e.g. 2MiB)";
    case ParamType::bandwidth: return "a bandwidth (e.g. 55GB/s)";
    case ParamType::text: return "a text";
    case ParamType::choice: {
      std::string s = "one of ";
      for (std::size_t i = 0; i < spec.choices.size(); ++i) s += (i ? ", " : "") + spec.choices[i];
      return s;
    }
  }
  return "a value";
}

}  // namespace

void check_param_value(const ConfigNode& node, std::string_view key, const ParamSpec& spec) {
  const std::string& text = expect_scalar(node, key, describe_type(spec));
  if (spec.type == ParamType::choice &&
      std::find(spec.choices.begin(), spec.choices.end(), text) == spec.choices.end()) {
    std::string message = "'" + text + "' is not " + describe_type(spec);
    const std::string guess = closest_match(text, spec.choices);
    if (!guess.empty()) message += " (did you mean '" + guess + "'?)";
    throw_at(node.pos, key, message);
  }
  double numeric = 0.0;
  try {
    numeric = parse_param_number(spec, text);
  } catch (const UnitError& e) {
    throw_at<UnitError>(node.pos, key, std::string(e.what()) + "; expected " + describe_type(spec));
  }
  if (numeric < spec.min || numeric > param_max(spec)) {
    throw_at(node.pos, key,
             "value '" + text + "' out of range " + describe_param_range(spec));
  }
  if (spec.check) {
    try {
      spec.check(text);
    } catch (const InputError& e) {
      throw_at(node.pos, key, e.what());
    }
  }
  // A bare number has a plain reading (ns, B/s) that is rarely what was meant.
  const bool bare = text.find_first_not_of("0123456789.eE+- ") == std::string::npos;
  if (bare && numeric != 0.0 && (spec.type == ParamType::duration || spec.type == ParamType::bandwidth)) {
    const bool duration = spec.type == ParamType::duration;
    warn(node.pos.describe() + ": key '" + std::string(key) + "': the bare number " + text + " is read as " + text +
         (duration ? " ns; write the unit (" + text + "ns, " + text + "us, " + text + "ms) to say which"
                   : " bytes/s; write the unit (" + text + "GB/s, " + text + "MB/s) to say which"));
  }
}

std::map<std::string, std::string> scalar_entries(const ConfigNode& map, const std::vector<std::string>& extra_keys) {
  std::map<std::string, std::string> out;
  for (const auto& e : map.entries) {
    if (std::find(extra_keys.begin(), extra_keys.end(), e.key) != extra_keys.end()) continue;
    if (e.value.is_scalar()) out[e.key] = e.value.scalar;
  }
  return out;
}

std::vector<std::string> spec_names(const std::vector<ParamSpec>& specs) {
  std::vector<std::string> names;
  names.reserve(specs.size());
  for (const auto& s : specs) names.push_back(s.name);
  return names;
}

ParamValues resolve_params(const ConfigNode& map, std::string_view prefix, std::string_view owner,
                           const std::vector<ParamSpec>& specs, const std::vector<std::string>& extra_keys) {
  expect_map(map, prefix);
  std::vector<std::string> known = spec_names(specs);
  known.insert(known.end(), extra_keys.begin(), extra_keys.end());
  reject_unknown_keys(map, prefix, known);
  std::map<std::string, std::string> user;
  for (const auto& e : map.entries) {
    if (std::find(extra_keys.begin(), extra_keys.end(), e.key) != extra_keys.end()) continue;
    const auto spec = std::find_if(specs.begin(), specs.end(), [&](const ParamSpec& s) { return s.name == e.key; });
    check_param_value(e.value, join_key(prefix, e.key), *spec);
    user[e.key] = e.value.scalar;
    if (spec->type == ParamType::real && e.value.scalar.ends_with('%')) {
      std::ostringstream fraction;  // "10%" -> "0.1": what ParamValues::real reads
      fraction << parse_param_number(*spec, e.value.scalar);
      user[e.key] = fraction.str();
    }
  }
  try {
    return ParamValues::resolve(owner, specs, user);
  } catch (const InputError& e) {
    // Only a bad declared default can fail here (user values were checked).
    throw_at(map.pos, prefix, e.what());
  }
}

ConfigNode resolved_node(const std::vector<ParamSpec>& specs, const ParamValues& values) {
  ConfigNode out = ConfigNode::make_map();
  for (const auto& s : specs) out.set(s.name, ConfigNode::make_scalar(values.text(s.name)));
  return out;
}

}  // namespace flashsim
