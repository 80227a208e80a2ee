// CSV importer (format "csv"): one access per line, streamed; plain, .zst
// or .gz, UTF-8 or UTF-16 by its byte-order mark (traces/byte_stream.h).
//
// Columns are mapped to AccessRecord fields by header name or by 0-based
// index. Fields and their options (all text; see docs/traces.md):
//   time, block_id, bytes, op, stream_id, request_id, token_index, phase,
//   operator_id, compute_ns, address, offset, next_use_index
// A mapping value of digits only is a 0-based column index, anything else a
// header name (case-insensitive). Unmapped fields, when the file has a
// header, are looked up by their own name and a few aliases:
//   time: time_ns, time, timestamp, ts     block_id: block_id, id, obj_id, lbn, lba, key
//   bytes: bytes, size, obj_size           op: op, operation      stream_id: stream_id, stream
// and by their own name for the others. block_id is required; bytes is
// required unless default_bytes > 0; without a time column, time_ns is the
// record index (1 ns per access, a virtual clock); without op, every access
// is a read. Empty cells of optional fields read as their defaults.
#pragma once
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "sim/core/params.h"
#include "traces/block_ids.h"
#include "traces/read_position.h"
#include "traces/trace_source.h"

namespace flashsim {

struct CsvImportOptions {
  /// field → column name or 0-based index (as text). Fields as listed above.
  std::map<std::string, std::string> columns;
  /// Unit of the time column as a power of ten of ns: 0 ns, 3 µs, 6 ms, 9 s.
  /// Fractional values are rounded to the nearest ns (halves away from zero).
  int time_pow10 = 0;
  enum class Header { automatic, yes, no };
  /// automatic: the first line is a header iff none of its cells is a number.
  Header header = Header::automatic;
  char delimiter = ',';
  /// Cell values (compared case-insensitively) meaning read / write.
  std::vector<std::string> op_read = {"r", "read", "get", "gets", "0"};
  std::vector<std::string> op_write = {"w", "write", "set", "add", "replace", "cas", "append", "prepend", "update", "1"};
  /// Bytes of every access when no bytes column is mapped (0 = a bytes column is required).
  ByteCount default_bytes = 0;
  /// Block catalog CSV (id,name,bytes,address_begin,address_end,layer,kind by
  /// header name; id and bytes required): a path, "auto" (`<stem>.catalog.csv`
  /// beside the input if it exists) or "none".
  std::string catalog = "auto";
  /// How the block_id column reads (traces/block_ids.h): numeric, hex, text or hash.
  IdSyntax ids = IdSyntax::numeric;
};

/// The csv format's declared parameters: the field mappings above plus
/// time_unit (ns|us|ms|s), header (auto|yes|no), delimiter, op_read and
/// op_write (comma-separated values), default_bytes, ids and catalog.
std::vector<ParamSpec> csv_import_params();
/// Options from resolved parameters. Throws InputError on a bad value.
CsvImportOptions csv_import_options(const ParamValues& values);

/// Streams a CSV file. Construction reads the header (if any) and resolves
/// the column mapping: an unknown column name or an index beyond the header
/// is an InputError naming the file, the field and the header's columns.
/// read() throws InputError naming file:line, the column and the cell
/// ("trace.csv:12: column 'size' (field bytes): 'abc' is not a number").
/// meta().record_count is 0 until the first pass has reached the end.
class CsvTraceSource final : public ITraceSource, public IReadPosition {
 public:
  CsvTraceSource(std::filesystem::path path, CsvImportOptions options);
  ~CsvTraceSource() override;
  const TraceMeta& meta() const override;
  std::size_t read(std::span<AccessRecord> out) override;
  void rewind() override;
  ReadPosition read_position() const override;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

/// Reads a catalog CSV (see CsvImportOptions::catalog). Throws InputError naming file:line.
std::vector<BlockCatalogEntry> read_catalog_csv(const std::filesystem::path& path);

}  // namespace flashsim
