// flashsim policies [NAME] [--all]: the registered eviction policies and
// their declared parameters (type, default, range, doc), as SST's sst-info
// lists components. --all adds slot allocators and trace formats.
#include "sim/engine/engine_registry.h"
#include <iostream>
#include <limits>
#include <sstream>
#include <string>

#include "sim/cache/i_admission_policy.h"
#include "sim/cache/i_slot_allocator.h"
#include "sim/cli/cli_parse.h"
#include "sim/cli/command_registry.h"
#include "sim/cli/registry_listing.h"
#include "sim/core/errors.h"
#include "sim/policy/i_eviction_policy.h"
#include "sim/prefetch/i_prefetcher.h"
#include "traces/trace_formats.h"

namespace flashsim::cli {

namespace {

int policies_command(int argc, char** argv) {
  CLI::App app(
      "Lists the registered eviction policies and prefetchers with their parameters\n"
      "(type, default, doc, allowed range); scenarios name them as\n"
      "policies: [{impl: NAME, PARAM: VALUE, admission: {impl: NAME, ...}}] and prefetch: [{impl: NAME, ...}].",
      "flashsim policies");
  std::string only;
  bool all = false;
  app.add_option("name", only, "only this policy or prefetcher");
  app.add_flag("--all", all, "also list slot allocators and trace formats");
  if (!parse_command_line(app, argc, argv)) return 0;
  bool found = only.empty();
  for (const auto* e : PolicyRegistry::instance().entries()) found |= e->name == only;
  for (const auto* e : PrefetcherRegistry::instance().entries()) found |= e->name == only;
  for (const auto* e : AdmissionRegistry::instance().entries()) found |= e->name == only;
  if (!found) throw InputError("no registered eviction policy, prefetcher or admission policy named '" + only + "'");
  list_registry(std::cout, "eviction policies", PolicyRegistry::instance(), only);
  list_registry(std::cout, "prefetchers (prefetch:)", PrefetcherRegistry::instance(), only);
  list_registry(std::cout, "admission policies (a policy entry's admission:)", AdmissionRegistry::instance(), only);
  if (all) {
    list_registry(std::cout, "slot allocators (cache.allocator)", SlotAllocatorRegistry::instance(), "");
    list_registry(std::cout, "trace formats (workload.format, options under workload.import)", TraceFormatRegistry::instance(), "");
    list_registry(std::cout, "engines (engine: {impl: NAME, ...})", EngineRegistry::instance(), "");
    std::cout << "\n  optional scenario keys each engine reads (any other is refused):\n";
    for (const auto* e : EngineRegistry::instance().entries()) {
      std::string keys;
      for (const auto& u : e->traits.uses) keys += (keys.empty() ? "" : ", ") + u;
      std::cout << "      " << e->name << ": " << (keys.empty() ? "none" : keys) << "\n";
    }
  }
  return 0;
}

}  // namespace

FLASHSIM_REGISTER_COMMAND("policies", "policies [NAME] [--all]",
                          "list the registered eviction policies, prefetchers and their parameters",
                          &policies_command);

}  // namespace flashsim::cli
