// flashsim validate SUITE.yaml [--hw auto|recorded|live] [--record --commit SHA] [--out DIR] ...
// Simulator against hardware for every entry of a validation suite
// (sim/validate/): the table, the suite statistics, exit status 3 when a
// gated metric is out of tolerance.
#include <CLI/CLI.hpp>
#include <iostream>
#include <string>
#include <vector>

#include "sim/cli/cli_parse.h"
#include "sim/cli/command_registry.h"
#include "sim/cli/output_dir.h"
#include "sim/core/errors.h"
#include "sim/validate/validation_output.h"
#include "sim/validate/validation_runner.h"

namespace flashsim::cli {
namespace {

int validate_command(int argc, char** argv) {
  CLI::App app(
      "Runs every entry of a validation suite on the simulator and compares it with the H200:\n"
      "replayed now when a GPU is present (--hw auto), else the recorded baseline the suite\n"
      "names. Prints sim, hw, absolute and relative error per entry and metric, then MAE,\n"
      "Pearson r and the count within 10% per metric; exit status 3 when a gated metric is\n"
      "out of tolerance (the failing rows are named), 2 for bad input.",
      "flashsim validate");
  std::string suite_file, hw = "auto", out, baseline, profile;
  std::vector<std::string> only, sets;
  ValidationOptions o;
  long long jobs = 0, repeats = 0;
  app.add_option("suite", suite_file, "the suite YAML (validate/h200.yaml)")->required();
  app.add_option("--hw", hw, "hardware figures: auto (live with a GPU, else recorded), recorded, live, none (simulator only)")
      ->check(CLI::IsMember({"auto", "recorded", "live", "none"}))
      ->capture_default_str();
  app.add_flag("--record", o.record, "replay on the GPU and write the baseline (>= 5 repeats; needs --commit)");
  app.add_option("--commit", o.commit, "the 40-hex-digit commit being measured (recorded as provenance)");
  app.add_option("--repeats", repeats, "hardware repeats per entry (default: the suite's)");
  app.add_option("--profile", profile, "the simulator's hardware profile instead of the suite's (recorded as provenance with --record)");
  app.add_option("--baseline", baseline, "baseline file to read or write (default: the suite's `baseline:`)");
  app.add_option("-o,--out", out, "write validation.json into this folder (default flashsim-results/validate/<suite>)");
  app.add_option("--only", only, "only these entries (repeatable)")->allow_extra_args(false);
  app.add_option("-s,--set", sets, "override a key of every entry's scenario, simulator side only (KEY=VALUE, repeatable)")
      ->allow_extra_args(false);
  app.add_option("-j,--jobs", jobs, "simulator runs in parallel (0: one per core)")->capture_default_str();
  if (!parse_command_line(app, argc, argv)) return 0;
  if (jobs < 0 || jobs > 4096) throw InputError("--jobs: expected 0 to 4096");
  if (repeats < 0 || repeats > 1000) throw InputError("--repeats: expected 1 to 1000 (0: the suite's)");
  o.hw = hw == "live" ? HwSource::live : hw == "recorded" ? HwSource::recorded : hw == "none" ? HwSource::none : HwSource::automatic;
  o.repeats = static_cast<unsigned>(repeats);
  o.jobs = static_cast<unsigned>(jobs);
  o.baseline = baseline;
  o.only = only;
  for (const auto& s : sets) o.extra.push_back(parse_override(s));

  ValidationSuite suite = load_validation_suite(suite_file);
  if (!profile.empty()) set_suite_profile(suite, profile);
  const std::filesystem::path dir = out.empty() ? std::filesystem::path("flashsim-results/validate") / suite.name : std::filesystem::path(out);
  OutputDir output(dir);  // before the runs, not after them
  const ValidationReport report = run_validation(suite, o, &std::cerr);
  print_validation(std::cout, report);
  std::cout << "results: " << write_validation_json(dir, report).string() << "\n";
  output.keep();
  if (o.record) std::cout << "baseline: " << report.baseline_file << "\n";
  return report.passed() ? 0 : 3;
}

}  // namespace

FLASHSIM_REGISTER_COMMAND("validate", "validate SUITE.yaml [--hw auto|recorded|live] [--record --commit SHA] [--out DIR]",
                          "simulator against the H200 for every entry of a validation suite: sim, hw and\n"
                          "their error per metric, MAE and Pearson r over the suite; exit 3 when out of tolerance",
                          &validate_command);

}  // namespace flashsim::cli
