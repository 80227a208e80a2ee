#include "sim/engine/trace_scan.h"

#include <algorithm>
#include <string>

#include "sim/core/errors.h"

namespace flashsim {

BlockIndex BlockNumbering::add(BlockId id) {
  auto [it, added] = map_.try_emplace(id, static_cast<BlockIndex>(ids_.size()));
  if (added) {
    if (ids_.size() >= 0xFFFFFFFFull) throw InputError("trace has more than 2^32 - 1 distinct blocks");
    ids_.push_back(id);
    max_id_ = std::max(max_id_, id);
  }
  return it->second;
}

void BlockNumbering::freeze() {
  if (ids_.empty() || max_id_ >= 4 * ids_.size() + 1024) return;
  direct_.assign(max_id_ + 1, 0);
  for (std::size_t i = 0; i < ids_.size(); ++i) direct_[ids_[i]] = static_cast<BlockIndex>(i);
}

namespace {
[[noreturn]] void fail(const ITraceSource& trace, std::uint64_t record, const std::string& problem) {
  throw InputError("trace '" + trace.meta().source + "', record " + std::to_string(record) + ": " + problem);
}
}  // namespace

TraceScan scan_trace(ITraceSource& trace, bool compute_next_use) {
  constexpr std::size_t kChunk = 16 * 1024;
  TraceScan scan;
  constexpr std::uint32_t kNoStream = 0xFFFFFFFFu;
  std::uint32_t last_stream_id = 0, last_stream = kNoStream;
  std::vector<Nanoseconds> last_time;  // per dense stream
  std::vector<AccessRecord> chunk(kChunk);
  std::vector<std::uint64_t> last_use;  // per BlockIndex, for next use
  if (compute_next_use) scan.next_use.reserve(trace.meta().record_count);
  bool any = false;
  trace.rewind();
  for (std::size_t n; (n = trace.read(chunk)) > 0;) {
    for (std::size_t k = 0; k < n; ++k, ++scan.records) {
      const AccessRecord& r = chunk[k];
      if (r.bytes == 0) fail(trace, scan.records, "bytes == 0");
      const BlockIndex b = scan.blocks.add(r.block_id);
      if (b >= scan.max_bytes.size()) scan.max_bytes.resize(std::size_t(b) + 1, 0);
      scan.max_bytes[b] = std::max(scan.max_bytes[b], r.bytes);
      if (r.stream_id != last_stream_id || last_stream == kNoStream) {
        auto [it, added] = scan.stream_index.try_emplace(r.stream_id, static_cast<std::uint32_t>(scan.streams.size()));
        if (added) {
          scan.streams.push_back(StreamScan{r.stream_id, r.time_ns, 0});
          last_time.push_back(r.time_ns);
        }
        last_stream_id = r.stream_id;
        last_stream = it->second;
      }
      if (r.time_ns < last_time[last_stream]) {
        fail(trace, scan.records,
             "time goes backwards in stream " + std::to_string(r.stream_id) + ": " + std::to_string(r.time_ns) +
                 " ns after " + std::to_string(last_time[last_stream]) + " ns");
      }
      last_time[last_stream] = r.time_ns;
      ++scan.streams[last_stream].records;
      if (!any || r.time_ns < scan.earliest_time_ns) scan.earliest_time_ns = r.time_ns;
      any = true;
      if (compute_next_use) {
        if (b >= last_use.size()) last_use.resize(std::max<std::size_t>(std::size_t(b) + 1, last_use.size() * 2),
                                                  kNeverAccessedAgain);
        if (last_use[b] != kNeverAccessedAgain) scan.next_use[last_use[b]] = scan.records;
        last_use[b] = scan.records;
        scan.next_use.push_back(kNeverAccessedAgain);
      }
    }
  }
  scan.blocks.freeze();
  trace.rewind();
  return scan;
}

}  // namespace flashsim
