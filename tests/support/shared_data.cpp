#include "tests/support/shared_data.h"

#include <cstdlib>
#include <string_view>

namespace flashsim::test {

std::filesystem::path shared_path(const std::string& relative) {
  std::filesystem::path p = std::filesystem::path(FLASHSIM_SHARED_DIR) / relative;
  return std::filesystem::exists(p) ? p : std::filesystem::path();
}

bool running_in_ci() {
  const char* ci = std::getenv("CI");
  return ci != nullptr && std::string_view(ci) == "true";
}

}  // namespace flashsim::test
