#include "sim/run/progress.h"

#include <utility>

namespace flashsim {

ProgressReporter::ProgressReporter(std::ostream* out, bool terminal, std::string what, std::size_t total,
                                   std::chrono::milliseconds plain_interval)
    : out_(out),
      terminal_(terminal),
      what_(std::move(what)),
      total_(total),
      interval_(terminal ? std::chrono::milliseconds(100) : plain_interval) {}

void ProgressReporter::done(const std::string& label) {
  if (out_ == nullptr) return;
  std::lock_guard lock(mutex_);
  ++finished_;
  const bool last = finished_ == total_;
  const auto now = std::chrono::steady_clock::now();
  // The first item is shown at once: a long step says so within a second.
  if (!last && finished_ > 1 && now - last_shown_ < interval_) return;
  last_shown_ = now;
  const std::string prefix = what_.empty() ? "" : what_ + " ";
  if (terminal_) {
    *out_ << "\r\x1b[K" << prefix << "[" << finished_ << "/" << total_ << "] " << label;
    if (last) *out_ << "\n";
  } else {
    *out_ << prefix << "[" << finished_ << "/" << total_ << "] " << label << "\n";
  }
  *out_ << std::flush;
}

}  // namespace flashsim
