// The canonical trace file (HDF5, schema v1). Layout:
//
//   /                      attributes: schema_version (i32, = 1), source (string),
//                          units (string), record_count (u64), has_next_use (u8 0/1)
//   /records/<field>       one 1-D dataset per AccessRecord field, chunked
//                          (default 65,536 records), byte-shuffled and deflated (level 1):
//                          time_ns i64, block_id u64, bytes u64, op u8 (0 read,
//                          1 write), stream_id u32                    -- always present
//                          request_id u64, token_index i32, phase u8, operator_id u32,
//                          compute_ns i64, address u64, offset u64 -- present only if
//                          some record differs from the default in access_record.h
//                          next_use_index u64                         -- present iff has_next_use
//   /catalog/<column>      the block catalog, one entry per element: id u64,
//                          name (variable-length UTF-8), bytes u64, address_begin u64,
//                          address_end u64, layer i32, kind (variable-length UTF-8);
//                          optional (written only when some entry is not default,
//                          absent = defaults): segment (string), concept_id i32,
//                          embedding_length u32 (floats per entry) with embedding
//                          f32 (every entry's floats, concatenated)
//   /operators/<column>    optional, present iff TraceMeta::operators is non-empty,
//                          one element per operator (index = operator_id): name,
//                          segment (strings), layer i32, compute_ns i64,
//                          blocks_length u32 + blocks u64, routed_blocks_length u32 +
//                          routed_blocks u64 (ragged lists, concatenated)
//
// A reader fills defaults for absent optional datasets. Every dataset of
// /records has record_count elements. Object timestamps are off, so the same
// records and options give byte-identical files. Writers stream: memory is
// one chunk of records whatever the trace length.
#pragma once
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "traces/record_validator.h"
#include "traces/trace_source.h"

namespace flashsim {

/// The `units` attribute written to every file.
inline constexpr const char* kTraceUnits =
    "time_ns: ns; compute_ns: ns; bytes: bytes; address: bytes; offset: bytes; "
    "block_id, stream_id, request_id, operator_id: identifiers; token_index, next_use_index: counts";

struct Hdf5WriteOptions {
  std::size_t chunk_records = 65536;  ///< records per HDF5 chunk and per append
  /// 0..9 (0: neither shuffle nor deflate). Level 1 writes ~1.5× faster than
  /// 4 for a file a few % larger; reading costs the same at any level
  /// (inflate dominates: ~7 M records/s compressed vs ~21 M/s at level 0 for
  /// the five core fields on this project's 2-core dev machine).
  int deflate_level = 1;
  bool omit_default_fields = true;    ///< leave out optional datasets whose values are all default
};

/// Writes a trace file. Records are buffered one chunk at a time and
/// appended by extending the datasets. The file is built as
/// `<path>.tmp-XXXXXX` and renamed onto `path` by finish(); destroying the
/// writer without finish() removes the temp file, leaving `path` untouched.
/// Records are written as given; readers validate them (RecordValidator).
class Hdf5TraceWriter final : public ITraceSink {
 public:
  /// `meta`: source, has_next_use, catalog and operators are written; record_count is
  /// counted. Throws Error if the temp file cannot be created.
  Hdf5TraceWriter(std::filesystem::path path, TraceMeta meta, Hdf5WriteOptions options = {});
  ~Hdf5TraceWriter() override;
  Hdf5TraceWriter(const Hdf5TraceWriter&) = delete;
  Hdf5TraceWriter& operator=(const Hdf5TraceWriter&) = delete;

  /// Appends records. Throws Error after finish().
  void write(std::span<const AccessRecord> records) override;
  /// Replaces the catalog to be written (importers that learn it while reading).
  void set_catalog(std::vector<BlockCatalogEntry> catalog);
  /// Writes the rest, closes and renames into place. Throws Error on I/O failure (temp removed).
  void finish() override;

  std::uint64_t records_written() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

/// Reads a trace file front to back in windows of `window_records`
/// (one hyperslab per dataset per window); memory is bounded by the window.
/// Construction checks: the file opens as HDF5; schema_version is present
/// and equals kTraceSchemaVersion; record_count is present; the core
/// datasets exist; every /records dataset is 1-D with record_count elements;
/// has_next_use implies a next_use_index dataset; catalog columns have equal
/// lengths. read() checks each record with RecordValidator. All errors are
/// InputError naming the file and the dataset or record index.
class Hdf5TraceSource final : public ITraceSource {
 public:
  explicit Hdf5TraceSource(std::filesystem::path path, std::size_t window_records = 65536);
  ~Hdf5TraceSource() override;
  Hdf5TraceSource(const Hdf5TraceSource&) = delete;
  Hdf5TraceSource& operator=(const Hdf5TraceSource&) = delete;

  const TraceMeta& meta() const override;
  std::size_t read(std::span<AccessRecord> out) override;
  void rewind() override;

  /// Names of the /records datasets in the file, in schema order.
  std::vector<std::string> present_fields() const;
  /// The `units` attribute ("" if absent).
  const std::string& units() const;

 private:
  struct State;
  static void open(State& s);  ///< the constructor's reading, whose errors it names by the file
  /// open() and the first and last record windows, in a child process
  /// first (traces/child_probe.h); throws InputError if that child dies.
  static void probe(const State& s);
  std::unique_ptr<State> state_;
};

/// True if `path` starts with the HDF5 signature.
bool is_hdf5_file(const std::filesystem::path& path);

}  // namespace flashsim
