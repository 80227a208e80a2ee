#include "sim/run/progress.h"

#include <utility>

namespace flashsim {

ProgressReporter::ProgressReporter(std::ostream* out, bool terminal, std::string what, std::size_t total,
                                   std::chrono::milliseconds plain_interval)
    : out_(out),
      terminal_(terminal),
      what_(std::move(what)),
      total_(total),
      interval_(terminal ? std::chrono::milliseconds(100) : plain_interval) {
  if (out_ != nullptr && !terminal_ && total_ > 0) {
    last_shown_ = start_;
    ticker_ = std::jthread([this](std::stop_token stop) { tick(stop); });
  }
}

ProgressReporter::~ProgressReporter() {
  if (ticker_.joinable()) {
    ticker_.request_stop();
    ticker_.join();
  }
}

void ProgressReporter::tick(std::stop_token stop) {
  std::unique_lock lock(mutex_);
  while (!stop.stop_requested() && finished_ < total_) {
    wake_.wait_until(lock, stop, last_shown_ + interval_, [] { return false; });
    if (stop.stop_requested() || finished_ >= total_) return;
    const auto now = std::chrono::steady_clock::now();
    if (now - last_shown_ < interval_) continue;
    last_shown_ = now;
    write_progress_line(*out_, false,
                        (what_.empty() ? "" : what_ + " ") + "[" + std::to_string(finished_) + "/" +
                            std::to_string(total_) + "] running for " + running_for_text(now - start_),
                        true);
  }
}

void ProgressReporter::done(const std::string& label) {
  if (out_ == nullptr) return;
  std::lock_guard lock(mutex_);
  ++finished_;
  const bool last = finished_ == total_;
  const auto now = std::chrono::steady_clock::now();
  // The first item is shown at once: a long step says so within a second.
  if (!last && finished_ > 1 && now - last_shown_ < interval_) return;
  last_shown_ = now;
  write_progress_line(*out_, terminal_,
                      (what_.empty() ? "" : what_ + " ") + "[" + std::to_string(finished_) + "/" +
                          std::to_string(total_) + "] " + label,
                      last);
}

void PassProgress::operator()(const char* pass, std::size_t done, std::size_t total) {
  if (out_ == nullptr || total < min_items_) return;
  if (!reporter_ || pass_ != pass) {
    reporter_.reset();  // the previous pass's last line is out
    pass_ = pass;
    reporter_ = std::make_unique<ProgressReporter>(out_, terminal_, pass_, total);
  }
  reporter_->done("point " + std::to_string(done - 1));
}

void write_progress_line(std::ostream& out, bool terminal, const std::string& line, bool last) {
  if (terminal) {
    out << "\r\x1b[K" << line;
    if (last) out << "\n";
  } else {
    out << line << "\n";
  }
  out << std::flush;
}

std::string running_for_text(std::chrono::steady_clock::duration elapsed) {
  const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(elapsed).count();
  return seconds >= 60 ? std::to_string(seconds / 60) + "m" + std::to_string(seconds % 60) + "s"
                       : std::to_string(seconds) + "s";
}

}  // namespace flashsim
