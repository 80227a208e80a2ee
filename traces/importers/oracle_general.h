// libCacheSim's oracleGeneral binary trace (format "oraclegeneral"), streamed.
// Each request is 24 bytes, little-endian, packed:
//   u32 clock_time (s) | u64 obj_id | u32 obj_size (bytes) | i64 next_access_vtime
// Mapping: time_ns = clock_time × 1e9; block_id = obj_id; bytes = obj_size;
// op = read; stream_id = 0. next_access_vtime is libCacheSim's *virtual time*
// of the object's next request, which counts requests from 1: request i
// (0-based) has vtime i + 1, so next_use_index = next_access_vtime − 1, and
// −1 (or INT64_MAX) means never requested again (kNeverAccessedAgain).
// Checked on the cloudPhysicsIO sample: for all 113,872 requests this equals
// the next-use index computed from the ids (tests/traces). has_next_use = true.
// A plain file whose size is not a multiple of 24 bytes is rejected at open,
// naming the incomplete record; a next_access_vtime not after its own request
// is rejected naming the record. A zstd-compressed file (.zst, or the zstd
// magic) is decompressed as it is read (traces/byte_stream.h); its record
// count is then unknown until the end, and a truncated stream fails there.
#pragma once
#include <filesystem>

#include "traces/importers/fixed_record_source.h"

namespace flashsim {

inline constexpr std::size_t kOracleGeneralRecordBytes = 24;

class OracleGeneralTraceSource final : public FixedRecordTraceSource {
 public:
  /// Throws InputError (file missing, truncated).
  explicit OracleGeneralTraceSource(std::filesystem::path path);

 private:
  bool decode(const unsigned char* p, std::uint64_t index, AccessRecord& r) override;
};

}  // namespace flashsim
