// Declared parameters: each tunable of a component (policy, allocator, ...)
// is declared once, next to it, with type, default, range and doc
// (STYLE.md §4). Defaults go through the same parser as user values, unknown
// keys and out-of-range values are errors naming the full key.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/units.h"

namespace flashsim {

enum class ParamType { integer, real, duration, bytes, bandwidth, text, choice };

/// Largest value of any duration parameter (2^40 ns, 18.3 minutes; applied
/// on top of each spec's max): sums of durations stay far from 2^63 ns.
inline constexpr double kMaxDurationParamNs = 1099511627776.0;
/// Largest latency or gap charged per access (1 s; a PCIe or NVMe round trip
/// is microseconds): a run of 10^9 accesses cannot overflow its stall sum.
inline constexpr double kMaxPerAccessDurationNs = 1e9;
std::string_view to_string(ParamType type);

struct ParamSpec {
  std::string name;           ///< key as written in YAML, snake_case
  ParamType type;
  std::string default_value;  ///< text, parsed like a user value
  std::string doc;            ///< one line; cite the source of a constant
  double min = -1e300;        ///< inclusive bounds for numeric types (in the type's unit: ns, bytes, bytes/s)
  double max = 1e300;
  std::vector<std::string> choices;  ///< allowed values for ParamType::choice
  /// A rule of the component's own for a text value (e.g. "measured or a
  /// duration"): throws InputError saying why `text` is refused. Called
  /// wherever the value is checked (the YAML at its line, ParamValues::resolve),
  /// so that a bad value is refused when the scenario is read, not when it runs.
  std::function<void(const std::string& text)> check = nullptr;
};

/// The largest value `spec` accepts: spec.max, and for a duration at most
/// kMaxDurationParamNs.
inline double param_max(const ParamSpec& spec) {
  return spec.type == ParamType::duration && spec.max > kMaxDurationParamNs ? kMaxDurationParamNs : spec.max;
}

/// The accepted range of a numeric `spec` for messages, with the unit its
/// values are read in: "[1e+06, 1e+18] B/s", "[0, 1099511627776] ns",
/// "[1, 4096] B"; a plain number type has no unit.
std::string describe_param_range(const ParamSpec& spec);

/// The numeric value of `text` read as `spec.type`, in the type's unit (ns,
/// bytes, bytes/s, or the number itself); 0 for text and choice parameters.
/// Throws UnitError when it does not parse. Range and choices are not checked.
double parse_param_number(const ParamSpec& spec, std::string_view text);

/// The resolved values of one component's parameters.
class ParamValues {
 public:
  ParamValues() = default;

  /// Validates `user` (key → value text) against `specs` and fills defaults.
  /// `owner` prefixes keys in error messages (e.g. "policy mlru").
  /// Throws InputError on an unknown key (listing the known ones), an
  /// unparsable value or a value outside [min, max].
  static ParamValues resolve(std::string_view owner, const std::vector<ParamSpec>& specs,
                             const std::map<std::string, std::string>& user);

  /// Typed getters; throw InputError if `name` was not declared.
  std::int64_t integer(std::string_view name) const;
  double real(std::string_view name) const;
  Nanoseconds duration_ns(std::string_view name) const;
  ByteCount bytes(std::string_view name) const;
  BytesPerSecond bandwidth(std::string_view name) const;
  const std::string& text(std::string_view name) const;  ///< also for choice

  /// Every parameter as resolved text (defaults included), for writing the
  /// resolved scenario next to results.
  const std::map<std::string, std::string>& resolved_text() const { return text_; }

 private:
  const std::string& raw(std::string_view name) const;
  std::string owner_;
  std::map<std::string, std::string> text_;
};

}  // namespace flashsim
