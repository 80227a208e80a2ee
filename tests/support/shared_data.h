// Access to ../shared (recorded traces) from tests. On a user's machine
// without it a test skips; under CI=true it fails instead, so CI never
// passes by skipping.
#pragma once
#include <filesystem>
#include <string>

namespace flashsim::test {

/// Path of `relative` under the shared folder, or empty when it is absent.
std::filesystem::path shared_path(const std::string& relative);

/// True when the environment variable CI is "true".
bool running_in_ci();

}  // namespace flashsim::test

/// Declares `var` as the path of `relative` under ../shared; skips the test
/// (or fails it under CI=true) when the file is missing.
#define FLASHSIM_REQUIRE_SHARED(var, relative)                                      \
  const std::filesystem::path var = ::flashsim::test::shared_path(relative);        \
  if (var.empty()) {                                                                \
    if (::flashsim::test::running_in_ci()) FAIL() << "missing shared file " << (relative); \
    GTEST_SKIP() << "shared file not present: " << (relative);                      \
  }
