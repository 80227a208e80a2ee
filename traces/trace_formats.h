// Trace formats found by name (Ramulator 2's registry; no switch on names):
// "hdf5" (the canonical file), "csv", libCacheSim's "oraclegeneral", "txt",
// "vscsi", "twr" and "lcs", and "kineto" (PyTorch profiler chrome traces);
// each also zstd- or gzip-compressed (streamed; hdf5 through a temp copy).
// Each importer is one file in
// traces/importers/ that registers a factory of ITraceSource with its
// declared options; adding a format is adding a file.
#pragma once
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>

#include "sim/core/registry.h"
#include "traces/hdf5_trace.h"
#include "traces/trace_source.h"

namespace flashsim {

/// What every trace-format factory gets besides its options.
struct TraceOpenContext {
  std::filesystem::path path;  ///< the input file
};

using TraceFormatRegistry = Registry<ITraceSource, TraceOpenContext>;

#define FLASHSIM_REGISTER_TRACE_FORMAT(entry_expr) FLASHSIM_REGISTER(::flashsim::TraceFormatRegistry, entry_expr)

/// The format of `path` from its name (less a trailing .zst or .gz), then its
/// first bytes: .h5/.hdf5 (or the HDF5 signature) → "hdf5"; .csv → "csv";
/// *.oracleGeneral, *.oracleGeneral.bin → "oraclegeneral"; .json →
/// "kineto"; .txt → "txt"; .vscsi → "vscsi"; .twr[.bin] → "twr"; .lcs[.bin]
/// (or the lcs magic) → "lcs"; .raw, or a folder holding *.raw → "cupti".
/// Throws InputError naming the path and the accepted extensions.
std::string detect_trace_format(const std::filesystem::path& path);

/// Opens `path` as `format` ("" = detect_trace_format) with options (key →
/// value text, checked against the format's declared parameters: an unknown
/// key is an error). Throws UnknownNameError (format) or InputError (also
/// for a zstd- or gzip-compressed file in a format that cannot read one:
/// cupti, nsys). A compressed hdf5 file is decompressed into a folder in TMPDIR first
/// (one line on stderr says so), removed when the source is destroyed; a
/// failed write there is an Error naming the copy.
std::unique_ptr<ITraceSource> open_trace(const std::filesystem::path& path, const std::string& format = "",
                                         const std::map<std::string, std::string>& options = {});

/// A sink for `path` chosen by extension: .h5/.hdf5 → Hdf5TraceWriter
/// (traces/hdf5_trace.h, with `h5_options`), .csv → CsvTraceWriter
/// (traces/csv_trace_writer.h). Throws InputError for other extensions.
std::unique_ptr<ITraceSink> create_trace_sink(const std::filesystem::path& path, const TraceMeta& meta,
                                              const Hdf5WriteOptions& h5_options = {});

/// Rewinds `source`, streams every record into `sink` in chunks of `chunk`
/// records, and calls sink.finish(). Returns the number of records copied.
std::uint64_t copy_trace(ITraceSource& source, ITraceSink& sink, std::size_t chunk = 65536);

}  // namespace flashsim
