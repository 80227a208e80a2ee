// The event engine's first pass over a trace: numbers blocks and streams
// densely (in order of first appearance), checks what the engine relies on
// (bytes > 0, time non-decreasing within a stream; readers check the rest
// of schema v1 through traces/record_validator.h), finds each stream's first issue time and
// record count, and, for offline policies, computes next use. The replay
// pass then reads the trace again in chunks; knowing every stream's first
// time up front keeps the schedule independent of how far ahead the
// replay has read.
#pragma once
#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "traces/trace_source.h"

namespace flashsim {

/// BlockId -> BlockIndex. After freeze(), ids that are dense enough
/// (largest id < 4·count + 1024) are looked up in a plain table.
class BlockNumbering {
 public:
  /// Index of `id`, adding it if new. Throws InputError past 2^32 − 1 blocks.
  BlockIndex add(BlockId id);
  /// Builds the direct table when the ids allow it; add() must not follow.
  void freeze();
  /// Index of an id already added (undefined for others).
  BlockIndex at(BlockId id) const {
    if (!direct_.empty()) return direct_[id];
    return map_.find(id)->second;
  }
  /// Index of `id`, or false if it was never added.
  bool find(BlockId id, BlockIndex* index) const {
    if (!direct_.empty()) {
      if (id >= direct_.size() || ids_[direct_[id]] != id) return false;
      *index = direct_[id];
      return true;
    }
    auto it = map_.find(id);
    if (it == map_.end()) return false;
    *index = it->second;
    return true;
  }
  std::size_t size() const { return ids_.size(); }
  BlockId id(BlockIndex index) const { return ids_[index]; }

 private:
  absl::flat_hash_map<BlockId, BlockIndex> map_;
  std::vector<BlockId> ids_;
  std::vector<BlockIndex> direct_;
  BlockId max_id_ = 0;
};

struct StreamScan {
  std::uint32_t stream_id = 0;
  Nanoseconds first_time_ns = 0;
  std::uint64_t records = 0;
};

struct TraceScan {
  std::uint64_t records = 0;
  BlockNumbering blocks;
  std::vector<ByteCount> max_bytes;            ///< per BlockIndex: largest record bytes
  std::vector<StreamScan> streams;             ///< per dense stream index
  absl::flat_hash_map<std::uint32_t, std::uint32_t> stream_index;  ///< stream_id -> dense index
  Nanoseconds earliest_time_ns = 0;            ///< smallest first_time_ns (0 if no records)
  std::vector<std::uint64_t> next_use;         ///< per record; empty unless asked for
};

/// Reads `trace` from the start to the end (rewinding first and after).
/// With `compute_next_use`, fills next_use (8 bytes per record, in memory).
/// Throws InputError naming the trace's source and the record index on an
/// invalid record.
TraceScan scan_trace(ITraceSource& trace, bool compute_next_use);

}  // namespace flashsim
