// flashsim workload generate SCENARIO_OR_MODEL --out TRACE.h5 [...]
// flashsim workload generators
// Generated workloads (sim/workload/, docs/workloads.md) saved as canonical
// HDF5 traces, so that they can be replayed, inspected and shared.
#include <algorithm>
#include <iostream>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "sim/cli/cli_parse.h"
#include "sim/cli/command_registry.h"
#include "sim/cli/registry_listing.h"
#include "sim/core/errors.h"
#include "sim/core/memory_limit.h"
#include "sim/core/unit_parse.h"
#include "sim/scenario/generated_workload.h"
#include "sim/scenario/scenario_document.h"
#include "sim/workload/workload_io.h"

namespace flashsim::cli {

namespace {

constexpr const char* kUsage =
    "usage:\n"
    "  flashsim workload generate SCENARIO.yaml --out TRACE.h5 [--set KEY=VALUE ...]\n"
    "      the workload of the scenario (its first sweep point), which must use the generator form\n"
    "      (workload: {generator: ..., model: ...}); --set overrides scenario keys (workload.preset=long)\n"
    "  flashsim workload generate MODEL --out TRACE.h5 [--generator serving] [-p KEY=VALUE ...] [--seed N]\n"
    "      MODEL is a config.json or a model name (scenarios/models/); -p sets the generator's\n"
    "      parameters (preset=medium, granularity=2MiB, prefill=chunked ...); roofline rates default\n"
    "      to the H200 datasheet (-c peak_flops=790e12 -c hbm_bandwidth=4.47TB/s to change them)\n"
    "  flashsim workload generators\n"
    "      the generators and their parameters\n"
    "\n"
    "See docs/workloads.md for what each generator emits.\n";

std::pair<std::string, std::string> split_pair(const std::string& text, const char* what) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0) {
    throw InputError(std::string(what) + " '" + text + "': expected KEY=VALUE");
  }
  return {text.substr(0, eq), text.substr(eq + 1)};
}

bool is_scenario_file(const std::string& text) {
  return text.ends_with(".yaml") || text.ends_with(".yml");
}

int generate(const std::vector<std::string>& args) {
  CLI::App app("Generates a workload and writes it as a canonical HDF5 trace.", "flashsim workload generate");
  app.footer(kUsage);
  std::string input, out, generator = "serving";
  std::vector<std::string> sets, params, compute_params;
  long long seed = -1;
  int deflate = 1;
  app.add_option("input", input, "a scenario (.yaml) or a model (config.json path or name)")->required();
  app.add_option("-o,--out", out, "output trace (.h5)")->required();
  app.add_option("-s,--set", sets, "scenario input: override a key, e.g. workload.preset=long (repeatable)")
      ->allow_extra_args(false);
  app.add_option("-g,--generator", generator, "model input: the generator")->capture_default_str();
  app.add_option("-p,--param", params, "model input: KEY=VALUE, a generator parameter (repeatable)")
      ->allow_extra_args(false);
  app.add_option("-c,--compute", compute_params, "model input: KEY=VALUE, peak_flops or hbm_bandwidth (repeatable)")
      ->allow_extra_args(false);
  app.add_option("--seed", seed, "model input: random seed (default 1)")->check(CLI::Range(0LL, std::numeric_limits<long long>::max()));
  std::string max_memory;
  app.add_option("--max-memory", max_memory,
                 "refuse a workload whose catalog is estimated to need more memory than this (default: 80% of "
                 "what this process may use)");
  app.add_option("--deflate", deflate, "deflate level 0..9 (0: uncompressed, fastest to read)")
      ->capture_default_str()
      ->check(CLI::Range(0, 9));
  if (!parse_command_line(app, args)) return 0;
  const ByteCount memory_limit_bytes =
      max_memory.empty() ? default_memory_limit_bytes()
                         : effective_memory_limit(parse_option("--max-memory", max_memory, parse_bytes));

  std::unique_ptr<IWorkloadGenerator> workload;
  if (is_scenario_file(input)) {
    if (!params.empty() || !compute_params.empty() || seed >= 0) {
      throw InputError("--param, --compute and --seed are for a model input; with a scenario use --set workload.KEY=VALUE");
    }
    std::vector<Override> overrides;
    for (const auto& s : sets) overrides.push_back(parse_override(s));
    const ScenarioDocument document = ScenarioDocument::from_file(input, overrides);
    const Scenario scenario = document.resolve(document.points().front());
    if (!scenario.workload.generated) {
      throw InputError(input + ": the workload is a trace file, not a generator (nothing to generate)");
    }
    WorkloadContext context = scenario.workload.generator_context;
    context.memory_limit_bytes = memory_limit_bytes;
    workload = make_workload(scenario.workload.generator, scenario.workload.generator_params, context);
  } else {
    if (!sets.empty()) throw InputError("--set is for a scenario input; with a model use --param KEY=VALUE");
    std::map<std::string, std::string> compute_user;
    for (const auto& c : compute_params) compute_user.insert(split_pair(c, "--compute"));
    const ComputeSpec compute =
        ComputeSpec::from(ParamValues::resolve("--compute", ComputeSpec::param_specs(), compute_user));
    WorkloadContext context = scenario_workload_context(std::filesystem::current_path(),
                                                        seed >= 0 ? static_cast<std::uint64_t>(seed) : 1, compute);
    context.memory_limit_bytes = memory_limit_bytes;
    // Generators without a model (synthetic) take INPUT "-".
    const auto& specs = WorkloadRegistry::instance().find(generator).params;
    const bool takes_model = std::any_of(specs.begin(), specs.end(), [](const ParamSpec& p) { return p.name == "model"; });
    if (!takes_model && input != "-")
      throw InputError("generator '" + generator + "' takes no model: give - as INPUT and its parameters with --param");
    std::map<std::string, std::string> user;
    if (takes_model) user["model"] = input;
    for (const auto& p : params) {
      auto [k, v] = split_pair(p, "--param");
      user[k] = v;
    }
    workload = make_workload(generator, user, context);
  }
  Hdf5WriteOptions options;
  options.deflate_level = deflate;
  const std::uint64_t n = write_workload(*workload, out, options);
  std::cout << "wrote " << out << ": " << n << " records, " << workload->meta().catalog.size() << " blocks, "
            << workload->meta().operators.size() << " operators\n  source: " << workload->meta().source << "\n";
  return 0;
}

int list_generators() {
  list_registry(std::cout, "workload generators (workload.generator)", WorkloadRegistry::instance());
  return 0;
}

int workload_command(int argc, char** argv) {
  const std::vector<std::string> all(argv + 1, argv + argc);
  if (all.empty() || all[0] == "-h" || all[0] == "--help") {
    std::cout << kUsage;
    return all.empty() ? 2 : 0;
  }
  const std::vector<std::string> rest(all.begin() + 1, all.end());
  if (all[0] == "generate") return generate(rest);
  if (all[0] == "generators") return list_generators();
  throw InputError("flashsim workload: unknown subcommand '" + all[0] + "' (generate, generators)");
}

}  // namespace

FLASHSIM_REGISTER_COMMAND("workload", "workload generate SCENARIO_OR_MODEL --out TRACE.h5 | generators",
                          "generate a serving workload (decode, prefill, MoE, T5, LLaVA, two models) from a\n"
                          "model's config.json and save it as a canonical trace",
                          &workload_command);

}  // namespace flashsim::cli
