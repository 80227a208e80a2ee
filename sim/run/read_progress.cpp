#include "sim/run/read_progress.h"

#include <algorithm>
#include <utility>

#include "sim/results/results_table.h"
#include "sim/run/progress.h"

namespace flashsim {

namespace {

std::string seconds_text(std::chrono::steady_clock::duration d) {
  return format_duration(std::chrono::duration_cast<std::chrono::nanoseconds>(d).count());
}

}  // namespace

ReadProgress::ReadProgress(std::ostream* out, bool terminal, std::string what, const std::string& first,
                           std::chrono::milliseconds plain_interval)
    : out_(out),
      terminal_(terminal),
      what_(std::move(what)),
      interval_(terminal ? std::chrono::milliseconds(100) : plain_interval) {
  if (out_ == nullptr) return;
  std::lock_guard lock(mutex_);
  show(first, false);
  if (!terminal_) ticker_ = std::jthread([this](std::stop_token stop) { tick(stop); });
}

ReadProgress::~ReadProgress() {
  if (ticker_.joinable()) {
    ticker_.request_stop();
    ticker_.join();
  }
  if (out_ != nullptr && terminal_ && !finished_) *out_ << "\n" << std::flush;
}

std::string ReadProgress::state_text() const {
  if (pass_ == 0) return "opening";
  std::string text = "pass " + std::to_string(pass_) + ": " + format_count(static_cast<double>(records_)) + " records";
  double fraction = -1;
  if (position_ && position_->file_bytes > 0) {
    fraction = static_cast<double>(position_->file_bytes_read) / static_cast<double>(position_->file_bytes);
    text += ", " + format_bytes_si(position_->file_bytes_read) + " of " + format_bytes_si(position_->file_bytes);
  } else if (records_total_ > 0) {
    fraction = static_cast<double>(records_) / static_cast<double>(records_total_);
    text += " of " + format_count(static_cast<double>(records_total_));
  }
  if (fraction > 1) fraction = 1;
  if (fraction >= 0) text += " (" + format_percent(fraction) + ")";
  const auto now = std::chrono::steady_clock::now();
  text += ", " + seconds_text(now - pass_start_);
  // The pass's rate so far, over what is left of it.
  if (fraction > 0.01 && fraction < 1) {
    const auto left = std::chrono::duration_cast<std::chrono::steady_clock::duration>((now - pass_start_) *
                                                                                      ((1 - fraction) / fraction));
    text += ", about " + seconds_text(left) + " left in this pass";
  }
  return text;
}

void ReadProgress::show(const std::string& text, bool last) {
  last_shown_ = std::chrono::steady_clock::now();
  write_progress_line(*out_, terminal_, what_.empty() ? text : what_ + " " + text, last);
}

void ReadProgress::update(std::uint64_t pass, std::chrono::steady_clock::time_point pass_start,
                          std::uint64_t records, std::uint64_t records_total, std::optional<ReadPosition> position) {
  if (out_ == nullptr) return;
  std::lock_guard lock(mutex_);
  const auto now = std::chrono::steady_clock::now();
  const bool new_pass = pass != pass_;
  pass_start_ = pass_start;
  pass_ = pass;
  records_ = records;
  records_total_ = records_total;
  position_ = position;
  if (new_pass || now - last_shown_ >= interval_) show(state_text(), false);
}

void ReadProgress::finish(const std::string& text) {
  if (out_ == nullptr) return;
  std::lock_guard lock(mutex_);
  finished_ = true;
  show(text + " (" + seconds_text(std::chrono::steady_clock::now() - start_) + ")", true);
}

void ReadProgress::tick(std::stop_token stop) {
  std::unique_lock lock(mutex_);
  const auto beat = std::max(interval_, std::chrono::milliseconds(kMinHeartbeat));
  while (!stop.stop_requested() && !finished_) {
    wake_.wait_until(lock, stop, last_shown_ + beat, [] { return false; });
    if (stop.stop_requested() || finished_) return;
    const auto now = std::chrono::steady_clock::now();
    if (now - last_shown_ < beat) continue;
    show(state_text() + ", running for " + running_for_text(now - start_), false);
  }
}

ProgressTraceSource::ProgressTraceSource(ITraceSource& inner, ReadProgress& progress)
    : inner_(inner), progress_(progress), position_(dynamic_cast<const IReadPosition*>(&inner)) {}

std::size_t ProgressTraceSource::read(std::span<AccessRecord> out) {
  const std::size_t n = inner_.read(out);
  records_ += n;
  std::optional<ReadPosition> position;
  if (position_ != nullptr) position = position_->read_position();
  if (n > 0) progress_.update(pass_, pass_start_, records_, inner_.meta().record_count, position);
  return n;
}

void ProgressTraceSource::rewind() {
  inner_.rewind();
  pass_start_ = std::chrono::steady_clock::now();
  if (records_ > 0) {
    ++pass_;
    last_pass_records_ = records_;
    records_ = 0;
  }
}

}  // namespace flashsim
