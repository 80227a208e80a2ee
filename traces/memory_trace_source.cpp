#include <algorithm>

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

}  // namespace flashsim
