#include "traces/stats/footprint.h"

#include <algorithm>
#include <vector>

#include "sim/core/hash_map.h"

namespace flashsim {

TraceFootprint measure_footprint(ITraceSource& source) {
  source.rewind();
  HashMap<BlockId, ByteCount> sizes;
  std::vector<AccessRecord> buffer(65536);
  TraceFootprint f;
  while (const std::size_t n = source.read(buffer)) {
    f.records += n;
    for (std::size_t i = 0; i < n; ++i) {
      auto [it, inserted] = sizes.try_emplace(buffer[i].block_id, buffer[i].bytes);
      if (!inserted) it->second = std::max(it->second, buffer[i].bytes);
    }
  }
  for (const auto& [id, bytes] : sizes) f.bytes += bytes;
  f.blocks = sizes.size();
  source.rewind();
  return f;
}

}  // namespace flashsim
