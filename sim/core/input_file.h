// Input paths checked in the user's terms, never as a filesystem_error
// ("internal error: filesystem error: status: Too many levels of symbolic
// links" from a link loop, or "not found" for a file that exists but cannot
// be read).
#pragma once
#include <cerrno>
#include <filesystem>
#include <string>
#include <system_error>

#include "sim/core/errors.h"

namespace flashsim {

/// "" when `path` (links followed) is a regular file or another readable
/// non-directory (a FIFO, /dev/stdin); else what is wrong: "no such file",
/// "is a directory", "too many levels of symbolic links (a link loop?)",
/// or the system's message (permission denied, ...). With `folder_ok` a
/// directory is fine (raw capture folders). Never throws.
inline std::string input_file_problem(const std::filesystem::path& path, bool folder_ok = false) {
  std::error_code ec;
  const std::filesystem::file_status st = std::filesystem::status(path, ec);
  if (st.type() == std::filesystem::file_type::not_found) return "no such file";
  if (ec) {
    if (ec.value() == ELOOP) return "too many levels of symbolic links (a link loop?)";
    return ec.message();
  }
  if (st.type() == std::filesystem::file_type::directory && !folder_ok) return "is a directory, not a file";
  return "";
}

/// Throws InputError("PATH: <input_file_problem>") unless it is "".
inline void require_input_file(const std::filesystem::path& path, bool folder_ok = false) {
  const std::string problem = input_file_problem(path, folder_ok);
  if (!problem.empty()) throw InputError(path.string() + ": " + problem);
}

}  // namespace flashsim
