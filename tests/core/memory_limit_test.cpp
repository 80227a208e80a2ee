// What caps the memory checks, and the advice they give: under `ulimit -v`
// raising --max-memory cannot help, so the message must say what does.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <string>

#include "sim/core/memory_limit.h"

namespace flashsim {
namespace {

TEST(MemoryLimit, AnAddressSpaceLimitIsNamedAsTheCapAndTheAdviceSaysUlimit) {
  const MemoryCap before = available_memory();
  if (before.bytes == 0) GTEST_SKIP() << "no memory size known here";
  // The child lowers its own RLIMIT_AS to half of what it could get (well
  // above what a test process uses), then reports through its exit code.
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    const rlim_t half = static_cast<rlim_t>(before.bytes / 2);
    rlimit as{half, half};
    if (::setrlimit(RLIMIT_AS, &as) != 0) ::_exit(10);
    const MemoryCap cap = available_memory();
    if (cap.source != MemoryCapSource::address_space || cap.bytes != half) ::_exit(11);
    if (default_memory_limit_bytes() != static_cast<ByteCount>(static_cast<double>(half) * 0.8)) ::_exit(12);
    if (effective_memory_limit(before.bytes) != half) ::_exit(13);  // --max-memory above the cap is capped
    const std::string capped = raise_memory_limit_advice(default_memory_limit_bytes());
    if (capped.find("ulimit -v") == std::string::npos) ::_exit(14);
    if (capped.find("--max-memory cannot go above it") == std::string::npos) ::_exit(15);
    // A --max-memory well below the cap is what limits: raising it helps.
    const std::string chosen = raise_memory_limit_advice(half / 10);
    if (chosen.find("raise the limit (--max-memory SIZE") == std::string::npos) ::_exit(16);
    ::_exit(0);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "failed check number " << WEXITSTATUS(status) - 10 << " (see the child's code)";
}

TEST(MemoryLimit, WithoutAProcessLimitTheAdviceIsMaxMemoryUpToThePhysicalMemory) {
  const MemoryCap cap = available_memory();
  if (cap.source != MemoryCapSource::physical) GTEST_SKIP() << "this process has a limit below physical memory";
  const std::string advice = raise_memory_limit_advice(default_memory_limit_bytes());
  EXPECT_NE(advice.find("--max-memory SIZE; at most " + gib_text(static_cast<double>(cap.bytes)) + ", the physical memory"),
            std::string::npos)
      << advice;
}

}  // namespace
}  // namespace flashsim
