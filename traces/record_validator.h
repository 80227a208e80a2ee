// Checks every record a reader or importer hands out against schema v1's
// rules (traces/access_record.h), so a corrupt trace fails at the record
// that is wrong rather than deep inside a simulation.
#pragma once
#include <array>
#include <cstdint>
#include <limits>
#include <string>

#include "sim/core/hash_map.h"
#include "traces/access_record.h"

namespace flashsim {

/// Rules: 0 < bytes <= kMaxRecordBytes; next_use_index, when set, lies
/// after the record's own index (records are counted from 0 in the order
/// check() sees them); op is read or write; phase is a known value; time_ns is
/// non-decreasing within each stream (streams may interleave in any order:
/// time going backwards *within a stream* is an error, because the engine
/// issues a stream's accesses in order and the decision clock must not run
/// backwards). Time may be negative (an origin after the first record is
/// allowed, within ±kMaxAbsTimeNs); compute_ns may not (it is a duration,
/// at most kMaxComputeNs).
/// Largest bytes of one access (256 TiB): beyond it a size is corrupt, and
/// sums over a trace could overflow.
inline constexpr ByteCount kMaxRecordBytes = ByteCount{1} << 48;

class RecordValidator {
 public:
  /// Returns an empty string if `record` is valid after the records already
  /// seen, else a one-line description ("bytes == 0", "time goes backwards in
  /// stream 3: 120 ns after 150 ns"); the caller adds file and record/line.
  std::string check(const AccessRecord& record) {
    const std::uint64_t index = index_++;
    if (record.bytes != 0 && record.bytes <= kMaxRecordBytes &&
        (record.next_use_index == kNeverAccessedAgain || record.next_use_index > index) &&
        static_cast<unsigned>(record.op) <= 1 &&
        static_cast<unsigned>(record.phase) <= static_cast<unsigned>(Phase::decode) && record.compute_ns >= 0 &&
        record.compute_ns <= kMaxComputeNs && record.time_ns >= -kMaxAbsTimeNs && record.time_ns <= kMaxAbsTimeNs &&
        record.stream_id < kDirectStreams) {
      // Fast path: a valid record of a low-numbered stream.
      Nanoseconds& last = direct_[record.stream_id];
      if (record.time_ns >= last) {
        last = record.time_ns;
        return {};
      }
    }
    return check_slow(record, index);
  }

  /// Forgets the streams seen (for rewind()).
  void reset() {
    index_ = 0;
    direct_.fill(kUnseen);
    last_time_ns_.clear();
  }

 private:
  static constexpr std::uint32_t kDirectStreams = 64;
  static constexpr Nanoseconds kUnseen = std::numeric_limits<Nanoseconds>::min();
  std::string check_slow(const AccessRecord& record, std::uint64_t index);

  std::uint64_t index_ = 0;  // of the next record checked

  std::array<Nanoseconds, kDirectStreams> direct_ = make_unseen();
  HashMap<std::uint32_t, Nanoseconds> last_time_ns_;  // streams >= kDirectStreams

  static std::array<Nanoseconds, kDirectStreams> make_unseen() {
    std::array<Nanoseconds, kDirectStreams> a;
    a.fill(kUnseen);
    return a;
  }
};

}  // namespace flashsim
