#include "traces/atomic_file.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <system_error>

#include "sim/core/errors.h"

namespace flashsim {

AtomicFile::AtomicFile(std::filesystem::path target) : target_(std::move(target)) {
  std::string pattern = target_.string() + ".tmp-XXXXXX";
  const int fd = mkstemp(pattern.data());
  if (fd < 0) {
    throw Error("cannot create a temporary file beside '" + target_.string() + "': " + std::strerror(errno));
  }
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
