// flashsim calibrate [--out FILE] ...            measure the GPU (hw/cli, `calibrate-gpu`)
// flashsim calibrate --fit SUITE [--out FILE]    fit the profile to recorded replays (sim/validate/profile_fit.h)
// One command for both, so the fit works on builds without CUDA too.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include "sim/cli/cli_parse.h"
#include "sim/cli/command_registry.h"
#include "sim/core/errors.h"
#include "sim/validate/profile_fit.h"
#include "traces/atomic_file.h"

namespace flashsim::cli {
namespace {

std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == ',') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

int fit_command(int argc, char** argv) {
  CLI::App app(
      "Fits the hardware profile's free parameters (per-transfer latency, bandwidth, miss\n"
      "penalty, per-access overhead, contention slope) to a suite's recorded GPU replays by\n"
      "least squares (Levenberg-Marquardt, Eigen), on the entries with role: fit, and reports\n"
      "the error on the held-out entries separately. Writes a profile that inherits the\n"
      "suite's and overrides the fitted values.",
      "flashsim calibrate --fit");
  std::string suite_file, out, name, params, baseline, profile;
  long long jobs = 0, max_evaluations = 0;
  app.add_option("--fit", suite_file, "the validation suite (its profile, fit entries and baseline)")->required();
  app.add_option("-o,--out", out, "profile YAML to write (default: beside the suite's profile, <name>.yaml)");
  app.add_option("--name", name, "profile name (default: the suite's profile name with -fitted)");
  app.add_option("--fit-params", params,
                 "comma-separated parameters to fit (default link_latency,link_bandwidth,miss_penalty,hit_latency; also contention)");
  app.add_option("--baseline", baseline, "baseline file (default: the suite's)");
  app.add_option("--profile", profile, "the profile to start from instead of the suite's");
  app.add_option("-j,--jobs", jobs, "simulator runs in parallel (0: one per core)")->capture_default_str();
  app.add_option("--max-evaluations", max_evaluations, "simulator passes over the fit entries (0: 40 x (parameters + 1))");
  if (!parse_command_line(app, argc, argv)) return 0;
  if (jobs < 0 || jobs > 4096) throw InputError("--jobs: expected 0 to 4096");
  if (max_evaluations < 0 || max_evaluations > 100000) throw InputError("--max-evaluations: expected 0 to 100000");
  ValidationSuite suite = load_validation_suite(suite_file);
  if (!profile.empty()) set_suite_profile(suite, profile);
  if (suite.profile.empty()) throw InputError(suite_file + ": --fit needs the suite's `profile:`");
  FitOptions o;
  o.parameters = split_commas(params);
  o.jobs = static_cast<unsigned>(jobs);
  o.max_evaluations = static_cast<unsigned>(max_evaluations);
  o.baseline = baseline;
  if (name.empty()) name = suite.profile.stem().string() + "-fitted";
  check_profile_name(name);
  const std::filesystem::path path = out.empty() ? suite.profile.parent_path() / (name + ".yaml") : std::filesystem::path(out);
  check_fit_output(suite, path);
  const FitResult result = fit_profile(suite, o, &std::cerr);
  print_fit(std::cout, result);
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path());
  write_file_atomically(path, fitted_profile_yaml(suite, result, name, path));
  std::cout << "profile: " << path.string() << "\n";
  return 0;
}

int calibrate_command(int argc, char** argv) {
  const bool fit = std::any_of(argv + 1, argv + argc, [](const char* a) {
    const std::string_view s(a);
    return s == "--fit" || s.starts_with("--fit=");
  });
  if (fit) return fit_command(argc, argv);
  if (const auto* gpu = CommandRegistry::instance().find("calibrate-gpu")) return gpu->run(argc, argv);
  const bool help = std::any_of(argv + 1, argv + argc, [](const char* a) { return std::string_view(a) == "--help" || std::string_view(a) == "-h"; });
  if (help) {
    std::cout << "flashsim calibrate --fit SUITE [--out FILE]  (this flashsim was built without CUDA: measuring a GPU is not available)\n";
    return fit_command(argc, argv);
  }
  throw Error("this flashsim was built without CUDA: `calibrate` can only fit (--fit SUITE), not measure a GPU");
}

}  // namespace

FLASHSIM_REGISTER_COMMAND("calibrate", "calibrate [--out FILE] [--repeats N] | calibrate --fit SUITE [--out FILE]",
                          "measure the GPU's copy, latency, TLB and contention constants into a profile, or\n"
                          "(--fit) fit the profile's parameters to a suite's recorded replays (held-out error)",
                          &calibrate_command);

}  // namespace flashsim::cli
