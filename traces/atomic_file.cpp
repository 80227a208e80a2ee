#include "traces/atomic_file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <system_error>

#include "sim/core/errors.h"

namespace flashsim {

namespace {

// The process umask, read without changing it (Linux ≥ 4.7 reports it in
// /proc/self/status); 022 if unavailable.
mode_t current_umask() {
  std::FILE* f = std::fopen("/proc/self/status", "r");
  mode_t mask = 022;
  if (f == nullptr) return mask;
  char line[256];
  while (std::fgets(line, sizeof(line), f) != nullptr) {
    unsigned value = 0;
    if (std::sscanf(line, "Umask: %o", &value) == 1) {
      mask = static_cast<mode_t>(value);
      break;
    }
  }
  std::fclose(f);
  return mask;
}

}  // namespace

AtomicFile::AtomicFile(std::filesystem::path target) : target_(std::move(target)) {
  std::string pattern = target_.string() + ".tmp-XXXXXX";
  const int fd = mkstemp(pattern.data());
  if (fd < 0) {
    throw Error("cannot create a temporary file beside '" + target_.string() + "': " + std::strerror(errno));
  }
  // mkstemp makes the file 0600; give it the mode a plain create would (0666 & ~umask).
  static const mode_t mode = 0666 & ~current_umask();
  ::fchmod(fd, mode);
  ::close(fd);
  temp_ = pattern;
}

AtomicFile::~AtomicFile() { discard(); }

void AtomicFile::commit() {
  if (done_) throw Error("internal: '" + target_.string() + "' committed twice");
  std::error_code ec;
  std::filesystem::rename(temp_, target_, ec);
  if (ec) {
    discard();
    throw Error("cannot rename '" + temp_.string() + "' to '" + target_.string() + "': " + ec.message());
  }
  done_ = true;
}

void AtomicFile::discard() noexcept {
  if (done_) return;
  std::error_code ignored;
  std::filesystem::remove(temp_, ignored);
  done_ = true;
}

}  // namespace flashsim
