// libCacheSim's own binary format "lcs" (libCacheSim
// traceReader/generalReader/lcs.h), versions 1–8. Little-endian, packed.
// Header, 8192 bytes:
//   u64 start_magic (0x123456789abcdef0) | u64 version | stat (8000 bytes:
//   i64 stat_version, i64 n_req, i64 n_obj, …) | 21 × u64 unused | u64 end_magic
// Records by version:
//   v1, 24 bytes: u32 time (s) | u64 obj_id | u32 obj_size | i64 next_access_vtime
//   v2, 28 bytes: u32 time | u64 obj_id | u32 obj_size | u32 op:8,tenant:24 | i64 next_access_vtime
//   v3, 36 bytes: u32 time | u64 obj_id | i64 obj_size | u32 op:8,tenant:24 | u32 ttl | i64 next_access_vtime
//   v4–v8: v3 followed by 1, 2, 4, 8, 16 u32 features (40, 44, 52, 68, 100 bytes)
// (op is the low byte of the op/tenant word, as GCC packs the bit-fields.)
// Mapping: time_ns = time × 1e9; block_id = obj_id; bytes = obj_size; op
// from libCacheSim's op code (libcachesim_op; v1 has none: read);
// next_use_index = next_access_vtime − 1 as for oracleGeneral
// (has_next_use = true); tenant, ttl and features are dropped; stream_id 0.
// The header's n_req, when not 0, must equal the records in the file.
// Refused by name: other versions, and the older lcs layout (a 1 KiB header
// holding a struct format string, libCacheSim before v1–v8). A size-0
// request is an error unless skip_zero_size=1 drops it (libCacheSim's
// default); dropping renumbers the requests, so next use is then not kept.
#include <array>

#include "sim/core/errors.h"
#include "traces/importers/fixed_record_source.h"
#include "traces/trace_formats.h"

namespace flashsim {

namespace {

constexpr std::uint64_t kLcsMagic = 0x123456789abcdef0ull;
constexpr std::size_t kLcsHeaderBytes = 8192;
constexpr std::size_t kLcsEndMagicAt = kLcsHeaderBytes - 8;
constexpr std::size_t kLcsNReqAt = 24;  // start_magic, version, stat.version, then n_req
// Record bytes by version (index); 0 = not a version libCacheSim defines.
constexpr std::array<std::size_t, 9> kLcsRecordBytes = {0, 24, 28, 36, 40, 44, 52, 68, 100};

class LcsTraceSource final : public FixedRecordTraceSource {
 public:
  LcsTraceSource(std::filesystem::path path, bool skip_zero_size) : FixedRecordTraceSource(std::move(path), "lcs") {
    std::array<unsigned char, kLcsHeaderBytes> h{};
    const std::size_t n = stream().read(h.data(), h.size());
    if (n >= 8 && load_le<std::uint64_t>(h.data()) != kLcsMagic) {
      throw InputError(where() + ": not an lcs trace: start magic 0x" + hex_text(load_le<std::uint64_t>(h.data())) +
                       ", expected 0x123456789abcdef0");
    }
    if (n >= 9 && (h[8] == '<' || h[8] == '>' || h[8] == '=' || h[8] == '!' || h[8] == '@')) {
      throw InputError(where() + ": the older lcs layout (a 1 KiB header with the struct format string '" +
                       std::string(reinterpret_cast<const char*>(h.data() + 8), text_length(h.data() + 8, 240)) +
                       "') is not supported; convert it with a libCacheSim that writes lcs v1-v8");
    }
    if (n < kLcsHeaderBytes) {
      throw InputError(where() + ": short lcs header: " + std::to_string(n) + " bytes, the header is " +
                       std::to_string(kLcsHeaderBytes));
    }
    if (load_le<std::uint64_t>(h.data() + kLcsEndMagicAt) != kLcsMagic) {
      throw InputError(where() + ": corrupt lcs header: end magic (bytes 8184-8191) 0x" +
                       hex_text(load_le<std::uint64_t>(h.data() + kLcsEndMagicAt)) + ", expected 0x123456789abcdef0");
    }
    const std::uint64_t version = load_le<std::uint64_t>(h.data() + 8);
    if (version == 0 || version >= kLcsRecordBytes.size()) {
      throw InputError(where() + ": lcs version " + std::to_string(version) +
                       " is not one libCacheSim defines (1-8 are read)");
    }
    version_ = static_cast<int>(version);
    const std::int64_t n_req = load_le<std::int64_t>(h.data() + kLcsNReqAt);
    if (n_req < 0) throw InputError(where() + ": corrupt lcs header: n_req " + std::to_string(n_req) + " < 0");
    meta_.source = "lcs_v" + std::to_string(version_) + ":" + where();
    meta_.has_next_use = !skip_zero_size;
    start(kLcsHeaderBytes, kLcsRecordBytes[static_cast<std::size_t>(version_)],
          n_req > 0 ? std::optional<std::uint64_t>(static_cast<std::uint64_t>(n_req)) : std::nullopt, skip_zero_size);
  }

 private:
  static std::size_t text_length(const unsigned char* p, std::size_t max) {
    std::size_t i = 0;
    while (i < max && p[i] != 0) ++i;
    return i;
  }

  bool decode(const unsigned char* p, std::uint64_t index, AccessRecord& r) override {
    std::int64_t size = 0;
    std::uint32_t op_code = 0;
    std::int64_t vtime = 0;
    if (version_ == 1) {
      size = load_le<std::uint32_t>(p + 12);
      vtime = load_le<std::int64_t>(p + 16);
    } else if (version_ == 2) {
      size = load_le<std::uint32_t>(p + 12);
      op_code = load_le<std::uint32_t>(p + 16) & 0xffu;
      vtime = load_le<std::int64_t>(p + 20);
    } else {
      size = load_le<std::int64_t>(p + 12);
      op_code = load_le<std::uint32_t>(p + 20) & 0xffu;
      vtime = load_le<std::int64_t>(p + 28);
    }
    if (size < 0) fail(index, "obj_size " + std::to_string(size) + " < 0");
    if (size == 0) {
      if (skip_zero_size()) return false;
      fail(index, "obj_size 0; -o skip_zero_size=1 drops such requests (as libCacheSim does)");
    }
    const auto op = libcachesim_op(op_code);
    if (!op) fail(index, "op " + std::to_string(op_code) + " is not a libCacheSim operation (0-15)");
    r.time_ns = static_cast<Nanoseconds>(load_le<std::uint32_t>(p)) * kNsPerS;
    r.block_id = load_le<std::uint64_t>(p + 4);
    r.bytes = static_cast<ByteCount>(size);
    r.op = *op;
    // Dropped records renumber the rest: the file's vtimes no longer apply.
    if (!skip_zero_size()) r.next_use_index = next_use_from_vtime(vtime, index);
    return true;
  }

  int version_ = 0;
};

FLASHSIM_REGISTER_TRACE_FORMAT((TraceFormatRegistry::Entry{
    "lcs",
    "libCacheSim's lcs binary, versions 1-8 (8 KiB header, then 24-100 byte records with next-access vtime); "
    ".zst or .gz too",
    {{"skip_zero_size", ParamType::integer, "0",
      "1: drop requests of size 0, as libCacheSim does (next use is then not kept)", 0, 1, {}}},
    [](const ParamValues& p, const TraceOpenContext& c) -> std::unique_ptr<ITraceSource> {
      return std::make_unique<LcsTraceSource>(c.path, p.integer("skip_zero_size") != 0);
    }}));

}  // namespace

}  // namespace flashsim
