#include "traces/trace_formats.h"

#include <fstream>
#include <vector>

#include "sim/core/errors.h"
#include "sim/core/input_file.h"
#include "traces/byte_stream.h"
#include "traces/csv_trace_writer.h"
#include "traces/hdf5_trace.h"
#include "traces/text_fields.h"

namespace flashsim {

namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The formats read through ByteStream (traces/byte_stream.h), so .zst works.
bool reads_zstd(const std::string& format) {
  return format == "oraclegeneral" || format == "txt" || format == "vscsi" || format == "twr" || format == "lcs";
}

// libCacheSim lcs files start with the magic 0x123456789abcdef0 (little-endian).
bool starts_with_lcs_magic(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  unsigned char b[8] = {};
  if (!in.read(reinterpret_cast<char*>(b), 8)) return false;
  std::uint64_t magic = 0;
  for (int i = 7; i >= 0; --i) magic = (magic << 8) | b[i];
  return magic == 0x123456789abcdef0ull;
}

FLASHSIM_REGISTER_TRACE_FORMAT((TraceFormatRegistry::Entry{
    "hdf5",
    "flashsim's canonical trace file (schema v1; traces/hdf5_trace.h)",
    {{"window_records", ParamType::integer, "65536", "records read per hyperslab (memory bound)", 1, 1e8, {}}},
    [](const ParamValues& p, const TraceOpenContext& c) -> std::unique_ptr<ITraceSource> {
      return std::make_unique<Hdf5TraceSource>(c.path, static_cast<std::size_t>(p.integer("window_records")));
    }}));

}  // namespace

std::string detect_trace_format(const std::filesystem::path& path) {
  // Inside a .zst the name without it tells the format.
  const bool zstd = is_zstd_file(path);
  const std::string name = name_without_zstd(path);
  if (ends_with(name, ".h5") || ends_with(name, ".hdf5")) return "hdf5";
  if (ends_with(name, ".csv")) return "csv";
  if (ends_with(name, ".oraclegeneral") || ends_with(name, ".oraclegeneral.bin")) return "oraclegeneral";
  if (ends_with(name, ".json") || ends_with(name, ".json.gz")) return "kineto";
  if (ends_with(name, ".txt")) return "txt";
  if (ends_with(name, ".vscsi")) return "vscsi";
  if (ends_with(name, ".twr") || ends_with(name, ".twr.bin")) return "twr";
  if (ends_with(name, ".lcs") || ends_with(name, ".lcs.bin")) return "lcs";
  if (!zstd && input_file_problem(path).empty()) {
    if (is_hdf5_file(path)) return "hdf5";
    if (starts_with_lcs_magic(path)) return "lcs";
  }
  throw InputError(path.string() +
                   ": cannot tell the trace format from the name (known: .h5/.hdf5 → hdf5, .csv → csv, "
                   ".oracleGeneral[.bin] → oraclegeneral, .json[.gz] → kineto, .txt → txt, .vscsi → vscsi, "
                   ".twr[.bin] → twr, .lcs[.bin] → lcs, each also inside .zst); give the format explicitly");
}

std::unique_ptr<ITraceSource> open_trace(const std::filesystem::path& path, const std::string& format,
                                         const std::map<std::string, std::string>& options) {
  const std::string name = format.empty() ? detect_trace_format(path) : trace_text::to_lower(format);
  const auto& entry = TraceFormatRegistry::instance().find(name);
  require_input_file(path, true);  // a folder: raw capture files
  if (!reads_zstd(name) && std::filesystem::is_regular_file(path) && is_zstd_file(path)) {
    throw InputError(path.string() + ": zstd-compressed, and the " + name +
                     " reader does not decompress (the streamed formats oraclegeneral, txt, vscsi, twr and lcs "
                     "do); decompress it first: zstd -d " + path.string());
  }
  return entry.factory(ParamValues::resolve("trace format " + name, entry.params, options), TraceOpenContext{path});
}

std::unique_ptr<ITraceSink> create_trace_sink(const std::filesystem::path& path, const TraceMeta& meta,
                                              const Hdf5WriteOptions& h5_options) {
  const std::string name = trace_text::to_lower(path.filename().string());
  if (ends_with(name, ".h5") || ends_with(name, ".hdf5")) {
    return std::make_unique<Hdf5TraceWriter>(path, meta, h5_options);
  }
  if (ends_with(name, ".csv")) return std::make_unique<CsvTraceWriter>(path, meta);
  throw InputError(path.string() + ": output trace must end in .h5, .hdf5 or .csv");
}

std::uint64_t copy_trace(ITraceSource& source, ITraceSink& sink, std::size_t chunk) {
  source.rewind();
  std::vector<AccessRecord> buffer(std::max<std::size_t>(1, chunk));
  std::uint64_t total = 0;
  while (const std::size_t n = source.read(buffer)) {
    sink.write(std::span<const AccessRecord>(buffer.data(), n));
    total += n;
  }
  sink.finish();
  return total;
}

}  // namespace flashsim
