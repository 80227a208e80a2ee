// The event engine's first pass over a trace: numbers streams densely (in
// order of first appearance), checks what the engine relies on (bytes > 0,
// time non-decreasing within a stream; readers check the rest of schema v1
// through traces/record_validator.h), finds each stream's first issue time
// and record count, and, for offline policies, computes next use. Knowing
// every stream's first time up front keeps the replay's schedule
// independent of how far ahead it has read. The pass is light (no per-block
// work unless next use is wanted); blocks are numbered during the replay.
#pragma once
#include <cstdint>
#include <functional>
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

/// Reads `trace` from the start to the end (rewinding first and after).
/// With `compute_next_use`, fills next_use (8 bytes per record, in memory,
/// plus a hash map over the distinct blocks). Throws InputError naming the
/// trace's source and the record index on a record the engine cannot replay.
/// `visit`, when set, is called with every record and its index, in trace
/// order (oracle-fed prefetchers' preview, IPrefetcher::preview).
TraceScan scan_trace(ITraceSource& trace, bool compute_next_use,
                     const std::function<void(const AccessRecord&, std::uint64_t)>& visit = {});

}  // namespace flashsim
