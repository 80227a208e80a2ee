// Prints a component registry (sim/core/registry.h) as `flashsim policies`
// does, SST sst-info style: each entry's name, summary and declared
// parameters (type, default, doc, allowed range). Shared by the commands that
// list policies, prefetchers, allocators, trace formats and generators.
#pragma once
#include <algorithm>
#include <limits>
#include <ostream>
#include <sstream>
#include <string>

#include "sim/core/params.h"

namespace flashsim::cli {

/// "a|b|c" for a choice, "[min, max]" for a bounded number, "" otherwise.
inline std::string range_text(const ParamSpec& p) {
  if (p.type == ParamType::choice) {
    std::string s;
    for (const auto& c : p.choices) s += (s.empty() ? "" : "|") + c;
    return s;
  }
  if (p.type == ParamType::text) return "";
  const bool low = p.min > -1e299;
  const bool high = p.max < 1e299;
  if (!low && !high) return "";
  std::ostringstream out;
  constexpr double inf = std::numeric_limits<double>::infinity();
  out << "[" << (low ? p.min : -inf) << ", " << (high ? p.max : inf) << "]";
  return out.str();
}

/// Lists `registry` under `title`; `only` keeps one entry (nothing is
/// printed when it names none).
template <class RegistryT>
void list_registry(std::ostream& out, const char* title, const RegistryT& registry, const std::string& only = "") {
  bool any = false;
  bool matches = only.empty();
  for (const auto* e : registry.entries()) matches |= e->name == only;
  if (!matches) return;
  out << title << ":\n";
  for (const auto* e : registry.entries()) {
    if (!only.empty() && e->name != only) continue;
    any = true;
    out << "\n  " << e->name << " — " << e->summary << "\n";
    if (e->params.empty()) {
      out << "      (no parameters)\n";
      continue;
    }
    std::size_t name_width = 0, type_width = 0, default_width = 0;
    for (const auto& p : e->params) {
      name_width = std::max(name_width, p.name.size());
      type_width = std::max(type_width, to_string(p.type).size());
      default_width = std::max(default_width, p.default_value.size() + 2);
    }
    for (const auto& p : e->params) {
      const std::string def = "\"" + p.default_value + "\"";
      out << "      " << p.name << std::string(name_width - p.name.size() + 2, ' ') << to_string(p.type)
          << std::string(type_width - to_string(p.type).size() + 2, ' ') << def
          << std::string(default_width - def.size() + 2, ' ') << p.doc;
      const std::string range = range_text(p);
      if (!range.empty()) out << " " << range;
      out << "\n";
    }
  }
  if (!any && only.empty()) out << "  (none)\n";
  if (any || only.empty()) out << "\n";
}


}  // namespace flashsim::cli
