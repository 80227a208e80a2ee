#include "traces/importers/oracle_general.h"

#include <cstring>
#include <fstream>
#include <limits>
#include <vector>

#include "sim/core/errors.h"
#include "traces/record_validator.h"
#include "traces/trace_formats.h"

namespace flashsim {

namespace {

template <class T>
T load_le(const unsigned char* p) {
  // Little-endian on disk; this build targets little-endian hosts (x86-64, aarch64).
  T value;
  std::memcpy(&value, p, sizeof(T));
  return value;
}

constexpr std::size_t kBatch = 4096;

}  // namespace

struct OracleGeneralTraceSource::State {
  std::filesystem::path path;
  std::string where;
  TraceMeta meta;
  std::ifstream in;
  std::vector<unsigned char> raw;
  std::uint64_t index = 0;
  RecordValidator validator;
};

OracleGeneralTraceSource::OracleGeneralTraceSource(std::filesystem::path path) : state_(std::make_unique<State>()) {
  State& s = *state_;
  s.path = std::move(path);
  s.where = s.path.string();
  std::error_code ec;
  const auto size = std::filesystem::file_size(s.path, ec);
  if (ec) throw InputError(s.where + ": cannot read: " + ec.message());
  if (size == 0) throw InputError(s.where + ": empty file: an oracleGeneral trace holds 24-byte records");
  if (size % kOracleGeneralRecordBytes != 0) {
    throw InputError(s.where + ": truncated oracleGeneral trace: " + std::to_string(size) +
                     " bytes is not a multiple of 24; record " + std::to_string(size / kOracleGeneralRecordBytes) +
                     " is incomplete (" + std::to_string(size % kOracleGeneralRecordBytes) + " of 24 bytes)");
  }
  s.in.open(s.path, std::ios::binary);
  if (!s.in) throw InputError(s.where + ": cannot open for reading");
  s.meta.source = "oraclegeneral:" + s.where;
  s.meta.record_count = size / kOracleGeneralRecordBytes;
  s.meta.has_next_use = true;
  s.raw.resize(kBatch * kOracleGeneralRecordBytes);
}

OracleGeneralTraceSource::~OracleGeneralTraceSource() = default;

const TraceMeta& OracleGeneralTraceSource::meta() const { return state_->meta; }

std::size_t OracleGeneralTraceSource::read(std::span<AccessRecord> out) {
  State& s = *state_;
  std::size_t filled = 0;
  while (filled < out.size() && s.index < s.meta.record_count) {
    const std::size_t n = static_cast<std::size_t>(
        std::min<std::uint64_t>({kBatch, out.size() - filled, s.meta.record_count - s.index}));
    if (!s.in.read(reinterpret_cast<char*>(s.raw.data()), static_cast<std::streamsize>(n * kOracleGeneralRecordBytes))) {
      throw InputError(s.where + ": record " + std::to_string(s.index) + ": read failed (file changed while reading?)");
    }
    for (std::size_t i = 0; i < n; ++i, ++s.index) {
      const unsigned char* p = s.raw.data() + i * kOracleGeneralRecordBytes;
      AccessRecord& r = out[filled + i];
      r = AccessRecord{};
      r.time_ns = static_cast<Nanoseconds>(load_le<std::uint32_t>(p)) * kNsPerS;
      r.block_id = load_le<std::uint64_t>(p + 4);
      r.bytes = load_le<std::uint32_t>(p + 12);
      const auto vtime = load_le<std::int64_t>(p + 16);
      if (vtime == -1 || vtime == std::numeric_limits<std::int64_t>::max()) {
        r.next_use_index = kNeverAccessedAgain;
      } else if (vtime <= 0 || static_cast<std::uint64_t>(vtime) - 1 <= s.index) {
        throw InputError(s.where + ": record " + std::to_string(s.index) + ": next_access_vtime " +
                         std::to_string(vtime) + " is not after this request (vtime " + std::to_string(s.index + 1) +
                         "; libCacheSim counts requests from 1)");
      } else if (static_cast<std::uint64_t>(vtime) - 1 >= s.meta.record_count) {
        // The next request lies beyond this file (a prefix of a longer
        // trace): within this trace the block is not used again.
        r.next_use_index = kNeverAccessedAgain;
      } else {
        r.next_use_index = static_cast<std::uint64_t>(vtime) - 1;
      }
      const std::string problem = s.validator.check(r);
      if (!problem.empty()) throw InputError(s.where + ": record " + std::to_string(s.index) + ": " + problem);
    }
    filled += n;
  }
  return filled;
}

void OracleGeneralTraceSource::rewind() {
  State& s = *state_;
  s.in.clear();
  s.in.seekg(0);
  s.index = 0;
  s.validator.reset();
}

namespace {

FLASHSIM_REGISTER_TRACE_FORMAT((TraceFormatRegistry::Entry{
    "oraclegeneral", "libCacheSim oracleGeneral binary (24-byte records with next-access vtime)", {},
    [](const ParamValues&, const TraceOpenContext& c) -> std::unique_ptr<ITraceSource> {
      return std::make_unique<OracleGeneralTraceSource>(c.path);
    }}));

}  // namespace

}  // namespace flashsim
