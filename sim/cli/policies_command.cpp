// flashsim policies [NAME] [--all]: the registered eviction policies and
// their declared parameters (type, default, range, doc), as SST's sst-info
// lists components. --all adds slot allocators and trace formats.
#include <boost/program_options.hpp>
#include <iostream>
#include <limits>
#include <sstream>
#include <string>

#include "sim/cache/i_slot_allocator.h"
#include "sim/cli/commands.h"
#include "sim/core/errors.h"
#include "sim/policy/i_eviction_policy.h"
#include "traces/trace_formats.h"

namespace po = boost::program_options;

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
  if (!any && !only.empty()) throw InputError("no registered " + std::string(title) + " named '" + only + "'");
  out << "\n";
}

}  // namespace

int policies_command(int argc, char** argv) {
  po::options_description visible(
      "usage: flashsim policies [NAME] [--all]\n\n"
      "Lists the registered eviction policies with their parameters (type, default,\n"
      "doc, allowed range); scenarios name them as policies: [{impl: NAME, PARAM: VALUE}].\n\noptions");
  visible.add_options()("help,h", "this help")("all", "also list slot allocators and trace formats");
  po::options_description hidden;
  hidden.add_options()("name", po::value<std::string>());
  po::options_description all;
  all.add(visible).add(hidden);
  po::positional_options_description positional;
  positional.add("name", 1);
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(argc, argv).options(all).positional(positional).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    throw InputError(std::string(e.what()) + " (flashsim policies --help)");
  }
  if (vm.count("help")) {
    std::cout << visible << "\n";
    return 0;
  }
  const std::string only = vm.count("name") ? vm["name"].as<std::string>() : "";
  list(std::cout, "eviction policies", PolicyRegistry::instance(), only);
  if (vm.count("all")) {
    list(std::cout, "slot allocators (cache.allocator)", SlotAllocatorRegistry::instance(), "");
    list(std::cout, "trace formats (workload.format, options under workload.import)", TraceFormatRegistry::instance(), "");
  }
  return 0;
}

}  // namespace flashsim::cli
