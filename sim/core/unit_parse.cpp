#include "sim/core/unit_parse.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <string>
#include <utility>

#include "sim/core/errors.h"

namespace flashsim {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// Splits "1.5 GiB" into 1.5 and "GiB". Throws UnitError when no number leads.
std::pair<double, std::string_view> split_number(std::string_view text, std::string_view what) {
  const std::string_view t = trim(text);
  double value = 0.0;
  const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), value);
  if (ec != std::errc() || end == t.data()) {
    throw UnitError("cannot parse " + std::string(what) + " '" + std::string(text) + "': no number");
  }
  return {value, trim(std::string_view(end, static_cast<std::size_t>(t.data() + t.size() - end)))};
}

struct UnitFactor {
  std::string_view suffix;
  double factor;
};

double lookup(std::string_view unit, std::initializer_list<UnitFactor> table, std::string_view text,
              std::string_view what) {
  for (const auto& u : table) {
    if (unit == u.suffix) return u.factor;
  }
  std::string accepted;
  for (const auto& u : table) {
    if (!u.suffix.empty()) accepted += (accepted.empty() ? "" : ", ") + std::string(u.suffix);
  }
  throw UnitError("cannot parse " + std::string(what) + " '" + std::string(text) + "': unknown unit '" +
                  std::string(unit) + "' (accepted: " + accepted + ")");
}

std::int64_t to_whole(double value, std::string_view text, std::string_view what) {
  if (!std::isfinite(value) || value < 0 || value > 9.2e18) {
    throw UnitError(std::string(what) + " '" + std::string(text) + "' is negative or out of range");
  }
  const double rounded = std::round(value);
  if (std::fabs(rounded - value) > 1e-6 * std::max(1.0, value)) {
    throw UnitError(std::string(what) + " '" + std::string(text) + "' is not a whole number of " +
                    (what == "duration" ? "nanoseconds" : "bytes"));
  }
  return static_cast<std::int64_t>(rounded);
}

}  // namespace

Nanoseconds parse_duration_ns(std::string_view text) {
  const auto [value, unit] = split_number(text, "duration");
  const double f = lookup(unit,
                          {{"", 1.0},
                           {"ns", 1.0},
                           {"us", 1e3},
                           {"\xC2\xB5s", 1e3},  // µs
                           {"ms", 1e6},
                           {"s", 1e9},
                           {"min", 60e9}},
                          text, "duration");
  return to_whole(value * f, text, "duration");
}

ByteCount parse_bytes(std::string_view text) {
  const auto [value, unit] = split_number(text, "size");
  const double f = lookup(unit,
                          {{"", 1.0},
                           {"B", 1.0},
                           {"KB", 1e3},
                           {"kB", 1e3},
                           {"MB", 1e6},
                           {"GB", 1e9},
                           {"TB", 1e12},
                           {"KiB", 1024.0},
                           {"MiB", 1048576.0},
                           {"GiB", 1073741824.0},
                           {"TiB", 1099511627776.0}},
                          text, "size");
  return static_cast<ByteCount>(to_whole(value * f, text, "size"));
}

BytesPerSecond parse_bandwidth(std::string_view text) {
  const auto [value, unit] = split_number(text, "bandwidth");
  const double f = lookup(unit,
                          {{"", 1.0},
                           {"B/s", 1.0},
                           {"KB/s", 1e3},
                           {"MB/s", 1e6},
                           {"GB/s", 1e9},
                           {"TB/s", 1e12},
                           {"KiB/s", 1024.0},
                           {"MiB/s", 1048576.0},
                           {"GiB/s", 1073741824.0}},
                          text, "bandwidth");
  const double bw = value * f;
  if (!(bw > 0) || !std::isfinite(bw)) {
    throw UnitError("bandwidth '" + std::string(text) + "' must be positive");
  }
  return bw;
}

double parse_real(std::string_view text) {
  const auto [value, rest] = split_number(text, "number");
  if (!rest.empty()) throw UnitError("cannot parse number '" + std::string(text) + "': trailing '" + std::string(rest) + "'");
  if (!std::isfinite(value)) throw UnitError("number '" + std::string(text) + "' is not finite");
  return value;
}

std::int64_t parse_integer(std::string_view text) {
  const std::string_view t = trim(text);
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), value);
  if (ec == std::errc::result_out_of_range) throw UnitError("integer '" + std::string(text) + "' is out of range");
  if (ec != std::errc() || end != t.data() + t.size() || t.empty()) {
    throw UnitError("cannot parse integer '" + std::string(text) + "'");
  }
  return value;
}

}  // namespace flashsim
