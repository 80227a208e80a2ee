#include "traces/child_probe.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <thread>

namespace flashsim {

std::string death_in_child(const std::function<void()>& body, std::chrono::milliseconds timeout) {
  const pid_t pid = ::fork();
  if (pid < 0) return "";
  if (pid == 0) {
    try {
      body();
    } catch (...) {
    }
    ::_exit(0);  // no atexit handlers, no stdio flush: the parent owns those
  }
  // Polled, so that a child caught in an endless loop (a damaged B-tree
  // whose nodes point at each other) is stopped instead of waited for.
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  int status = 0;
  while (true) {
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) return "";
    if (std::chrono::steady_clock::now() >= deadline) {
      ::kill(pid, SIGKILL);
      while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      const auto ms = timeout.count();
      const std::string limit = ms % 1000 == 0 ? std::to_string(ms / 1000) + " s" : std::to_string(ms) + " ms";
      return "did not finish in " + limit + " (an endless loop?) and was stopped";
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (!WIFSIGNALED(status)) return "";
  const int sig = WTERMSIG(status);
  return "died of signal " + std::to_string(sig) + " (" + ::strsignal(sig) + ")";
}

}  // namespace flashsim
