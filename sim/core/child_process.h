// Running a helper program (a Python script) as a child process with
// posix_spawn, its output captured in files: `flashsim report`'s plots and
// `flashsim results export --format parquet`.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

namespace flashsim {

struct ChildOutcome {
  bool started = false;
  int start_errno = 0;  ///< why it did not start (posix_spawn's error)
  int exit_code = -1;   ///< -1: killed by a signal
};

/// Runs `args` (args[0] looked up on PATH when it has no '/') with stdin
/// from /dev/null and stdout and stderr written to the files `out` and
/// `err` (created or truncated), and waits for it. The environment is this
/// process's. Throws Error only when waiting fails; a program that cannot
/// be started gives started == false.
ChildOutcome run_child(const std::vector<std::string>& args, const std::filesystem::path& out,
                       const std::filesystem::path& err);

/// The last `max_chars` of a child's stderr text, trailing blank lines and
/// spaces dropped ("..." in front when cut), for an error message.
std::string output_tail(const std::string& text, std::size_t max_chars = 2000);

}  // namespace flashsim
