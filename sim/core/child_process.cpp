#include "sim/core/child_process.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "sim/core/errors.h"

extern char** environ;

namespace flashsim {

ChildOutcome run_child(const std::vector<std::string>& args, const std::filesystem::path& out,
                       const std::filesystem::path& err) {
  if (args.empty()) throw Error("run_child: no program given");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int rc = args[0].find('/') == std::string::npos
                     ? posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ)
                     : posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ChildOutcome result;
  if (rc != 0) {
    result.start_errno = rc;
    return result;
  }
  result.started = true;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw Error(std::string("waitpid: ") + std::strerror(errno));
  }
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

std::string output_tail(const std::string& text, std::size_t max_chars) {
  std::string t = text;
  while (!t.empty() && (t.back() == '\n' || t.back() == ' ')) t.pop_back();
  return t.size() <= max_chars ? t : "..." + t.substr(t.size() - max_chars);
}

}  // namespace flashsim
