// A full disk without root or a small file system: the descriptors of this
// process that are open on a given file are pointed at /dev/full, whose
// writes fail with ENOSPC, as a full disk's do. Linux only (/proc/self/fd).
#pragma once
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

namespace flashsim::test {

/// Points every descriptor open on a file whose path starts with `prefix`
/// (e.g. "<dir>/out.h5.tmp-") at /dev/full; later writes through them fail
/// with ENOSPC. Returns how many descriptors it redirected.
inline int make_disk_full_for(const std::string& prefix) {
  DIR* fds = ::opendir("/proc/self/fd");
  if (fds == nullptr) return 0;
  const int full = ::open("/dev/full", O_WRONLY | O_CLOEXEC);
  int redirected = 0;
  while (const dirent* entry = ::readdir(fds)) {
    const int fd = std::atoi(entry->d_name);
    if (entry->d_name[0] == '.' || fd == ::dirfd(fds) || fd == full) continue;
    char target[4096];
    const ssize_t n = ::readlink((std::string("/proc/self/fd/") + entry->d_name).c_str(), target, sizeof target - 1);
    if (n <= 0) continue;
    target[n] = '\0';
    if (std::string(target).rfind(prefix, 0) == 0 && full >= 0 && ::dup2(full, fd) >= 0) ++redirected;
  }
  ::closedir(fds);
  if (full >= 0) ::close(full);
  return redirected;
}

}  // namespace flashsim::test
