// A fresh folder (mkdtemp) removed with everything in it when this goes out
// of scope: a report's plots, a diagnose run's capture, capture's raw records.
#pragma once
#include <filesystem>
#include <string>

namespace flashsim {

class TempFolder {
 public:
  /// Creates `parent`/`prefix`XXXXXX (parent: the system temp folder when
  /// empty). Throws Error naming the pattern and errno's text.
  explicit TempFolder(const std::string& prefix, const std::filesystem::path& parent = {});
  ~TempFolder();  ///< removes the folder; errors are ignored
  TempFolder(const TempFolder&) = delete;
  TempFolder& operator=(const TempFolder&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace flashsim
