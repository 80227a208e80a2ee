// Progress of reading a trace (trace import, convert, stats): the
// record/byte-based variant of ProgressReporter (sim/run/progress.h), under
// its rule: on a terminal one line rewritten in place at most every 100 ms;
// elsewhere (a pipe, a log, Slurm's output file) plain lines at most every
// `plain_interval`, and at least that often ("running for") while a step
// reads nothing (a Kineto parse, the work after the last pass). The first
// line comes at once, before the trace is even opened, so a huge input is
// never silent; stdout is never touched.
#pragma once
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <ostream>
#include <stop_token>
#include <string>
#include <thread>

#include "traces/read_position.h"
#include "traces/trace_source.h"

namespace flashsim {

class ReadProgress {
 public:
  /// `out` null: silent. `what` prefixes every line ("flashsim trace stats:
  /// t.csv"); `first` is said at once after it ("reading 2.61 GB"). A
  /// `plain_interval` of 0 shows every update; the heartbeat waits at least
  /// kMinHeartbeat whatever the interval.
  ReadProgress(std::ostream* out, bool terminal, std::string what, const std::string& first,
               std::chrono::milliseconds plain_interval = std::chrono::seconds(10));
  ~ReadProgress();  ///< stops the heartbeat; on a terminal ends the line
  ReadProgress(const ReadProgress&) = delete;
  ReadProgress& operator=(const ReadProgress&) = delete;

  /// Pass `pass` (from 1), begun at `pass_start`, has read `records`; its
  /// fraction done from `position` (file bytes) when given, else records /
  /// `records_total` when that is > 0, else unknown; the time left in the
  /// pass from its rate so far. Shown when the interval has passed (the
  /// first update of a pass at once).
  void update(std::uint64_t pass, std::chrono::steady_clock::time_point pass_start, std::uint64_t records,
              std::uint64_t records_total, std::optional<ReadPosition> position);

  /// The last line, always shown: "<what> <text> (3.2 s)".
  void finish(const std::string& text);

  static constexpr std::chrono::milliseconds kMinHeartbeat{100};

 private:
  std::string state_text() const;  // under mutex_
  void show(const std::string& text, bool last);  // under mutex_
  void tick(std::stop_token stop);

  std::ostream* out_;
  bool terminal_;
  std::string what_;
  std::chrono::milliseconds interval_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point pass_start_ = start_;
  std::chrono::steady_clock::time_point last_shown_ = start_;
  std::uint64_t pass_ = 0, records_ = 0, records_total_ = 0;
  std::optional<ReadPosition> position_;
  bool finished_ = false;
  std::mutex mutex_;
  std::condition_variable_any wake_;
  std::jthread ticker_;  ///< last member: stopped first
};

/// `inner` as read through a ReadProgress: every read() reports the pass
/// (a rewind after records starts the next one), its records and, when
/// `inner` implements IReadPosition, its file position. `inner` and
/// `progress` must outlive this; errors are `inner`'s.
class ProgressTraceSource final : public ITraceSource {
 public:
  ProgressTraceSource(ITraceSource& inner, ReadProgress& progress);
  const TraceMeta& meta() const override { return inner_.meta(); }
  std::size_t read(std::span<AccessRecord> out) override;
  void rewind() override;
  /// Records of the last pass that read any (the trace's record count
  /// once a pass is complete), and passes that read records.
  std::uint64_t records_read() const { return records_ > 0 ? records_ : last_pass_records_; }
  std::uint64_t passes() const { return pass_ - (records_ == 0 ? 1 : 0); }

 private:
  ITraceSource& inner_;
  ReadProgress& progress_;
  const IReadPosition* position_;
  std::uint64_t pass_ = 1, records_ = 0, last_pass_records_ = 0;
  std::chrono::steady_clock::time_point pass_start_ = std::chrono::steady_clock::now();
};

}  // namespace flashsim
