// flashsim policies [NAME] [--all]: the registered eviction policies and
// their declared parameters (type, default, range, doc), as SST's sst-info
// lists components. --all adds slot allocators and trace formats.
#include <iostream>
#include <limits>
#include <sstream>
#include <string>

#include "sim/cache/i_slot_allocator.h"
#include "sim/cli/cli_parse.h"
#include "sim/cli/command_registry.h"
#include "sim/core/errors.h"
#include "sim/policy/i_eviction_policy.h"
#include "sim/prefetch/i_prefetcher.h"
#include "traces/trace_formats.h"

namespace flashsim::cli {

namespace {

std::string range_text(const ParamSpec& p) {
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

template <class RegistryT>
void list(std::ostream& out, const char* title, const RegistryT& registry, const std::string& only) {
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

}  // namespace

namespace {

int policies_command(int argc, char** argv) {
  CLI::App app(
      "Lists the registered eviction policies and prefetchers with their parameters\n"
      "(type, default, doc, allowed range); scenarios name them as\n"
      "policies: [{impl: NAME, PARAM: VALUE}] and prefetch: [{impl: NAME, ...}].",
      "flashsim policies");
  std::string only;
  bool all = false;
  app.add_option("name", only, "only this policy or prefetcher");
  app.add_flag("--all", all, "also list slot allocators and trace formats");
  if (!parse_command_line(app, argc, argv)) return 0;
  bool found = only.empty();
  for (const auto* e : PolicyRegistry::instance().entries()) found |= e->name == only;
  for (const auto* e : PrefetcherRegistry::instance().entries()) found |= e->name == only;
  if (!found) throw InputError("no registered eviction policy or prefetcher named '" + only + "'");
  list(std::cout, "eviction policies", PolicyRegistry::instance(), only);
  list(std::cout, "prefetchers (prefetch:)", PrefetcherRegistry::instance(), only);
  if (all) {
    list(std::cout, "slot allocators (cache.allocator)", SlotAllocatorRegistry::instance(), "");
    list(std::cout, "trace formats (workload.format, options under workload.import)", TraceFormatRegistry::instance(), "");
  }
  return 0;
}

}  // namespace

FLASHSIM_REGISTER_COMMAND("policies", "policies [NAME] [--all]",
                          "list the registered eviction policies, prefetchers and their parameters",
                          &policies_command);

}  // namespace flashsim::cli
