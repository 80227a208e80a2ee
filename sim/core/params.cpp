#include "sim/core/params.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "sim/core/errors.h"
#include "sim/core/unit_parse.h"

namespace flashsim {

std::string_view to_string(ParamType type) {
  switch (type) {
    case ParamType::integer: return "integer";
    case ParamType::real: return "real";
    case ParamType::duration: return "duration";
    case ParamType::bytes: return "bytes";
    case ParamType::bandwidth: return "bandwidth";
    case ParamType::text: return "text";
    case ParamType::choice: return "choice";
  }
  return "?";
}

double parse_param_number(const ParamSpec& spec, std::string_view text) {
  switch (spec.type) {
    case ParamType::integer: return static_cast<double>(parse_integer(text));
    case ParamType::real:
      // A fraction (max <= 1) may be written as a share, as capacities are: "10%" = 0.1.
      if (spec.max <= 1.0 && text.ends_with('%')) return parse_real(text.substr(0, text.size() - 1)) / 100.0;
      return parse_real(text);
    case ParamType::duration: return static_cast<double>(parse_duration_ns(text));
    case ParamType::bytes: return static_cast<double>(parse_bytes(text));
    case ParamType::bandwidth: return parse_bandwidth(text);
    case ParamType::text:
    case ParamType::choice: return 0.0;
  }
  return 0.0;
}

std::string describe_param_range(const ParamSpec& spec) {
  const auto bound = [](double x) {
    char text[32];
    // Whole numbers below 1e15 in full (1099511627776, not 1.1e+12); else 1e+18, 0.5.
    if (x > -1e15 && x < 1e15 && x == std::floor(x)) {
      std::snprintf(text, sizeof text, "%.0f", x);
    } else {
      std::snprintf(text, sizeof text, "%.10g", x);
    }
    return std::string(text);
  };
  const char* unit = spec.type == ParamType::duration    ? " ns"
                     : spec.type == ParamType::bytes     ? " B"
                     : spec.type == ParamType::bandwidth ? " B/s"
                                                         : "";
  return "[" + bound(spec.min) + ", " + bound(param_max(spec)) + "]" + unit;
}

namespace {

void validate(std::string_view owner, const ParamSpec& spec, const std::string& value) {
  const std::string where = std::string(owner) + ": parameter '" + spec.name + "' = '" + value + "': ";
  if (spec.type == ParamType::choice &&
      std::find(spec.choices.begin(), spec.choices.end(), value) == spec.choices.end()) {
    std::string allowed;
    for (const auto& c : spec.choices) allowed += (allowed.empty() ? "" : ", ") + c;
    throw InputError(where + "not one of: " + allowed);
  }
  double numeric = 0.0;
  try {
    numeric = parse_param_number(spec, value);
  } catch (const InputError& e) {
    throw InputError(where + e.what());
  }
  const double max = param_max(spec);
  if (numeric < spec.min || numeric > max) {
    throw InputError(where + "out of range " + describe_param_range(spec));
  }
  if (spec.check) {
    try {
      spec.check(value);
    } catch (const InputError& e) {
      throw InputError(where + e.what());
    }
  }
}

}  // namespace

ParamValues ParamValues::resolve(std::string_view owner, const std::vector<ParamSpec>& specs,
                                 const std::map<std::string, std::string>& user) {
  ParamValues out;
  out.owner_ = owner;
  for (const auto& [key, value] : user) {
    const std::string& name = key;  // clang 14 cannot capture a structured binding
    const bool known = std::any_of(specs.begin(), specs.end(), [&](const ParamSpec& s) { return s.name == name; });
    if (!known) {
      std::string names;
      for (const auto& s : specs) names += (names.empty() ? "" : ", ") + s.name;
      throw InputError(std::string(owner) + ": unknown parameter '" + key + "' (known: " +
                       (names.empty() ? "none" : names) + ")");
    }
  }
  for (const auto& spec : specs) {
    auto it = user.find(spec.name);
    const std::string& value = (it != user.end()) ? it->second : spec.default_value;
    validate(owner, spec, value);
    out.text_[spec.name] = value;
  }
  return out;
}

const std::string& ParamValues::raw(std::string_view name) const {
  auto it = text_.find(std::string(name));
  if (it == text_.end()) throw InputError(owner_ + ": parameter '" + std::string(name) + "' was not declared");
  return it->second;
}

std::int64_t ParamValues::integer(std::string_view name) const { return parse_integer(raw(name)); }
double ParamValues::real(std::string_view name) const { return parse_real(raw(name)); }
Nanoseconds ParamValues::duration_ns(std::string_view name) const { return parse_duration_ns(raw(name)); }
ByteCount ParamValues::bytes(std::string_view name) const { return parse_bytes(raw(name)); }
BytesPerSecond ParamValues::bandwidth(std::string_view name) const { return parse_bandwidth(raw(name)); }
const std::string& ParamValues::text(std::string_view name) const { return raw(name); }

}  // namespace flashsim
