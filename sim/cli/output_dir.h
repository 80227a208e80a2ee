// Results folders of the subcommands, checked before any work is done.
#pragma once
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "traces/atomic_file.h"

namespace flashsim::cli {

/// A command's results folder: created (with missing parents) and checked
/// writable before any work; temp files that killed runs left in it are
/// removed (and said on stderr). If the command fails before keep(), the
/// folders this created are removed again when still empty, so a failed run
/// leaves no empty folders behind; so does SIGINT/SIGTERM (the folders are
/// registered with SignalCleanupGuard). After SIGKILL an empty folder stays
/// and the next run into it uses it.
class OutputDir {
 public:
  /// Throws InputError naming `dir` (a file in the way, no permission).
  explicit OutputDir(std::filesystem::path dir);
  ~OutputDir();
  OutputDir(const OutputDir&) = delete;
  OutputDir& operator=(const OutputDir&) = delete;

  const std::filesystem::path& path() const { return dir_; }
  /// The command succeeded: the folders stay.
  void keep() { kept_ = true; }

 private:
  std::filesystem::path dir_;
  std::vector<std::filesystem::path> created_;  ///< outermost first
  std::vector<std::unique_ptr<SignalCleanupGuard>> on_signal_;
  bool kept_ = false;
};

/// An output file (`--json FILE` and the like) that could not be written,
/// said before any work: throws InputError "<option> <path>: ..." when the
/// path is a folder, exists and is not a regular file, or its folder does
/// not exist.
void check_output_path(const char* option, const std::string& path);

/// When `path` is something flashsim wrote rather than an input (a results
/// folder, its summary.json, sweep.json or results.h5, a `flashsim
/// validate` folder or its validation.json), what it is and the commands
/// that read it, naming the scenario it ran ("… not a scenario: `flashsim
/// report r1/summary.json` …; its scenario was scenarios/x.yaml: `flashsim
/// run scenarios/x.yaml` runs it again"); a folder of unmerged shards is told
/// `flashsim sweep merge`. Else "". Reads the JSON file (or the folder's
/// summary.json or sweep.json); never throws.
std::string describe_flashsim_output(const std::filesystem::path& path);

}  // namespace flashsim::cli
