#include "sim/engine/event/trace_scan.h"

#include <algorithm>
#include <limits>
#include <string>

#include "sim/core/errors.h"

namespace flashsim {

std::uint32_t StreamNumbering::add(std::uint32_t id, bool* added) {
  const std::uint32_t known = find(id);
  *added = known == kNone;
  if (!*added) return known;
  const std::uint32_t index = count_++;
  if (id < kDirectIds) {
    // Never past kDirectIds: find() takes an id the table covers as numbered there or not at all.
    if (id >= direct_.size()) {
      direct_.resize(std::min<std::size_t>(kDirectIds, std::max<std::size_t>(std::size_t(id) + 1, 2 * direct_.size())), kNone);
    }
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

void RecordOrderCheck::check_slow(const ITraceSource& trace, std::uint64_t record, const AccessRecord& r,
                                  std::uint32_t stream) {
  if (r.bytes == 0) fail(trace, record, "bytes == 0");
  if (stream >= last_time_.size()) last_time_.resize(std::size_t(stream) + 1, std::numeric_limits<Nanoseconds>::min());
  if (r.time_ns < last_time_[stream]) {
    fail(trace, record,
         "time goes backwards in stream " + std::to_string(r.stream_id) + ": " + std::to_string(r.time_ns) +
             " ns after " + std::to_string(last_time_[stream]) + " ns");
  }
  last_time_[stream] = r.time_ns;
}

std::optional<TraceScan> scan_from_summary(const TraceMeta& meta) {
  if (!meta.streams_known || meta.has_requests) return std::nullopt;
  TraceScan scan;
  scan.records = meta.record_count;
  for (const StreamSummary& st : meta.streams) {
    bool added;
    scan.stream_index.add(st.stream_id, &added);
    if (!added) return std::nullopt;  // a reader lets no duplicate through; a hand-made meta may
    if (scan.streams.empty() || st.first_time_ns < scan.earliest_time_ns) scan.earliest_time_ns = st.first_time_ns;
    scan.streams.push_back(StreamScan{st.stream_id, st.first_time_ns, st.records});
  }
  return scan;
}

SummaryCheck::SummaryCheck(const TraceScan& scan) : scan_(scan), seen_(scan.streams.size(), 0) {}

void SummaryCheck::check_slow(const ITraceSource& trace, std::uint64_t record, const AccessRecord& r,
                              std::uint32_t stream) {
  const std::string file = "; the file's /streams says otherwise (a trace edited after it was written?)";
  if (stream == StreamNumbering::kNone) fail(trace, record, "stream " + std::to_string(r.stream_id) + " is not listed" + file);
  if (r.request_id != kNoRequest) fail(trace, record, "has request " + std::to_string(r.request_id) + file);
  const StreamScan& st = scan_.streams[stream];
  if (seen_[stream] == 0 && stream != streams_started_) {
    fail(trace, record, "stream " + std::to_string(r.stream_id) + " starts here, but is listed as stream " +
                            std::to_string(stream) + " of those in order of first appearance" + file);
  }
  if (seen_[stream] == 0) ++streams_started_;
  if (seen_[stream] == 0 && r.time_ns != st.first_time_ns) {
    fail(trace, record, "the first record of stream " + std::to_string(r.stream_id) + " is at " +
                            std::to_string(r.time_ns) + " ns, not " + std::to_string(st.first_time_ns) + " ns" + file);
  }
  if (++seen_[stream] > st.records) {
    fail(trace, record, "stream " + std::to_string(r.stream_id) + " has more than its " + std::to_string(st.records) +
                            " records" + file);
  }
  order_.check(trace, record, r, stream);
}

TraceScan scan_trace(ITraceSource& trace, bool compute_next_use,
                     const std::function<void(const AccessRecord&, std::uint64_t)>& visit) {
  constexpr std::size_t kChunk = 16 * 1024;
  constexpr std::uint32_t kNoStream = 0xFFFFFFFFu;
  TraceScan scan;
  const std::size_t chunk_records = buffer_records_for(trace.meta(), kChunk);
  std::vector<AccessRecord> own;  // for a source that cannot lend its records
  std::uint32_t last_stream_id = 0, last_stream = kNoStream;
  RecordOrderCheck order;
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
      if (visit) visit(r, scan.records);
      if (r.stream_id != last_stream_id || last_stream == kNoStream) {
        bool added;
        last_stream = scan.stream_index.add(r.stream_id, &added);
        if (added) scan.streams.push_back(StreamScan{r.stream_id, r.time_ns, 0});
        last_stream_id = r.stream_id;
      }
      order.check(trace, scan.records, r, last_stream);
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
