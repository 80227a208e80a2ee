// Checks every record a reader or importer hands out against schema v1's
// rules (traces/access_record.h), so a corrupt trace fails at the record
// that is wrong rather than deep inside a simulation.
#pragma once
#include <cstdint>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "traces/access_record.h"

namespace flashsim {

/// Rules: bytes > 0; op is read or write; phase is a known value; time_ns is
/// non-decreasing within each stream (streams may interleave in any order:
/// time going backwards *within a stream* is an error, because the engine
/// issues a stream's accesses in order and the decision clock must not run
/// backwards). Time may be negative (an origin after the first record is allowed).
class RecordValidator {
 public:
  /// Returns an empty string if `record` is valid after the records already
  /// seen, else a one-line description ("bytes == 0", "time goes backwards in
  /// stream 3: 120 ns after 150 ns"); the caller adds file and record/line.
  std::string check(const AccessRecord& record);

  /// Forgets the streams seen (for rewind()).
  void reset() { last_time_ns_.clear(); }

 private:
  absl::flat_hash_map<std::uint32_t, Nanoseconds> last_time_ns_;
};

}  // namespace flashsim
