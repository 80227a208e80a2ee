#include "sim/cli/output_dir.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>
#include <system_error>

#include "sim/core/errors.h"
#include "traces/atomic_file.h"

namespace flashsim::cli {

OutputDir::OutputDir(std::filesystem::path dir) : dir_(std::move(dir)) {
  std::error_code ec;
  // The folders that do not exist yet, outermost first: the ones to remove on failure.
  const std::filesystem::path absolute = std::filesystem::absolute(dir_, ec).lexically_normal();
  for (std::filesystem::path p = absolute; !ec && p.has_relative_path(); p = p.parent_path()) {
    std::error_code missing;
    if (std::filesystem::symlink_status(p, missing).type() != std::filesystem::file_type::not_found) break;
    created_.insert(created_.begin(), p);
  }
  ec.clear();
  std::filesystem::create_directories(dir_, ec);
  if (ec || !std::filesystem::is_directory(dir_, ec)) {
    created_.clear();
    throw InputError("results folder '" + dir_.string() + "': cannot create it" +
                     (ec ? ": " + ec.message() : ": not a directory"));
  }
  if (access(dir_.c_str(), W_OK | X_OK) != 0) {
    const std::string why = std::strerror(errno);
    throw InputError("results folder '" + dir_.string() + "': not writable: " + why);
  }
  for (const auto& p : created_) on_signal_.push_back(std::make_unique<SignalCleanupGuard>(p));
  const std::string removed = describe_removed(remove_stale_temp_files(dir_, ".tmp-"));
  if (!removed.empty()) std::cerr << "flashsim: " << removed << "\n";
}

OutputDir::~OutputDir() {
  if (kept_) return;
  for (auto it = created_.rbegin(); it != created_.rend(); ++it) {
    std::error_code ec;
    std::filesystem::remove(*it, ec);  // only removes an empty folder
    if (ec) break;
  }
}

void check_output_path(const char* option, const std::string& path) {
  std::error_code ec;
  const std::filesystem::path p(path);
  if (std::filesystem::is_directory(p, ec)) throw InputError(std::string(option) + " " + path + ": is a folder, not a file");
  if (std::filesystem::exists(p, ec) && !std::filesystem::is_regular_file(p, ec)) {
    throw InputError(std::string(option) + " " + path + ": exists and is not a regular file");
  }
  const std::filesystem::path parent = p.parent_path().empty() ? std::filesystem::path(".") : p.parent_path();
  if (!std::filesystem::is_directory(parent, ec)) {
    throw InputError(std::string(option) + " " + path + ": the folder " + parent.string() + " does not exist");
  }
}

}  // namespace flashsim::cli
