// Progress of a long step (resolving a sweep, running its points) on a
// stream, so that nothing long is silent: on a terminal one line rewritten
// in place, elsewhere (a log, a pipe, Slurm's output file) plain lines at
// most every `plain_interval` (and at least that often while items are in
// flight), and always the last.
#pragma once
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>
#include <ostream>
#include <stop_token>
#include <string>
#include <thread>

namespace flashsim {

/// One progress line on `out`: on a terminal it replaces the current line
/// ("\r", clear to end) and ends it only when `last`; elsewhere a plain
/// line. Flushed. Shared by ProgressReporter and ReadProgress
/// (sim/run/read_progress.h).
void write_progress_line(std::ostream& out, bool terminal, const std::string& line, bool last);

/// "42s", "2m10s": the heartbeat's "running for" time.
std::string running_for_text(std::chrono::steady_clock::duration elapsed);

class ProgressReporter {
 public:
  /// `out` null: silent. `terminal`: rewrite one line ("\r[3/10] label"),
  /// at most every 100 ms; else "[3/10] label" lines at most every
  /// `plain_interval`. `what` prefixes each line when not empty.
  ProgressReporter(std::ostream* out, bool terminal, std::string what, std::size_t total,
                   std::chrono::milliseconds plain_interval = std::chrono::seconds(10));

  ~ProgressReporter();
  ProgressReporter(const ProgressReporter&) = delete;
  ProgressReporter& operator=(const ProgressReporter&) = delete;

  /// One more item done (thread-safe). The last item is always shown (on a
  /// terminal followed by a newline).
  void done(const std::string& label);

 private:
  void tick(std::stop_token stop);

  std::ostream* out_;
  bool terminal_;
  std::string what_;
  std::size_t total_;
  std::chrono::milliseconds interval_;
  std::size_t finished_ = 0;
  std::chrono::steady_clock::time_point last_shown_{};
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::mutex mutex_;
  std::condition_variable_any wake_;
  /// Not on a terminal: a "[3/10] ... running for 2m10s" line whenever
  /// `plain_interval` passed without one, so a log shows the sweep is alive
  /// while long runs are in flight. Last member: stopped first.
  std::jthread ticker_;
};

/// Progress of a step made of passes over the same items (a sweep merge:
/// "reading point summaries", then "merging point results"): one
/// ProgressReporter per pass, begun when the pass's first item is done.
/// Silent when `out` is null or the passes have fewer than `min_items`.
class PassProgress {
 public:
  PassProgress(std::ostream* out, bool terminal, std::size_t min_items = 1000)
      : out_(out), terminal_(terminal), min_items_(min_items) {}
  /// Item `done` of `total` of pass `pass` finished (the MergeProgress shape).
  void operator()(const char* pass, std::size_t done, std::size_t total);

 private:
  std::ostream* out_;
  bool terminal_;
  std::size_t min_items_;
  std::string pass_;
  std::unique_ptr<ProgressReporter> reporter_;
};

}  // namespace flashsim
