// "Nothing is lost" (DESIGN.md, principle 5): outputs are written to
// `<target>.tmp-XXXXXX` beside the target and renamed into place only when
// complete. Dropping an uncommitted AtomicFile removes its temp file.
#pragma once
#include <filesystem>

namespace flashsim {

class AtomicFile {
 public:
  /// Creates an empty, uniquely named temp file beside `target`.
  /// Throws Error naming the directory if it cannot.
  explicit AtomicFile(std::filesystem::path target);
  ~AtomicFile();  ///< removes the temp file unless commit() succeeded
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  const std::filesystem::path& temp_path() const { return temp_; }
  const std::filesystem::path& target() const { return target_; }

  /// Renames the temp file onto the target (atomic on one file system).
  /// Throws Error naming both paths on failure (the temp is then removed).
  void commit();

  /// Removes the temp file now (idempotent).
  void discard() noexcept;

 private:
  std::filesystem::path target_;
  std::filesystem::path temp_;
  bool done_ = false;
};

}  // namespace flashsim
