// The event engine's first pass over a trace: numbers streams densely (in
// order of first appearance), checks what the engine relies on (bytes > 0,
// time non-decreasing within a stream; readers check the rest of schema v1
// through traces/record_validator.h), finds each stream's first issue time
// and record count, and, for offline policies, computes next use. Knowing
// every stream's first time up front keeps the replay's schedule
// independent of how far ahead it has read. The pass is light (no per-block
// work unless next use is wanted); blocks are numbered during the replay.
// A trace whose file lists its streams (TraceMeta::streams) and has no
// requests needs no pass: scan_from_summary, with SummaryCheck making the
// pass's checks on the replay (a 20 M-record trace is read once, not twice).
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "sim/cache/block_numbering.h"
#include "sim/core/hash_map.h"
#include "traces/trace_source.h"

namespace flashsim {

/// stream_id -> dense stream index, in order of first sight; ids below
/// 65536 (the usual case) through a plain table.
class StreamNumbering {
 public:
  static constexpr std::uint32_t kNone = 0xFFFFFFFFu;
  /// Index of `id`, or kNone if not numbered.
  std::uint32_t find(std::uint32_t id) const {
    if (id < direct_.size()) return direct_[id];
    auto it = map_.find(id);
    return it == map_.end() ? kNone : it->second;
  }
  /// Numbers `id` if new; returns its index and sets *added.
  std::uint32_t add(std::uint32_t id, bool* added);
  std::size_t size() const { return count_; }

 private:
  static constexpr std::uint32_t kDirectIds = 65536;  // ids below it are in direct_
  std::vector<std::uint32_t> direct_;
  HashMap<std::uint32_t, std::uint32_t> map_;
  std::uint32_t count_ = 0;
};

struct StreamScan {
  std::uint32_t stream_id = 0;
  Nanoseconds first_time_ns = 0;
  std::uint64_t records = 0;
};

/// A serving request's facts from the first pass (records with a request_id).
struct RequestScan {
  std::uint64_t request_id = 0;
  std::uint64_t records = 0;
  std::int32_t max_prefill_token = -1;  ///< largest token_index of its prefill records
  std::int32_t min_decode_token = -1;   ///< smallest / largest token_index of its decode records
  std::int32_t max_decode_token = -1;
  /// L_in of bandwidth reservation: 1 + largest prefill token_index (0 without prefill).
  std::uint64_t input_tokens() const { return static_cast<std::uint64_t>(max_prefill_token + 1); }
  /// L_out: decode token indices spanned (0 without decode records).
  std::uint64_t output_tokens() const {
    return max_decode_token < 0 ? 0 : static_cast<std::uint64_t>(max_decode_token - min_decode_token + 1);
  }
};

/// request_id -> dense request index, in order of first sight.
class RequestNumbering {
 public:
  static constexpr std::uint32_t kNone = 0xFFFFFFFFu;
  std::uint32_t find(std::uint64_t id) const {
    auto it = map_.find(id);
    return it == map_.end() ? kNone : it->second;
  }
  std::uint32_t add(std::uint64_t id, bool* added) {
    auto [it, inserted] = map_.emplace(id, static_cast<std::uint32_t>(map_.size()));
    *added = inserted;
    return it->second;
  }
  std::size_t size() const { return map_.size(); }

 private:
  HashMap<std::uint64_t, std::uint32_t> map_;
};

struct TraceScan {
  std::uint64_t records = 0;
  std::vector<StreamScan> streams;             ///< per dense stream index
  StreamNumbering stream_index;                ///< stream_id -> dense index
  Nanoseconds earliest_time_ns = 0;            ///< smallest time_ns (0 if no records)
  std::vector<std::uint64_t> next_use;         ///< per record; empty unless asked for
  std::vector<RequestScan> requests;           ///< per dense request index
  RequestNumbering request_index;              ///< request_id -> dense index
};

/// The order checks of a pass over records, per dense stream index: bytes
/// > 0 and time non-decreasing within a stream. Throws InputError naming the
/// trace's source and the record index.
class RecordOrderCheck {
 public:
  void check(const ITraceSource& trace, std::uint64_t record, const AccessRecord& r, std::uint32_t stream) {
    // Inline: every record of a pass comes here.
    if (stream < last_time_.size() && r.bytes > 0 && r.time_ns >= last_time_[stream]) [[likely]] {
      last_time_[stream] = r.time_ns;
      return;
    }
    check_slow(trace, record, r, stream);
  }

 private:
  void check_slow(const ITraceSource& trace, std::uint64_t record, const AccessRecord& r, std::uint32_t stream);

  std::vector<Nanoseconds> last_time_;  // per dense stream; the lowest value before its first record
};

/// The scan a trace's own stream summary gives (TraceMeta::streams), without
/// a pass, or nullopt when the trace has none or has requests (their facts
/// need the pass). next_use stays empty.
std::optional<TraceScan> scan_from_summary(const TraceMeta& meta);

/// The first pass's checks, made on the one replay pass of a scan taken from
/// the summary: RecordOrderCheck, and the records agree with the summary
/// (streams start in the listed order, at their first time; each has its
/// record count; no request_id). Throws
/// InputError naming the trace's source, the record and what disagrees.
class SummaryCheck {
 public:
  explicit SummaryCheck(const TraceScan& scan);
  /// `stream`: the record's dense index, or StreamNumbering::kNone when its
  /// stream_id is not in the summary.
  void check(const ITraceSource& trace, std::uint64_t record, const AccessRecord& r, std::uint32_t stream) {
    // Inline: every record of the replay passes here.
    if (stream < seen_.size() && r.request_id == kNoRequest && seen_[stream] > 0 &&
        seen_[stream] < scan_.streams[stream].records) [[likely]] {
      ++seen_[stream];
      order_.check(trace, record, r, stream);
      return;
    }
    check_slow(trace, record, r, stream);
  }

 private:
  void check_slow(const ITraceSource& trace, std::uint64_t record, const AccessRecord& r, std::uint32_t stream);

  const TraceScan& scan_;
  RecordOrderCheck order_;
  std::vector<std::uint64_t> seen_;        // records per dense stream so far
  std::uint32_t streams_started_ = 0;      // streams whose first record was seen (they start in listed order)
};

/// Reads `trace` from the start to the end (rewinding first and after).
/// With `compute_next_use`, fills next_use (8 bytes per record, in memory,
/// plus a hash map over the distinct blocks). Throws InputError naming the
/// trace's source and the record index on a record the engine cannot replay.
/// `visit`, when set, is called with every record and its index, in trace
/// order (oracle-fed prefetchers' preview, IPrefetcher::preview).
TraceScan scan_trace(ITraceSource& trace, bool compute_next_use,
                     const std::function<void(const AccessRecord&, std::uint64_t)>& visit = {});

}  // namespace flashsim
