// flashsim capture [options] -- COMMAND [ARGS...]: runs COMMAND under the
// CUPTI injection library (hw/capture/) and turns what it recorded into a
// canonical trace and block catalog (traces/importers/cupti_capture.h).
// COMMAND's failure is reported with its exit code, which this command
// returns; the trace is written atomically (complete or absent).
#include <stdlib.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "sim/cli/cli_parse.h"
#include "sim/cli/command_registry.h"
#include "sim/core/errors.h"
#include "sim/core/temp_folder.h"
#include "sim/core/unit_parse.h"
#include "traces/importers/capture_launch.h"
#include "traces/importers/cupti_capture.h"
#include "traces/importers/cupti_program.h"
#include "traces/trace_formats.h"

namespace flashsim::cli {

namespace {

/// The raw-record folder: a temp folder removed on exit, or the user's (--keep-raw).
class RawDir {
 public:
  RawDir(const std::filesystem::path& out, const std::string& keep) {
    if (!keep.empty()) {
      path_ = keep;
      std::filesystem::create_directories(path_);
      for (const auto& e : std::filesystem::directory_iterator(path_)) {
        if (e.path().extension() == ".raw" || e.path().filename() == capture::kProbeFolder) {
          throw InputError("--keep-raw " + keep + ": already holds capture files (" + e.path().filename().string() +
                           "); give an empty or new folder");
        }
      }
      return;
    }
    const std::filesystem::path parent = out.parent_path().empty() ? "." : out.parent_path();
    temporary_ = std::make_unique<TempFolder>(out.filename().string() + ".capture-", parent);
    path_ = temporary_->path();
  }
  RawDir(const RawDir&) = delete;
  RawDir& operator=(const RawDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
  std::unique_ptr<TempFolder> temporary_;  ///< removed with the RawDir
};

std::filesystem::path exe_dir() {
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::filesystem::current_path() : self.parent_path();
}

/// Runs the capture probe (hw/capture/capture_probe.cu) once without and
/// once under the injection library, its files in `dir` (plain-ROUND.txt,
/// captured-ROUND.txt, raw/): the capture's per-call cost on this host.
/// A probe that fails is reported and leaves the cost unmeasured.
void run_probe(const std::filesystem::path& probe, const std::filesystem::path& lib, const std::filesystem::path& dir,
               const char* round) {
  std::filesystem::create_directories(dir / "raw");
  const std::string r = round;
  const capture::LaunchResult plain = capture::run_command({probe.string(), (dir / ("plain-" + r + ".txt")).string()});
  const capture::LaunchResult captured =
      capture::run_with_capture({probe.string(), (dir / ("captured-" + r + ".txt")).string()}, lib, dir / "raw");
  if (!plain.ok() || !captured.ok()) {
    std::cerr << "flashsim capture: warning: the capture probe (" << r << ") "
              << (plain.ok() ? captured.describe() : plain.describe())
              << "; the capture's per-call cost is not measured\n";
  }
}

std::string joined(const std::vector<std::string>& words) {
  std::string s;
  for (const auto& w : words) s += (s.empty() ? "" : " ") + w;
  return s;
}

int capture_command(int argc, char** argv) {
  CLI::App app{"Run COMMAND under CUPTI and write its host<->device copies as a trace (docs/capture.md)",
               "flashsim capture"};
  std::string out = "capture.h5", block_bytes = "0", directions = "h2d,d2h", compute = "kernels",
              tokens = "marker", events, keep_raw, library, step_marker = "flashsim.step", step_kernel;
  std::vector<std::string> command;
  app.add_option("-o,--out", out, "trace to write: .h5 (canonical) or .csv")->capture_default_str();
  app.add_option("--block-bytes", block_bytes,
                 "cut address ranges into pieces of this size, aligned to their allocation (0: whole ranges)")
      ->capture_default_str();
  app.add_option("--directions", directions, "copies that become accesses: any of h2d,d2h,d2d,memset")
      ->capture_default_str();
  app.add_option("--compute", compute, "compute_ns of an access: kernels (busy time until the stream's next access), "
                                       "gap (the whole gap), none")
      ->capture_default_str()
      ->check(CLI::IsMember({"kernels", "gap", "none"}));
  app.add_option("--tokens", tokens, "token_index: marker (a pass starts at each read of the most-read block) or none")
      ->capture_default_str()
      ->check(CLI::IsMember({"marker", "none"}));
  app.add_option("--step-marker", step_marker, "NVTX mark (torch.cuda.nvtx.mark) that starts a step of the program")
      ->capture_default_str();
  app.add_option("--step-kernel", step_kernel, "without step marks: a kernel-name substring that starts a step");
  app.add_option("--events", events, "also write every copy, memset and kernel with its regions as CSV");
  app.add_option("--keep-raw", keep_raw, "keep the raw per-process records in this folder (format: cupti)");
  app.add_option("--library", library, std::string("the injection library (default: ") +
                                           capture::kCaptureLibraryName + " beside flashsim)");
  bool no_probe = false;
  app.add_flag("--no-probe", no_probe,
               "do not measure the capture's per-call cost (the probe runs ~1 s before and after COMMAND)");
  app.add_option("command", command, "the program and its arguments, after --")->required();
  if (!parse_command_line(app, argc, argv)) return 0;

  capture::ConvertOptions options;
  options.block_bytes = parse_bytes(block_bytes);
  capture::parse_directions(directions, options);
  options.compute = capture::parse_compute_attribution(compute, "--compute");
  options.tokens_from_marker = tokens == "marker";
  const std::filesystem::path out_path = out;
  const std::string ext = out_path.extension().string();
  if (ext != ".h5" && ext != ".hdf5" && ext != ".csv") {
    throw InputError("--out " + out + ": the trace must be .h5, .hdf5 or .csv");
  }
  const std::filesystem::path lib =
      library.empty() ? capture::find_capture_library(exe_dir()) : std::filesystem::absolute(library);
  if (!std::filesystem::is_regular_file(lib)) throw InputError("--library " + library + ": no such file");

  RawDir raw(out_path, keep_raw);
  const std::filesystem::path probe = lib.parent_path() / capture::kCaptureProbeName;
  const std::filesystem::path probe_dir = raw.path() / capture::kProbeFolder;
  const bool probing = !no_probe && std::filesystem::is_regular_file(probe);
  if (!no_probe && !probing) {
    std::cerr << "flashsim capture: note: no " << probe.string() << "; the capture's per-call cost is not measured\n";
  }
  if (probing) run_probe(probe, lib, probe_dir, "before");
  std::cerr << "flashsim capture: running " << joined(command) << "\n";
  const auto t0 = std::chrono::steady_clock::now();
  const capture::LaunchResult run = capture::run_with_capture(command, lib, raw.path());
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!run.ok()) {
    std::cerr << "flashsim capture: '" << joined(command) << "' " << run.describe() << " after " << wall_s
              << " s; no trace written\n";
    return run.exit_code != 0 ? run.exit_code : 1;
  }
  std::fprintf(stderr, "flashsim capture: the command finished in %.3f s (wall time under capture)\n", wall_s);
  if (probing) run_probe(probe, lib, probe_dir, "after");

  const std::vector<capture::RawCapture> processes = capture::read_raw_capture_dir(raw.path());
  if (processes.empty()) {
    throw Error("'" + joined(command) +
                "' made no CUDA calls: no process initialized the CUDA driver, so the injection library was never "
                "loaded; no trace written");
  }
  bool any = false;
  for (const auto& p : processes) any = any || !p.empty();
  if (!any) {
    throw Error("'" + joined(command) +
                "' initialized CUDA but made no copy, memset or kernel launch; no trace written");
  }
  capture::ConvertedCapture converted =
      capture::convert_capture(processes, options, "capture:" + joined(command));
  capture::ProgramOptions program_options;
  program_options.step_marker = step_marker;
  program_options.step_kernel = step_kernel;
  if (probing) program_options.probe_dir = probe_dir;
  capture::ProgramReport program_report;
  capture::attach_program(converted, processes, program_options, "capture:" + joined(command), &program_report);
  {
    auto sink = create_trace_sink(out_path, converted.meta);
    sink->write(converted.records);
    sink->finish();
  }
  if (!events.empty()) capture::write_capture_events_csv(events, converted);
  std::cout << capture::describe(converted.report);
  if (converted.meta.program) {
    std::cout << capture::describe(program_report) << "\n";
    std::cout << describe_capture_host(converted.meta.program->host) << "\n";
  }
  for (const std::string& w : program_report.warnings) std::cerr << "flashsim capture: warning: " << w << "\n";
  std::cout << "wrote " << out_path.string() << "\n";
  if (!events.empty()) std::cout << "wrote " << events << "\n";
  if (!keep_raw.empty()) std::cout << "raw records kept in " << keep_raw << " (flashsim trace import cupti ...)\n";
  return 0;
}

}  // namespace

FLASHSIM_REGISTER_COMMAND("capture", "capture [--out TRACE] [--block-bytes N] [--events CSV] -- COMMAND [ARGS...]",
                          "run COMMAND under CUPTI (CUDA's injection mechanism, no change to it) and write its\n"
                          "host<->device copies as a trace with a block catalog of address ranges",
                          &capture_command);

}  // namespace flashsim::cli
