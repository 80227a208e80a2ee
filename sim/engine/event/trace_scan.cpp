#include "sim/engine/event/trace_scan.h"

#include <algorithm>
#include <string>

#include "sim/core/errors.h"

namespace flashsim {

std::uint32_t StreamNumbering::add(std::uint32_t id, bool* added) {
  const std::uint32_t known = find(id);
  *added = known == kNone;
  if (!*added) return known;
  const std::uint32_t index = count_++;
  if (id < 65536) {
    if (id >= direct_.size()) direct_.resize(std::max<std::size_t>(std::size_t(id) + 1, 2 * direct_.size()), kNone);
    direct_[id] = index;
  } else {
    map_.emplace(id, index);
  }
  return index;
}

namespace {
[[noreturn]] void fail(const ITraceSource& trace, std::uint64_t record, const std::string& problem) {
  throw InputError("trace '" + trace.meta().source + "', record " + std::to_string(record) + ": " + problem);
}
}  // namespace

TraceScan scan_trace(ITraceSource& trace, bool compute_next_use,
                     const std::function<void(const AccessRecord&, std::uint64_t)>& visit) {
  constexpr std::size_t kChunk = 16 * 1024;
  constexpr std::uint32_t kNoStream = 0xFFFFFFFFu;
  TraceScan scan;
  const std::size_t chunk_records = buffer_records_for(trace.meta(), kChunk);
  std::vector<AccessRecord> own;  // for a source that cannot lend its records
  std::uint32_t last_stream_id = 0, last_stream = kNoStream;
  std::vector<Nanoseconds> last_time;  // per dense stream
  BlockNumbering blocks;                // next use only
  std::vector<std::uint64_t> last_use;  // per block, next use only
  std::uint64_t last_request_id = kNoRequest;
  std::uint32_t last_request = RequestNumbering::kNone;
  if (compute_next_use) scan.next_use.reserve(trace.meta().record_count);
  trace.rewind();
  // In place where the source lends its chunk: a copy of every 104-byte
  // record was most of this pass's own time.
  for (std::span<const AccessRecord> chunk; !(chunk = next_records(trace, own, chunk_records)).empty();) {
    const std::size_t n = chunk.size();
    for (std::size_t k = 0; k < n; ++k, ++scan.records) {
      const AccessRecord& r = chunk[k];
      if (r.bytes == 0) fail(trace, scan.records, "bytes == 0");
      if (visit) visit(r, scan.records);
      if (r.stream_id != last_stream_id || last_stream == kNoStream) {
        bool added;
        last_stream = scan.stream_index.add(r.stream_id, &added);
        if (added) {
          scan.streams.push_back(StreamScan{r.stream_id, r.time_ns, 0});
          last_time.push_back(r.time_ns);
        }
        last_stream_id = r.stream_id;
      }
      if (r.time_ns < last_time[last_stream]) {
        fail(trace, scan.records,
             "time goes backwards in stream " + std::to_string(r.stream_id) + ": " + std::to_string(r.time_ns) +
                 " ns after " + std::to_string(last_time[last_stream]) + " ns");
      }
      last_time[last_stream] = r.time_ns;
      ++scan.streams[last_stream].records;
      if (scan.records == 0 || r.time_ns < scan.earliest_time_ns) scan.earliest_time_ns = r.time_ns;
      if (r.request_id != kNoRequest) {
        if (r.request_id != last_request_id) {
          bool added;
          last_request = scan.request_index.add(r.request_id, &added);
          if (added) scan.requests.push_back(RequestScan{r.request_id, 0, -1, -1, -1});
          last_request_id = r.request_id;
        }
        RequestScan& q = scan.requests[last_request];
        ++q.records;
        if (r.token_index >= 0) {
          if (r.phase == Phase::prefill) {
            q.max_prefill_token = std::max(q.max_prefill_token, r.token_index);
          } else if (r.phase == Phase::decode) {
            if (q.min_decode_token < 0 || r.token_index < q.min_decode_token) q.min_decode_token = r.token_index;
            q.max_decode_token = std::max(q.max_decode_token, r.token_index);
          }
        }
      }
      if (compute_next_use) {
        bool added;
        const BlockIndex b = blocks.index(r.block_id, &added);
        if (added) last_use.push_back(kNeverAccessedAgain);
        if (last_use[b] != kNeverAccessedAgain) scan.next_use[last_use[b]] = scan.records;
        last_use[b] = scan.records;
        scan.next_use.push_back(kNeverAccessedAgain);
      }
    }
  }
  trace.rewind();
  return scan;
}

}  // namespace flashsim
