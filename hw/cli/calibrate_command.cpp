// flashsim calibrate [--out FILE] [--name NAME] [--repeats N] [--quick] [--only GROUPS] (registered as calibrate-gpu)
// Measures the hardware profile's constants on the GPU (hw/calibrate) and
// writes the profile YAML atomically (temp file beside it, then rename).
#include <CLI/CLI.hpp>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>

#include "hw/calibrate/calibrate.h"
#include "hw/cuda_check.h"
#include "sim/cli/cli_parse.h"
#include "sim/cli/command_registry.h"
#include "sim/core/errors.h"
#include "traces/atomic_file.h"

namespace flashsim::cli {
namespace {

int calibrate_command(int argc, char** argv) {
  CLI::App app(
      "Runs the calibration microbenchmarks on the GPU (copies H2D/D2H against size, pinned\n"
      "and pageable; concurrent streams; dependent-load latency against working set; TLB\n"
      "reach; HBM read; the contention-slope probe; the execution model's constants: host\n"
      "cost of CUDA API calls, host memcpy bandwidth), each repeated, and writes a hardware\n"
      "profile YAML whose every value says how it was measured.",
      "flashsim calibrate");
  std::string out = "scenarios/hardware/calibrated.yaml", name, only;
  hw::CalibrationOptions o;
  long long repeats = 5, device = 0;
  app.add_option("-o,--out", out, "profile YAML to write")->capture_default_str();
  app.add_option("--name", name, "profile name (default: the file's stem)");
  app.add_option("--repeats", repeats, "repeats of each measurement (>= 5)")->capture_default_str();
  app.add_option("--device", device, "CUDA device ordinal")->capture_default_str();
  app.add_flag("--quick", o.quick, "fewer sizes and spans (seconds, for tests)");
  const CLI::Option* only_option = app.add_option("--only", only,
                 "comma-separated benchmark groups to run: copies,concurrent,execution,hbm,chase,tlb,contention "
                 "(default all); with some skipped the YAML is partial, not a complete profile (its header says so)");
  if (!parse_command_line(app, argc, argv)) return 0;
  if (repeats < 5 || repeats > 1000) throw InputError("--repeats: expected 5 to 1000");
  o.repeats = static_cast<int>(repeats);
  o.device = static_cast<int>(device);
  if (only_option->count() > 0) o.only = hw::parse_calibration_groups(only);
  if (!hw::cuda_device_present()) throw Error("no CUDA device visible: calibrate needs a GPU");
  const std::filesystem::path path(out);
  if (name.empty()) name = path.stem().string();
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path());

  const hw::CalibrationReport report = hw::run_calibration(o, &std::cout);
  const std::string yaml = hw::profile_yaml(report, name);
  AtomicFile file(path);
  {
    std::ofstream f(file.temp_path());
    f << yaml;
    f.flush();
    if (!f) throw Error("cannot write " + file.temp_path().string());
  }
  file.commit();
  std::cout << "profile: " << path.string() << "\n";
  return 0;
}

}  // namespace

// Registered as calibrate-gpu: `flashsim calibrate` (sim/cli/calibrate_command.cpp)
// runs it when not fitting, so the fit also exists on builds without CUDA.
FLASHSIM_REGISTER_COMMAND("calibrate-gpu", "calibrate-gpu [--out FILE] [--name NAME] [--repeats N] [--quick] [--only GROUPS]",
                          "what `flashsim calibrate` runs without --fit: measure the GPU's constants and write\n"
                          "a hardware profile (scenarios/hardware/<name>.yaml) with each value's provenance",
                          &calibrate_command);

}  // namespace flashsim::cli
