#include "traces/importers/capture_launch.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
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

std::filesystem::path find_executable(const std::string& name) {
  if (name.empty()) return {};
  if (name.find('/') != std::string::npos) return access(name.c_str(), X_OK) == 0 ? std::filesystem::path(name) : "";
  const char* path = std::getenv("PATH");
  std::string_view dirs = path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin";
  while (true) {
    const std::size_t colon = dirs.find(':');
    const std::string dir(dirs.substr(0, colon));
    const std::filesystem::path candidate = std::filesystem::path(dir.empty() ? "." : dir) / name;
    std::error_code ec;
    if (std::filesystem::is_regular_file(candidate, ec) && access(candidate.c_str(), X_OK) == 0) return candidate;
    if (colon == std::string_view::npos) return {};
    dirs.remove_prefix(colon + 1);
  }
}

std::string LaunchResult::describe() const {
  if (!failure.empty()) return "could not be started: " + failure;
  if (timed_out) {
    return "timed out after " + std::to_string(static_cast<long long>(elapsed_s + 0.5)) + " s (ended by signal " +
           std::to_string(signal) + ")";
  }
  if (signal != 0) return "was killed by signal " + std::to_string(signal) + " (" + strsignal(signal) + ")";
  return "exited with status " + std::to_string(exit_code);
}

LaunchResult run_with_capture(const std::vector<std::string>& command, const std::filesystem::path& library,
                              const std::filesystem::path& raw_dir) {
  if (command.empty()) throw InputError("no command to capture (give it after --)");
  return run_command(command, {"CUDA_INJECTION64_PATH=" + library.string(), "FLASHSIM_CAPTURE_DIR=" + raw_dir.string()});
}

namespace {

volatile std::sig_atomic_t g_forward_signal = 0;
extern "C" void remember_signal(int sig) { g_forward_signal = sig; }

/// Waits for `pid` in a polling loop: ticks, the timeout (SIGTERM then
/// SIGKILL to its group) and forwarding of this process's SIGINT/SIGTERM.
/// Returns waitpid's status; sets timed_out.
int wait_limited(pid_t pid, const RunLimits& limits, std::chrono::steady_clock::time_point start, bool& timed_out) {
  using clock = std::chrono::steady_clock;
  const auto elapsed = [&] { return std::chrono::duration<double>(clock::now() - start).count(); };
  double next_tick = limits.tick_s;
  double terminated_at = -1;  // when SIGTERM went to the group (-1: not yet)
  bool killed = false;
  for (;;) {
    int status = 0;
    const pid_t waited = waitpid(pid, &status, WNOHANG);
    if (waited == pid) return status;
    if (waited < 0 && errno != EINTR) throw Error(std::string("waitpid: ") + std::strerror(errno));
    if (const int sig = g_forward_signal; sig != 0) {
      g_forward_signal = 0;
      kill(-pid, sig);
    }
    const double now = elapsed();
    if (limits.timeout_s > 0 && now >= limits.timeout_s && terminated_at < 0) {
      timed_out = true;
      terminated_at = now;
      kill(-pid, SIGTERM);
    } else if (terminated_at >= 0 && !killed && now >= terminated_at + RunLimits::kGraceSeconds) {
      killed = true;
      kill(-pid, SIGKILL);
    }
    if (limits.on_tick && now >= next_tick) {
      limits.on_tick(now);
      next_tick = now + limits.tick_s;
    }
    struct timespec pause {0, 50'000'000};
    nanosleep(&pause, nullptr);
  }
}

}  // namespace

LaunchResult run_command(const std::vector<std::string>& command, const std::vector<std::string>& extra_env,
                         const RunLimits& limits) {
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
  const bool own_group = limits.timeout_s > 0;
  if (pid == 0) {
    close(pipe_fds[0]);
    if (own_group) setpgid(0, 0);
    execvpe(argv[0], argv.data(), envp.data());
    const int err = errno;
    [[maybe_unused]] const auto n = write(pipe_fds[1], &err, sizeof err);
    _exit(127);
  }
  const auto start = std::chrono::steady_clock::now();
  if (own_group) setpgid(pid, pid);  // also here: no race with the child's own call
  close(pipe_fds[1]);
  struct sigaction handler {}, old_int{}, old_term{};
  handler.sa_handler = own_group ? remember_signal : SIG_IGN;
  sigemptyset(&handler.sa_mask);
  g_forward_signal = 0;
  sigaction(SIGINT, &handler, &old_int);
  sigaction(SIGTERM, &handler, &old_term);
  LaunchResult result;
  int exec_errno = 0;
  ssize_t got = 0;
  do {
    got = read(pipe_fds[0], &exec_errno, sizeof exec_errno);
  } while (got < 0 && errno == EINTR);
  close(pipe_fds[0]);
  int status = 0;
  pid_t waited = pid;
  if (own_group || limits.on_tick) {
    try {
      status = wait_limited(pid, limits, start, result.timed_out);
    } catch (...) {
      sigaction(SIGINT, &old_int, nullptr);
      sigaction(SIGTERM, &old_term, nullptr);
      throw;
    }
  } else {
    do {
      waited = waitpid(pid, &status, 0);
    } while (waited < 0 && errno == EINTR);
  }
  result.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
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
