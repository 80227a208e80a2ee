#include <algorithm>
#include <string>

#include "sim/core/errors.h"
#include "traces/trace_source.h"

namespace flashsim {

MemoryTraceSource::MemoryTraceSource(TraceMeta meta, std::vector<AccessRecord> records)
    : meta_(std::move(meta)), records_(std::move(records)) {
  meta_.record_count = records_.size();
  // A summary describes the records it was computed from, not these.
  meta_.streams_known = false;
  meta_.streams.clear();
}

std::size_t MemoryTraceSource::read(std::span<AccessRecord> out) {
  const std::size_t n = std::min(out.size(), records_.size() - position_);
  std::copy_n(records_.begin() + static_cast<std::ptrdiff_t>(position_), n, out.begin());
  position_ += n;
  return n;
}

std::optional<std::span<const AccessRecord>> MemoryTraceSource::borrow(std::size_t max) {
  const std::size_t n = std::min(max, records_.size() - position_);
  const std::span<const AccessRecord> out(records_.data() + position_, n);
  position_ += n;
  return out;
}

std::vector<AccessRecord> read_all_records(ITraceSource& trace) {
  // Read to the end: text formats learn their record count only there.
  const std::uint64_t expected = trace.meta().record_count;
  std::vector<AccessRecord> records;
  records.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(expected, 1u << 24)));
  trace.rewind();
  std::vector<AccessRecord> chunk(buffer_records_for(trace.meta(), 65536));
  while (const std::size_t n = trace.read(chunk)) records.insert(records.end(), chunk.begin(), chunk.begin() + static_cast<std::ptrdiff_t>(n));
  if (expected != 0 && records.size() != expected) {
    throw InputError("trace '" + trace.meta().source + "': " + std::to_string(records.size()) +
                     " records read, record_count says " + std::to_string(expected));
  }
  return records;
}

}  // namespace flashsim

namespace flashsim {

std::size_t buffer_records_for(const TraceMeta& meta, std::size_t limit) {
  if (meta.record_count > 0 && meta.record_count < limit) return static_cast<std::size_t>(meta.record_count);
  return std::max<std::size_t>(limit, 1);
}

std::span<const AccessRecord> next_records(ITraceSource& trace, std::vector<AccessRecord>& own, std::size_t max) {
  if (const auto lent = trace.borrow(max)) return *lent;
  if (own.size() != max) own.resize(max);
  return {own.data(), trace.read(own)};
}

}  // namespace flashsim
