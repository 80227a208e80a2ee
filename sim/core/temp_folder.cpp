#include "sim/core/temp_folder.h"

#include <stdlib.h>

#include <cerrno>
#include <cstring>

#include "sim/core/errors.h"

namespace flashsim {

TempFolder::TempFolder(const std::string& prefix, const std::filesystem::path& parent) {
  std::error_code ec;
  const std::filesystem::path base = parent.empty() ? std::filesystem::temp_directory_path(ec) : parent;
  std::string pattern = ((ec ? std::filesystem::path("/tmp") : base) / (prefix + "XXXXXX")).string();
  if (mkdtemp(pattern.data()) == nullptr) {
    throw Error("cannot create a temporary folder '" + pattern + "': " + std::strerror(errno));
  }
  path_ = pattern;
}

TempFolder::~TempFolder() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

}  // namespace flashsim
