#include "sim/core/memory_limit.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>

namespace flashsim {

MemoryCap available_memory() {
  MemoryCap cap;
  const auto take = [&cap](ByteCount bytes, MemoryCapSource source) {
    if (bytes > 0 && (cap.bytes == 0 || bytes < cap.bytes)) cap = {bytes, source};
  };
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page = ::sysconf(_SC_PAGESIZE);
  if (pages > 0 && page > 0) {
    take(static_cast<ByteCount>(pages) * static_cast<ByteCount>(page), MemoryCapSource::physical);
  }
  rlimit as{};
  if (::getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY) {
    take(static_cast<ByteCount>(as.rlim_cur), MemoryCapSource::address_space);
  }
  std::ifstream cgroup("/sys/fs/cgroup/memory.max");
  std::string text;
  if (cgroup >> text && text != "max") {
    try {
      take(static_cast<ByteCount>(std::stoull(text)), MemoryCapSource::cgroup);
    } catch (const std::exception&) {  // unreadable: not a limit we can use
    }
  }
  return cap;
}

ByteCount available_memory_bytes() { return available_memory().bytes; }

ByteCount default_memory_limit_bytes() {
  return static_cast<ByteCount>(static_cast<double>(available_memory_bytes()) * 0.8);
}

ByteCount effective_memory_limit(ByteCount requested_bytes) {
  const ByteCount available = available_memory_bytes();
  return available > 0 && requested_bytes > available ? available : requested_bytes;
}

std::string raise_memory_limit_advice(ByteCount limit_bytes) {
  const MemoryCap cap = available_memory();
  // The default is 80% of the cap: from there --max-memory gains little.
  const bool capped = cap.bytes > 0 && static_cast<double>(limit_bytes) >= 0.8 * static_cast<double>(cap.bytes) - 1.0;
  const std::string now = gib_text(static_cast<double>(cap.bytes));
  switch (cap.source) {
    case MemoryCapSource::address_space:
      if (capped) return "raise the process's address-space limit (`ulimit -v`, now " + now + "): --max-memory cannot go above it";
      break;
    case MemoryCapSource::cgroup:
      if (capped) return "raise the cgroup's memory limit (/sys/fs/cgroup/memory.max, now " + now + "): --max-memory cannot go above it";
      break;
    case MemoryCapSource::physical:
      return "raise the limit (--max-memory SIZE; at most " + now + ", the physical memory)";
    case MemoryCapSource::unknown: return "raise the limit (--max-memory SIZE)";
  }
  return "raise the limit (--max-memory SIZE; at most " + now + ", this process's limit)";
}

std::string gib_text(double bytes) {
  char text[64];
  std::snprintf(text, sizeof text, "%.2f GiB", bytes / static_cast<double>(1ull << 30));
  return text;
}

}  // namespace flashsim
