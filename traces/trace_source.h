// Streaming access to traces: readers hand out records in chunks so memory
// stays bounded however long the trace (DESIGN.md, principle 3).
#pragma once
#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "traces/access_record.h"

namespace flashsim {

/// A stream of AccessRecords, read front to back, restartable.
class ITraceSource {
 public:
  virtual ~ITraceSource() = default;

  /// Facts about the trace; record_count may be 0 if unknown before reading.
  virtual const TraceMeta& meta() const = 0;

  /// Fills up to out.size() records; returns how many (0 = end of trace).
  /// Throws InputError naming the file and record index on corrupt input.
  virtual std::size_t read(std::span<AccessRecord> out) = 0;

  /// Back to the first record (drivers make several passes: next-use, replay).
  virtual void rewind() = 0;

  /// Reading without a copy: up to `max` (> 0) next records in storage the
  /// source owns, valid until its next read, borrow or rewind; an empty span
  /// at the end of the trace. nullopt: this source cannot lend (the caller
  /// read()s into its own buffer). Throws what read() throws.
  virtual std::optional<std::span<const AccessRecord>> borrow(std::size_t max) {
    (void)max;
    return std::nullopt;
  }
};

/// Receives records in order and writes them somewhere.
class ITraceSink {
 public:
  virtual ~ITraceSink() = default;
  virtual void write(std::span<const AccessRecord> records) = 0;
  /// Completes the output (for files: flush, then atomic rename into place).
  /// Records written after finish() are an error.
  virtual void finish() = 0;
};

/// Every record of `trace`, from the start to the end (for drivers that
/// index records, e.g. a trace's program). Throws what the reader throws, and
/// InputError naming the trace when a known meta().record_count (not 0) is
/// not what came.
std::vector<AccessRecord> read_all_records(ITraceSource& trace);

/// Records a read buffer needs for `meta`'s trace: `limit`, or the trace's
/// record_count when it is known and smaller (at least 1). A captured
/// program of a few hundred records should not page in megabytes of
/// zeroed buffer before its first event.
std::size_t buffer_records_for(const TraceMeta& meta, std::size_t limit);

/// The next up to `max` (> 0) records of `trace`: lent by the source when it
/// can (ITraceSource::borrow), else read into `own` (resized as needed).
/// Valid until the next call; empty at the end. Throws what the source throws.
std::span<const AccessRecord> next_records(ITraceSource& trace, std::vector<AccessRecord>& own, std::size_t max);

/// A trace held in memory (generators, tests, embedded default input). Its
/// meta's record_count is the records' count, and it lists no streams
/// (TraceMeta::streams_known false).
class MemoryTraceSource final : public ITraceSource {
 public:
  MemoryTraceSource(TraceMeta meta, std::vector<AccessRecord> records);
  const TraceMeta& meta() const override { return meta_; }
  std::size_t read(std::span<AccessRecord> out) override;
  void rewind() override { position_ = 0; }
  std::optional<std::span<const AccessRecord>> borrow(std::size_t max) override;
  const std::vector<AccessRecord>& records() const { return records_; }

 private:
  TraceMeta meta_;
  std::vector<AccessRecord> records_;
  std::size_t position_ = 0;
};

}  // namespace flashsim
