// Reads a trace one chunk ahead on a background thread, so that decoding
// (HDF5 inflate, CSV parsing) overlaps the replay that consumes it. Memory
// stays bounded: two chunks of records.
#pragma once
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "traces/trace_source.h"

namespace flashsim {

class PrefetchingTraceSource final : public ITraceSource {
 public:
  /// Takes ownership of `inner`; reads `chunk_records` (> 0) at a time.
  /// An exception thrown by `inner` is rethrown by the read() that would
  /// have returned the failing chunk.
  explicit PrefetchingTraceSource(std::unique_ptr<ITraceSource> inner, std::size_t chunk_records = 16384);
  ~PrefetchingTraceSource() override;
  PrefetchingTraceSource(const PrefetchingTraceSource&) = delete;
  PrefetchingTraceSource& operator=(const PrefetchingTraceSource&) = delete;

  const TraceMeta& meta() const override { return inner_->meta(); }
  std::size_t read(std::span<AccessRecord> out) override;
  void rewind() override;
  /// Lends the decoded chunk itself (no copy of the records).
  std::optional<std::span<const AccessRecord>> borrow(std::size_t max) override;

 private:
  bool refill();  // the next decoded chunk into ready_; false at the end
  void start();
  void stop();
  void fill_loop();

  std::unique_ptr<ITraceSource> inner_;
  std::size_t chunk_records_;
  // The consumer drains `ready_` while the worker fills `filling_`; they swap
  // when the consumer runs dry and the worker has finished a chunk.
  std::vector<AccessRecord> ready_, filling_;
  std::size_t ready_pos_ = 0;
  std::size_t filled_ = 0;
  bool chunk_done_ = false;
  bool end_ = false;  // the worker hit the end of the trace
  bool quit_ = false;
  std::exception_ptr error_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::thread worker_;
};

}  // namespace flashsim
