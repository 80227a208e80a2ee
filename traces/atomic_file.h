// "Nothing is lost" (DESIGN.md, principle 5): outputs are written to
// `<target>.tmp-<pid>-XXXXXX` beside the target and renamed into place only when
// complete. Dropping an uncommitted AtomicFile removes its temp file; so does
// SIGINT/SIGTERM once main() called remove_temp_files_on_signals().
#pragma once
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace flashsim {

class AtomicFile {
 public:
  /// Creates an empty, uniquely named temp file beside `target`.
  /// Throws Error naming the directory if it cannot, and InputError when
  /// `target` exists and is not a regular file (a device such as /dev/null,
  /// a FIFO, a folder): the final rename would replace it.
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
  int slot_ = -1;  // in the registry of live temp files (-1: not registered)
};

/// Writes `text` to `target` through an AtomicFile: complete or absent.
/// Throws what AtomicFile throws, and Error naming the temp file (and the
/// target) when the write fails.
void write_file_atomically(const std::filesystem::path& target, std::string_view text);

/// Removes the temp file of every live (uncommitted, undiscarded) AtomicFile
/// of this process, then the folders of live SignalCleanupGuards.
/// Async-signal-safe (a fixed table of paths, unlink(2) and rmdir(2), no
/// allocation): this is what the signal handler calls. The AtomicFiles stay
/// registered as removed; their later commit() fails and discard() is a no-op.
/// At most kMaxLiveTempFiles temp files are tracked (further ones are not
/// removed on a signal, only by their destructor), each path below 4096 bytes.
void remove_live_temp_files() noexcept;
inline constexpr int kMaxLiveTempFiles = 64;

/// Registers a temp path (a file, or a folder that holds only registered
/// files) for removal on SIGINT/SIGTERM while the guard lives; the owner
/// still removes it normally. Files are unlinked before folders are removed.
/// Shares the kMaxLiveTempFiles table with AtomicFile (beyond it: not
/// removed on a signal). Throws nothing.
class SignalCleanupGuard {
 public:
  explicit SignalCleanupGuard(const std::filesystem::path& path) noexcept;
  ~SignalCleanupGuard();
  SignalCleanupGuard(const SignalCleanupGuard&) = delete;
  SignalCleanupGuard& operator=(const SignalCleanupGuard&) = delete;

 private:
  int slot_ = -1;
};

/// Temp names carry the pid of the process that made them: `<marker><pid>-`
/// (AtomicFile: ".tmp-"; the runner's builtin traces: "flashsim-builtin-").
/// A SIGKILL, a crash or a power cut leaves them behind; this removes every
/// entry of `dir` whose name has `marker` followed by the pid of a process
/// that no longer exists (kill(pid, 0) fails with ESRCH) and returns what
/// it removed. A name on another host's shared folder could carry a pid
/// alive here, and is then kept. Never throws (unreadable: nothing removed).
std::vector<std::filesystem::path> remove_stale_temp_files(const std::filesystem::path& dir, std::string_view marker);

/// "PREFIX removed N temp files left by killed runs: a, b" or "" if none.
std::string describe_removed(const std::vector<std::filesystem::path>& removed);

/// Installs a SIGINT and SIGTERM handler that calls remove_live_temp_files()
/// and then re-raises the signal with its default action (the process dies
/// of it, as without the handler). Called once by main().
void remove_temp_files_on_signals();

}  // namespace flashsim
