#include "traces/stats/footprint.h"

#include <algorithm>
#include <limits>
#include <vector>

#include "sim/core/hash_map.h"
#include "sim/core/saturating.h"
#include "traces/granularity.h"

namespace flashsim {

TraceFootprint measure_footprint(ITraceSource& source, ByteCount piece_bytes) {
  source.rewind();
  HashMap<BlockId, ByteCount> sizes;
  std::vector<AccessRecord> buffer(buffer_records_for(source.meta(), 65536));
  TraceFootprint f;
  f.first_time_ns = std::numeric_limits<Nanoseconds>::max();
  while (const std::size_t n = source.read(buffer)) {
    f.records += n;
    for (std::size_t i = 0; i < n; ++i) {
      f.first_time_ns = std::min(f.first_time_ns, buffer[i].time_ns);
      f.last_time_ns = std::max(f.last_time_ns, buffer[i].time_ns);
      if (piece_bytes > 0) f.piece_accesses = saturating_add(f.piece_accesses, piece_count(buffer[i].bytes, piece_bytes));
      auto [it, inserted] = sizes.try_emplace(buffer[i].block_id, buffer[i].bytes);
      if (!inserted) it->second = std::max(it->second, buffer[i].bytes);
    }
  }
  if (f.records == 0) f.first_time_ns = 0;
  for (const auto& [id, bytes] : sizes) {
    f.bytes += bytes;
    if (piece_bytes > 0) f.pieces = saturating_add(f.pieces, piece_count(bytes, piece_bytes));
  }
  f.blocks = sizes.size();
  source.rewind();
  return f;
}

}  // namespace flashsim
