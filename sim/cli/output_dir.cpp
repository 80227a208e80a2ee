#include "sim/cli/output_dir.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <system_error>

#include "sim/core/errors.h"

namespace flashsim::cli {

void check_output_dir(const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec || !std::filesystem::is_directory(dir)) {
    throw InputError("results folder '" + dir.string() + "': cannot create it" + (ec ? ": " + ec.message() : ": not a directory"));
  }
  if (access(dir.c_str(), W_OK | X_OK) != 0) {
    throw InputError("results folder '" + dir.string() + "': not writable: " + std::strerror(errno));
  }
}

}  // namespace flashsim::cli
