#include "sim/core/memory_limit.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>

namespace flashsim {

ByteCount available_memory_bytes() {
  ByteCount limit = 0;
  const auto take = [&limit](ByteCount bytes) {
    if (bytes > 0) limit = limit == 0 ? bytes : std::min(limit, bytes);
  };
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page = ::sysconf(_SC_PAGESIZE);
  if (pages > 0 && page > 0) take(static_cast<ByteCount>(pages) * static_cast<ByteCount>(page));
  rlimit as{};
  if (::getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY) take(static_cast<ByteCount>(as.rlim_cur));
  std::ifstream cgroup("/sys/fs/cgroup/memory.max");
  std::string text;
  if (cgroup >> text && text != "max") {
    try {
      take(static_cast<ByteCount>(std::stoull(text)));
    } catch (const std::exception&) {  // unreadable: not a limit we can use
    }
  }
  return limit;
}

ByteCount default_memory_limit_bytes() {
  return static_cast<ByteCount>(static_cast<double>(available_memory_bytes()) * 0.8);
}

ByteCount effective_memory_limit(ByteCount requested_bytes) {
  const ByteCount available = available_memory_bytes();
  return available > 0 && requested_bytes > available ? available : requested_bytes;
}

std::string gib_text(double bytes) {
  char text[64];
  std::snprintf(text, sizeof text, "%.2f GiB", bytes / static_cast<double>(1ull << 30));
  return text;
}

}  // namespace flashsim
