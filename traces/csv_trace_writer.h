// Writes a trace as CSV text (the format `flashsim trace convert` produces
// and the csv importer reads back with no options):
//
//   time_ns,block_id,bytes,op,stream_id,request_id,token_index,phase,operator_id,compute_ns,address,offset[,next_use_index]
//
// time_ns in ns; op "r" or "w"; phase "prefill", "decode" or empty; an
// optional field holding its default (access_record.h) is an empty cell;
// the next_use_index column is written only when meta.has_next_use.
// A non-empty catalog goes to a sidecar `<stem>.catalog.csv`
// (id,name,bytes,address_begin,address_end,layer,kind), which the csv
// importer picks up by default. Both files are written atomically.
#pragma once
#include <filesystem>
#include <memory>

#include "traces/trace_source.h"

namespace flashsim {

/// `<dir>/<stem>.catalog.csv` for a trace `<dir>/<stem>.csv` (also `.csv.gz`, `.csv.zst`).
std::filesystem::path catalog_sidecar_path(const std::filesystem::path& csv_path);

class CsvTraceWriter final : public ITraceSink {
 public:
  /// Throws Error if the temp file cannot be created.
  CsvTraceWriter(std::filesystem::path path, TraceMeta meta);
  ~CsvTraceWriter() override;
  CsvTraceWriter(const CsvTraceWriter&) = delete;
  CsvTraceWriter& operator=(const CsvTraceWriter&) = delete;

  void write(std::span<const AccessRecord> records) override;
  /// Flushes, writes the catalog sidecar, renames both into place. Throws Error on I/O failure.
  void finish() override;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace flashsim
