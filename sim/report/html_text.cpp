#include "sim/report/html_text.h"

#include <cmath>
#include <cstdio>

namespace flashsim::report {

namespace {
constexpr const char* kNone = "\u2014";  // em dash: no value

std::string printf_text(const char* format, double v) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, format, v);
  return buffer;
}

std::string non_finite(double v) { return std::isnan(v) ? "nan" : (v > 0 ? "inf" : "-inf"); }
}  // namespace

std::string html_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string format_value(std::optional<double> value) {
  if (!value) return kNone;
  const double v = *value;
  if (!std::isfinite(v)) return non_finite(v);
  if (std::fabs(v) >= 1000 && std::fabs(v) < 1e15) return printf_text("%.0f", v);
  return printf_text("%.6g", v);
}

std::string format_percent(std::optional<double> fraction, int decimals) {
  if (!fraction) return kNone;
  if (!std::isfinite(*fraction)) return non_finite(*fraction);
  char format[16];
  std::snprintf(format, sizeof format, "%%.%df%%%%", decimals);
  return printf_text(format, 100.0 * *fraction);
}

std::string format_fixed(std::optional<double> value, int decimals) {
  if (!value) return kNone;
  if (!std::isfinite(*value)) return non_finite(*value);
  char format[16];
  std::snprintf(format, sizeof format, "%%.%df", decimals);
  return printf_text(format, *value);
}

}  // namespace flashsim::report
