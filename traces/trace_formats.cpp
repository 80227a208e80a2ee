#include "traces/trace_formats.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <optional>
#include <vector>

#include "sim/core/errors.h"
#include "sim/core/input_file.h"
#include "sim/core/temp_folder.h"
#include "traces/atomic_file.h"
#include "traces/byte_stream.h"
#include "traces/csv_trace_writer.h"
#include "traces/hdf5_trace.h"
#include "traces/text_fields.h"

namespace flashsim {

namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The formats that read a .zst or .gz themselves: streamed through
// ByteStream (traces/byte_stream.h), or, for hdf5, through a decompressed
// temp copy.
bool reads_compressed(const std::string& format) {
  return format == "oraclegeneral" || format == "txt" || format == "vscsi" || format == "twr" || format == "lcs" ||
         format == "csv" || format == "kineto" || format == "hdf5";
}

// HDF5 reads by offset (superblock, B-trees, chunk index), which a zstd or
// gzip stream cannot give: a .h5.zst (.h5.gz) is decompressed once, streamed, into a
// private folder in TMPDIR and read from there. The copy goes with this
// source (RAII: also when opening it throws), on SIGINT/SIGTERM (the
// signal guards), and after a SIGKILL at the next .zst open.
class DecompressedHdf5Source final : public ITraceSource {
 public:
  DecompressedHdf5Source(const std::filesystem::path& path, std::size_t window_records)
      : folder_(temp_prefix()), folder_guard_(folder_.path()), copy_(folder_.path() / name_without_compression(path)),
        copy_guard_(copy_) {
    std::error_code ec;
    const auto compressed = std::filesystem::file_size(path, ec);
    std::cerr << "flashsim: " << path.string() << ": HDF5 needs random access, so this compressed file ("
              << (ec ? std::string("size unknown") : std::to_string(compressed) + " B") << ") is decompressed to "
              << copy_.string() << " first and removed when done (TMPDIR chooses the folder)\n";
    decompress(path);
    try {
      inner_.emplace(copy_, window_records);
    } catch (const InputError& e) {
      throw InputError(path.string() + " (decompressed to " + copy_.string() + "): " + e.what());
    }
  }

  const TraceMeta& meta() const override { return inner_->meta(); }
  std::size_t read(std::span<AccessRecord> out) override { return inner_->read(out); }
  void rewind() override { inner_->rewind(); }

 private:
  static std::string temp_prefix() {
    std::error_code ec;
    const std::filesystem::path base = std::filesystem::temp_directory_path(ec);
    const std::string removed = describe_removed(remove_stale_temp_files(ec ? "/tmp" : base, "flashsim-zstd-"));
    if (!removed.empty()) std::cerr << "flashsim: " << removed << "\n";
    return "flashsim-zstd-" + std::to_string(::getpid()) + "-";
  }

  void decompress(const std::filesystem::path& path) {
    ByteStream in(path);
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> out(std::fopen(copy_.c_str(), "wb"), &std::fclose);
    if (!out) throw Error(copy_.string() + ": cannot create the decompressed copy: " + std::strerror(errno));
    std::vector<char> chunk(std::size_t{1} << 20);
    while (const std::size_t n = in.read(chunk.data(), chunk.size())) {
      if (std::fwrite(chunk.data(), 1, n, out.get()) != n) {
        throw Error(copy_.string() + ": cannot write the decompressed copy of " + path.string() + " (at byte " +
                    std::to_string(in.position() - n) + "): " + std::strerror(errno));
      }
    }
    if (std::fclose(out.release()) != 0) {
      throw Error(copy_.string() + ": cannot write the decompressed copy of " + path.string() + ": " +
                  std::strerror(errno));
    }
  }

  // Declaration order is destruction order reversed: the HDF5 file closes,
  // then the copy and its folder go.
  TempFolder folder_;
  SignalCleanupGuard folder_guard_;
  std::filesystem::path copy_;
  SignalCleanupGuard copy_guard_;
  std::optional<Hdf5TraceSource> inner_;
};

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
    "flashsim's canonical trace file (schema v1; traces/hdf5_trace.h); .h5.zst through a decompressed temp copy",
    {{"window_records", ParamType::integer, "65536", "records read per hyperslab (memory bound)", 1, 1e8, {}}},
    [](const ParamValues& p, const TraceOpenContext& c) -> std::unique_ptr<ITraceSource> {
      const auto window = static_cast<std::size_t>(p.integer("window_records"));
      if (std::filesystem::is_regular_file(c.path) && compression_of(c.path) != Compression::none) {
        return std::make_unique<DecompressedHdf5Source>(c.path, window);
      }
      return std::make_unique<Hdf5TraceSource>(c.path, window);
    }}));

}  // namespace

std::string detect_trace_format(const std::filesystem::path& path) {
  // Inside a .zst or .gz the name without it tells the format.
  const bool compressed = compression_of(path) != Compression::none;
  const std::string name = name_without_compression(path);
  if (ends_with(name, ".h5") || ends_with(name, ".hdf5")) return "hdf5";
  if (ends_with(name, ".csv")) return "csv";
  if (ends_with(name, ".oraclegeneral") || ends_with(name, ".oraclegeneral.bin")) return "oraclegeneral";
  if (ends_with(name, ".json")) return "kineto";
  if (ends_with(name, ".txt")) return "txt";
  if (ends_with(name, ".vscsi")) return "vscsi";
  if (ends_with(name, ".twr") || ends_with(name, ".twr.bin")) return "twr";
  if (ends_with(name, ".lcs") || ends_with(name, ".lcs.bin")) return "lcs";
  if (ends_with(name, ".raw")) return "cupti";
  if (std::error_code ec; std::filesystem::is_directory(path, ec)) {
    // A folder is a trace only as raw capture files (flashsim capture --keep-raw).
    for (const auto& e : std::filesystem::directory_iterator(path, ec)) {
      if (e.path().extension() == ".raw") return "cupti";
    }
    throw InputError(path.string() + ": a folder with no *.raw capture files; give a trace file (or the folder "
                     "`flashsim capture --keep-raw` wrote)");
  }
  if (!compressed && input_file_problem(path).empty()) {
    if (is_hdf5_file(path)) return "hdf5";
    if (starts_with_lcs_magic(path)) return "lcs";
  }
  throw InputError(path.string() +
                   ": cannot tell the trace format from the name (known: .h5/.hdf5 → hdf5, .csv → csv, "
                   ".oracleGeneral[.bin] → oraclegeneral, .json → kineto, .txt → txt, .vscsi → vscsi, "
                   ".twr[.bin] → twr, .lcs[.bin] → lcs, each also inside .zst or .gz, .raw or a folder of them → cupti); give the "
                   "format explicitly (--format, or format: in the scenario)");
}

std::unique_ptr<ITraceSource> open_trace(const std::filesystem::path& path, const std::string& format,
                                         const std::map<std::string, std::string>& options) {
  const std::string name = format.empty() ? detect_trace_format(path) : trace_text::to_lower(format);
  const auto& entry = TraceFormatRegistry::instance().find(name);
  require_input_file(path, true);  // a folder: raw capture files
  if (const Compression c = std::filesystem::is_regular_file(path) ? compression_of(path) : Compression::none;
      c != Compression::none && !reads_compressed(name)) {
    const bool zstd = c == Compression::zstd;
    throw InputError(path.string() + (zstd ? ": zstd" : ": gzip") + "-compressed, and the " + name +
                     " reader does not decompress (oraclegeneral, txt, vscsi, twr, lcs, csv and kineto stream it; "
                     "hdf5 reads a decompressed temp copy); decompress it first: " + (zstd ? "zstd -d " : "gzip -dk ") +
                     path.string());
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
