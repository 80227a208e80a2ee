#include "traces/importers/capture_launch.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>

#include "sim/core/errors.h"

extern char** environ;

namespace flashsim::capture {

std::filesystem::path find_capture_library(const std::filesystem::path& exe_dir) {
  if (const char* env = std::getenv("FLASHSIM_CAPTURE_LIBRARY"); env != nullptr && *env != '\0') {
    const std::filesystem::path p = std::filesystem::absolute(env);
    if (!std::filesystem::is_regular_file(p)) {
      throw InputError("FLASHSIM_CAPTURE_LIBRARY=" + std::string(env) + ": no such file");
    }
    return p;
  }
  const std::filesystem::path candidates[] = {exe_dir / kCaptureLibraryName, exe_dir / ".." / "lib" / kCaptureLibraryName};
  for (const auto& c : candidates) {
    if (std::filesystem::is_regular_file(c)) return std::filesystem::absolute(c).lexically_normal();
  }
  throw InputError(std::string("the capture library ") + kCaptureLibraryName + " was not found in " +
                   candidates[0].parent_path().string() + " or " + candidates[1].parent_path().string() +
                   " (it is built only where CUDA is: configure with CUDA, or set FLASHSIM_CAPTURE_LIBRARY or "
                   "--library)");
}

std::string LaunchResult::describe() const {
  if (!failure.empty()) return "could not be started: " + failure;
  if (signal != 0) return "was killed by signal " + std::to_string(signal) + " (" + strsignal(signal) + ")";
  return "exited with status " + std::to_string(exit_code);
}

LaunchResult run_with_capture(const std::vector<std::string>& command, const std::filesystem::path& library,
                              const std::filesystem::path& raw_dir) {
  if (command.empty()) throw InputError("no command to capture (give it after --)");
  return run_command(command, {"CUDA_INJECTION64_PATH=" + library.string(), "FLASHSIM_CAPTURE_DIR=" + raw_dir.string()});
}

LaunchResult run_command(const std::vector<std::string>& command, const std::vector<std::string>& extra_env) {
  if (command.empty()) throw InputError("no command to run (give it after --)");
  // Everything the child needs is prepared before fork: it only execs.
  std::vector<std::string> env_text;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string_view v = *e;
    if (v.starts_with("CUDA_INJECTION64_PATH=") || v.starts_with("FLASHSIM_CAPTURE_DIR=")) continue;
    env_text.emplace_back(v);
  }
  env_text.insert(env_text.end(), extra_env.begin(), extra_env.end());
  std::vector<char*> envp, argv;
  for (auto& s : env_text) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = command;
  for (auto& s : args) argv.push_back(s.data());
  argv.push_back(nullptr);

  int pipe_fds[2];  // the child reports an exec failure's errno through it
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) throw Error(std::string("pipe: ") + std::strerror(errno));
  const pid_t pid = fork();
  if (pid < 0) {
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    throw Error(std::string("fork: ") + std::strerror(errno));
  }
  if (pid == 0) {
    close(pipe_fds[0]);
    execvpe(argv[0], argv.data(), envp.data());
    const int err = errno;
    [[maybe_unused]] const auto n = write(pipe_fds[1], &err, sizeof err);
    _exit(127);
  }
  close(pipe_fds[1]);
  struct sigaction ignore {}, old_int{}, old_term{};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  sigaction(SIGINT, &ignore, &old_int);
  sigaction(SIGTERM, &ignore, &old_term);
  LaunchResult result;
  int exec_errno = 0;
  ssize_t got = 0;
  do {
    got = read(pipe_fds[0], &exec_errno, sizeof exec_errno);
  } while (got < 0 && errno == EINTR);
  close(pipe_fds[0]);
  int status = 0;
  pid_t waited = 0;
  do {
    waited = waitpid(pid, &status, 0);
  } while (waited < 0 && errno == EINTR);
  sigaction(SIGINT, &old_int, nullptr);
  sigaction(SIGTERM, &old_term, nullptr);
  if (got == static_cast<ssize_t>(sizeof exec_errno)) {
    result.failure = "'" + command[0] + "': " + std::strerror(exec_errno);
    result.exit_code = 127;
    return result;
  }
  if (waited < 0) throw Error(std::string("waitpid: ") + std::strerror(errno));
  if (WIFSIGNALED(status)) {
    result.signal = WTERMSIG(status);
    result.exit_code = 128 + result.signal;
  } else {
    result.exit_code = WEXITSTATUS(status);
  }
  return result;
}

}  // namespace flashsim::capture
