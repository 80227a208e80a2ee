#include "traces/stats/footprint.h"

#include <algorithm>
#include <limits>
#include <vector>

#include "sim/core/hash_map.h"

namespace flashsim {

TraceFootprint measure_footprint(ITraceSource& source) {
  source.rewind();
  HashMap<BlockId, ByteCount> sizes;
  std::vector<AccessRecord> buffer(65536);
  TraceFootprint f;
  f.first_time_ns = std::numeric_limits<Nanoseconds>::max();
  while (const std::size_t n = source.read(buffer)) {
    f.records += n;
    for (std::size_t i = 0; i < n; ++i) {
      f.first_time_ns = std::min(f.first_time_ns, buffer[i].time_ns);
      f.last_time_ns = std::max(f.last_time_ns, buffer[i].time_ns);
      auto [it, inserted] = sizes.try_emplace(buffer[i].block_id, buffer[i].bytes);
      if (!inserted) it->second = std::max(it->second, buffer[i].bytes);
    }
  }
  if (f.records == 0) f.first_time_ns = 0;
  for (const auto& [id, bytes] : sizes) f.bytes += bytes;
  f.blocks = sizes.size();
  source.rewind();
  return f;
}

}  // namespace flashsim
