#include "traces/child_probe.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>

namespace flashsim {

std::string death_in_child(const std::function<void()>& body) {
  const pid_t pid = ::fork();
  if (pid < 0) return "";
  if (pid == 0) {
    try {
      body();
    } catch (...) {
    }
    ::_exit(0);  // no atexit handlers, no stdio flush: the parent owns those
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return "";
  }
  if (!WIFSIGNALED(status)) return "";
  const int sig = WTERMSIG(status);
  return "signal " + std::to_string(sig) + " (" + ::strsignal(sig) + ")";
}

}  // namespace flashsim
