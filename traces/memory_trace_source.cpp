#include <algorithm>
#include <string>

#include "sim/core/errors.h"
#include "traces/trace_source.h"

namespace flashsim {

MemoryTraceSource::MemoryTraceSource(TraceMeta meta, std::vector<AccessRecord> records)
    : meta_(std::move(meta)), records_(std::move(records)) {
  meta_.record_count = records_.size();
}

std::size_t MemoryTraceSource::read(std::span<AccessRecord> out) {
  const std::size_t n = std::min(out.size(), records_.size() - position_);
  std::copy_n(records_.begin() + static_cast<std::ptrdiff_t>(position_), n, out.begin());
  position_ += n;
  return n;
}

std::vector<AccessRecord> read_all_records(ITraceSource& trace) {
  std::vector<AccessRecord> records(trace.meta().record_count);
  trace.rewind();
  std::size_t got = 0;
  for (std::size_t n; got < records.size() && (n = trace.read(std::span<AccessRecord>(records).subspan(got))) > 0;) got += n;
  if (got != records.size()) {
    throw InputError("trace '" + trace.meta().source + "': " + std::to_string(got) + " records read, record_count says " +
                     std::to_string(records.size()));
  }
  return records;
}

}  // namespace flashsim
