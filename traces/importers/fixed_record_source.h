// What libCacheSim's binary formats share (oraclegeneral, vscsi, twr, lcs):
// an optional header, then fixed-size little-endian records, read through a
// ByteStream (plain or zstd) in batches. A format says how one record maps
// to an AccessRecord; this base does the streaming, the truncation checks,
// the record validation and the error context (file and record index).
#pragma once
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "traces/byte_stream.h"
#include "traces/read_position.h"
#include "traces/record_validator.h"
#include "traces/trace_source.h"

namespace flashsim {

/// A little-endian value at `p` (this build targets little-endian hosts).
template <class T>
T load_le(const unsigned char* p) {
  T value;
  std::memcpy(&value, p, sizeof(T));
  return value;
}

/// Which operation libCacheSim's req_op_e code `code` is (libCacheSim's
/// include/libCacheSim/enum.h): get/gets (1, 2) and read (12) read;
/// set … decr (3–11: set, add, cas, replace, append, prepend, delete, incr,
/// decr), write (13) and update (14) write (flashsim has no delete: it is a
/// write of the object); nop (0) and invalid (15, "not recorded") read.
/// None for codes above 15.
std::optional<AccessOp> libcachesim_op(std::uint32_t code);

/// `v` in lower-case hexadecimal without a prefix ("1a2b"), for messages
/// naming magic numbers and command bytes.
inline std::string hex_text(std::uint64_t v) {
  static const char* digits = "0123456789abcdef";
  std::string s;
  do {
    s.insert(s.begin(), digits[v % 16]);
    v /= 16;
  } while (v != 0);
  return s;
}

class FixedRecordTraceSource : public ITraceSource, public IReadPosition {
 public:
  ~FixedRecordTraceSource() override;
  const TraceMeta& meta() const override { return meta_; }
  ReadPosition read_position() const override { return {stream_.file_position(), stream_.file_size()}; }
  /// Throws InputError naming the file and record index (0-based, counted
  /// over the file's records) for an incomplete record, a record the format
  /// rejects, or one RecordValidator rejects.
  std::size_t read(std::span<AccessRecord> out) override;
  void rewind() override;

 protected:
  /// Opens `path` (plain or zstd); `format` names the format in messages.
  /// Throws InputError (missing file).
  FixedRecordTraceSource(std::filesystem::path path, std::string format);

  /// Call once from the derived constructor after reading the header (if
  /// any) from stream(): records start at `header_bytes`, each
  /// `record_bytes` long. `declared_records` is the count a header states
  /// (checked against the data), if any. For a plain file a size that is
  /// not header + whole records is an InputError here, naming the
  /// incomplete record. With `skip_zero_size`, records decode() drops make
  /// the count unknown (meta().record_count = 0).
  void start(std::uint64_t header_bytes, std::size_t record_bytes, std::optional<std::uint64_t> declared_records,
             bool skip_zero_size);

  /// Fills `r` (already reset to defaults) from the record at `p`, whose
  /// index in the file is `index`; returns false to drop it (zero size with
  /// skip_zero_size). Throws via fail().
  virtual bool decode(const unsigned char* p, std::uint64_t index, AccessRecord& r) = 0;

  /// Throws InputError "<file>: record <index>: <problem>".
  [[noreturn]] void fail(std::uint64_t index, const std::string& problem) const;

  /// libCacheSim's next-access vtime of record `index` as a next_use_index:
  /// vtime counts requests from 1, so next_use_index = vtime − 1; −1 and
  /// INT64_MAX mean never again, as does a vtime past a known record count
  /// (a prefix of a longer trace). A vtime not after its own request fails.
  std::uint64_t next_use_from_vtime(std::int64_t vtime, std::uint64_t index) const;

  /// How many records the data holds when known (plain file, or a header's
  /// count), before any are dropped.
  std::optional<std::uint64_t> file_records() const { return file_records_; }
  bool skip_zero_size() const { return skip_zero_size_; }
  ByteStream& stream() { return stream_; }
  const std::string& where() const { return stream_.where(); }

  TraceMeta meta_;

 private:
  void skip_header();

  ByteStream stream_;
  std::string format_;
  std::uint64_t header_bytes_ = 0;
  std::size_t record_bytes_ = 0;
  std::optional<std::uint64_t> file_records_;
  std::optional<std::uint64_t> declared_records_;
  bool skip_zero_size_ = false;
  std::vector<unsigned char> raw_;
  std::uint64_t index_ = 0;  // file index of the next record
  bool ended_ = false;
  RecordValidator validator_;
};

}  // namespace flashsim
