// Twitter's cache traces in libCacheSim's binary `twr` layout (format "twr";
// libCacheSim traceReader/customizedReader/twrBin.h): no header, 20-byte
// records, little-endian, packed:
//   u32 real_time (s) | u64 obj_id | u32 kv | u32 op_ttl
// where kv holds key_size in bits 22–31 and value_size in bits 0–21, and
// op_ttl holds op in bits 24–31 and ttl in bits 0–23.
// Mapping: time_ns = real_time × 1e9; block_id = obj_id; bytes = key_size +
// value_size (libCacheSim's obj_size); op from the twemcache op code
// (libcachesim_op: get/gets read; set, add, cas, replace, append, prepend,
// delete, incr, decr write); ttl is dropped; stream_id = 0; no next use.
// A request of size 0 is an error; with skip_zero_size=1 a get/gets whose
// value_size is 0 is dropped, as libCacheSim does by default
// (ignore_size_zero_req), and any other size-0 request still fails.
#include "sim/core/errors.h"
#include "traces/importers/fixed_record_source.h"
#include "traces/trace_formats.h"

namespace flashsim {

namespace {

constexpr std::size_t kTwrBytes = 20;

class TwrTraceSource final : public FixedRecordTraceSource {
 public:
  TwrTraceSource(std::filesystem::path path, bool skip_zero_size) : FixedRecordTraceSource(std::move(path), "twr") {
    start(0, kTwrBytes, std::nullopt, skip_zero_size);
  }

 private:
  bool decode(const unsigned char* p, std::uint64_t index, AccessRecord& r) override {
    const std::uint32_t kv = load_le<std::uint32_t>(p + 12);
    const std::uint32_t op_ttl = load_le<std::uint32_t>(p + 16);
    const std::uint32_t key_size = (kv >> 22) & 0x3ffu;
    const std::uint32_t value_size = kv & 0x3fffffu;
    const std::uint32_t op_code = (op_ttl >> 24) & 0xffu;
    const auto op = libcachesim_op(op_code);
    if (!op) fail(index, "op " + std::to_string(op_code) + " is not a libCacheSim operation (0-15)");
    if (value_size == 0 && skip_zero_size() && (op_code == 1 || op_code == 2)) return false;
    if (key_size + value_size == 0) fail(index, "size 0 (key_size 0, value_size 0)");
    r.time_ns = static_cast<Nanoseconds>(load_le<std::uint32_t>(p)) * kNsPerS;
    r.block_id = load_le<std::uint64_t>(p + 4);
    r.bytes = key_size + value_size;
    r.op = *op;
    return true;
  }
};

FLASHSIM_REGISTER_TRACE_FORMAT((TraceFormatRegistry::Entry{
    "twr",
    "Twitter cache trace, libCacheSim's binary twr layout (20-byte records: time, id, key/value size, op/ttl); "
    ".zst or .gz too",
    {{"skip_zero_size", ParamType::integer, "0", "1: drop get/gets of value size 0, as libCacheSim does", 0, 1, {}}},
    [](const ParamValues& p, const TraceOpenContext& c) -> std::unique_ptr<ITraceSource> {
      return std::make_unique<TwrTraceSource>(c.path, p.integer("skip_zero_size") != 0);
    }}));

}  // namespace

}  // namespace flashsim
