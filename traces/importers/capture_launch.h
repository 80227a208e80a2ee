// Running a program under the CUPTI injection library (`flashsim capture`):
// CUDA loads the library named by CUDA_INJECTION64_PATH at cuInit, so the
// program needs no change. CUDA-free (POSIX fork/exec/wait only).
#pragma once
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace flashsim::capture {

/// The library's file name (hw/capture/CMakeLists.txt builds it beside `flashsim`).
inline constexpr const char* kCaptureLibraryName = "libflashsim_capture.so";
/// The capture probe, beside the library (hw/capture/capture_probe.cu).
inline constexpr const char* kCaptureProbeName = "flashsim_capture_probe";

/// The injection library: $FLASHSIM_CAPTURE_LIBRARY if set, else
/// kCaptureLibraryName in `exe_dir`, then in `exe_dir`/../lib. Throws
/// InputError listing the places looked in when none exists.
std::filesystem::path find_capture_library(const std::filesystem::path& exe_dir);

/// Where `name` would be executed from: itself when it holds a '/', else
/// the first executable file of that name in $PATH's folders; empty when
/// none (execvp's search, asked before a long run rather than after it).
std::filesystem::path find_executable(const std::string& name);

/// How the program ended.
struct LaunchResult {
  int exit_code = 0;    ///< its exit status, or 128 + signal, or 127 when it could not be started
  int signal = 0;       ///< the signal that ended it (0: it exited)
  std::string failure;  ///< why it could not be started (exec error), else empty
  bool timed_out = false;  ///< RunLimits::timeout_s passed and it was ended (signal: how)
  double elapsed_s = 0;    ///< wall time from start to end, s
  bool ok() const { return exit_code == 0 && signal == 0 && failure.empty() && !timed_out; }
  /// "exited with status 3", "was killed by signal 9 (Killed)", "could not be started: ...",
  /// "timed out after 60 s".
  std::string describe() const;
};

/// Bounds on a program run by run_command.
struct RunLimits {
  /// > 0: after this many seconds the program's whole process group gets
  /// SIGTERM, and SIGKILL kGraceSeconds later (LaunchResult::timed_out).
  double timeout_s = 0;
  /// Called about every `tick_s` seconds while it runs, with the elapsed s.
  std::function<void(double elapsed_s)> on_tick;
  double tick_s = 1.0;
  static constexpr double kGraceSeconds = 5.0;
};

/// Runs `command` (argv; command[0] is looked up on PATH) with the
/// environment plus CUDA_INJECTION64_PATH=`library` and
/// FLASHSIM_CAPTURE_DIR=`raw_dir` (where each CUDA process writes
/// capture-<pid>.raw at exit), waits for it and returns how it ended.
/// While it runs, this process ignores SIGINT/SIGTERM (the program, in the
/// same process group, receives Ctrl-C and ends; the caller then cleans up).
/// Throws InputError on an empty command, Error if fork fails.
LaunchResult run_with_capture(const std::vector<std::string>& command, const std::filesystem::path& library,
                              const std::filesystem::path& raw_dir);

/// Runs `command` as run_with_capture does (same signal handling and
/// result), with the environment less any capture variables plus
/// `extra_env` ("KEY=VALUE" each): a program under another tool (ncu), or
/// run_with_capture's own launch. With a `limits.timeout_s`, the program
/// runs in a process group of its own (so that the timeout ends its
/// children too: ncu's target) and this process forwards SIGINT/SIGTERM to
/// that group instead of sharing the terminal's. Throws InputError on an
/// empty command, Error if fork fails.
LaunchResult run_command(const std::vector<std::string>& command, const std::vector<std::string>& extra_env = {},
                         const RunLimits& limits = {});

}  // namespace flashsim::capture
