#include "traces/prefetching_trace_source.h"

#include <algorithm>

namespace flashsim {

PrefetchingTraceSource::PrefetchingTraceSource(std::unique_ptr<ITraceSource> inner, std::size_t chunk_records)
    : inner_(std::move(inner)), chunk_records_(buffer_records_for(inner_->meta(), chunk_records)) {
  start();
}

PrefetchingTraceSource::~PrefetchingTraceSource() { stop(); }

void PrefetchingTraceSource::start() {
  ready_.clear();
  ready_pos_ = 0;
  filled_ = 0;
  chunk_done_ = false;
  end_ = false;
  quit_ = false;
  error_ = nullptr;
  worker_ = std::thread([this] { fill_loop(); });
}

void PrefetchingTraceSource::stop() {
  {
    std::lock_guard lock(mutex_);
    quit_ = true;
  }
  cv_.notify_all();
  if (worker_.joinable()) worker_.join();
}

void PrefetchingTraceSource::fill_loop() {
  std::vector<AccessRecord> buffer(chunk_records_);
  for (;;) {
    std::size_t n = 0;
    std::exception_ptr error;
    try {
      n = inner_->read(buffer);
    } catch (...) {
      error = std::current_exception();
    }
    std::unique_lock lock(mutex_);
    cv_.wait(lock, [&] { return quit_ || !chunk_done_; });  // wait until the last chunk was taken
    if (quit_) return;
    filling_.swap(buffer);
    filled_ = n;
    error_ = error;
    end_ = (n == 0 || error != nullptr);
    chunk_done_ = true;
    cv_.notify_all();
    if (end_) return;
    if (buffer.size() != chunk_records_) buffer.resize(chunk_records_);
  }
}

bool PrefetchingTraceSource::refill() {
  std::unique_lock lock(mutex_);
  cv_.wait(lock, [&] { return chunk_done_; });
  if (error_) std::rethrow_exception(error_);
  if (filled_ == 0) return false;  // end of trace (chunk_done_ stays set: later reads return 0)
  // The chunk lent last goes to filling_, which the worker only swaps with
  // its own buffer: it is not written while a borrower may still read it.
  ready_.swap(filling_);
  ready_.resize(filled_);
  ready_pos_ = 0;
  chunk_done_ = false;
  cv_.notify_all();
  return true;
}

std::optional<std::span<const AccessRecord>> PrefetchingTraceSource::borrow(std::size_t max) {
  if (ready_pos_ == ready_.size() && !refill()) return std::span<const AccessRecord>{};
  const std::size_t n = std::min(max, ready_.size() - ready_pos_);
  const std::span<const AccessRecord> out(ready_.data() + ready_pos_, n);
  ready_pos_ += n;
  return out;
}

std::size_t PrefetchingTraceSource::read(std::span<AccessRecord> out) {
  std::size_t written = 0;
  while (written < out.size()) {
    if (ready_pos_ == ready_.size() && !refill()) break;
    const std::size_t n = std::min(out.size() - written, ready_.size() - ready_pos_);
    std::copy_n(ready_.begin() + static_cast<std::ptrdiff_t>(ready_pos_), n, out.begin() + static_cast<std::ptrdiff_t>(written));
    ready_pos_ += n;
    written += n;
  }
  return written;
}

void PrefetchingTraceSource::rewind() {
  stop();
  inner_->rewind();
  start();
}

}  // namespace flashsim
