// VMware vscsi block traces (format "vscsi"), the two record layouts
// libCacheSim reads (traceReader/customizedReader/vscsi.h), little-endian,
// natural alignment, no header:
//   version 1, 32 bytes: u32 sn | u32 len | u32 nSG | u16 cmd | u16 ver | u64 lbn | u64 ts
//   version 2, 40 bytes: u16 cmd | u16 ver | u32 sn | u32 len | u32 nSG | u64 lbn | u64 ts | u64 rt
// The version is ver >> 8 (1 or 2). As libCacheSim does, the first two
// records decide it, version 2 tried first; a file with neither is refused.
// Mapping: time_ns = ts (µs) × 1000 (libCacheSim keeps whole seconds);
// block_id = lbn; bytes = len; op = write for the SCSI write commands
// (WRITE(6/10/12/16): 0x0a, 0x2a, 0xaa, 0x8a), read for every other cmd
// (libCacheSim leaves op unset); stream_id = 0; no next use. A record of
// len 0 is an error unless skip_zero_size drops it.
#include <array>
#include <vector>

#include "sim/core/errors.h"
#include "traces/importers/fixed_record_source.h"
#include "traces/trace_formats.h"

namespace flashsim {

namespace {

constexpr std::size_t kV1Bytes = 32;
constexpr std::size_t kV2Bytes = 40;
// ts is in µs: beyond this, ts × 1000 ns leaves the schema's time range.
constexpr std::uint64_t kMaxTsUs = std::uint64_t(kMaxAbsTimeNs) / 1000;

bool is_scsi_write(std::uint16_t cmd) { return cmd == 0x0a || cmd == 0x2a || cmd == 0xaa || cmd == 0x8a; }

class VscsiTraceSource final : public FixedRecordTraceSource {
 public:
  VscsiTraceSource(std::filesystem::path path, bool skip_zero_size)
      : FixedRecordTraceSource(std::move(path), "vscsi") {
    // Sniff the version from the first two records (two of the larger kind).
    std::array<unsigned char, 2 * kV2Bytes> head{};
    const std::size_t n = stream().read(head.data(), head.size());
    version_ = detect(head.data(), n);
    if (version_ == 0) {
      throw InputError(where() + ": not a vscsi trace: " +
                       (n < kV1Bytes ? "only " + std::to_string(n) + " bytes, less than one 32-byte record"
                                     : std::string("neither the version-2 field (bytes 2-3 of each 40-byte "
                                                   "record) nor the version-1 field (bytes 14-15 of each "
                                                   "32-byte record) of the first records says 2 or 1")));
    }
    meta_.source = "vscsi" + std::to_string(version_) + ":" + where();
    start(0, version_ == 1 ? kV1Bytes : kV2Bytes, std::nullopt, skip_zero_size);
  }

 private:
  // 1 or 2, or 0 when the first records (`n` bytes at `p`) match neither.
  static int detect(const unsigned char* p, std::size_t n) {
    const auto all_say = [&](std::size_t record_bytes, std::size_t ver_at, int version) {
      const std::size_t records = std::min<std::size_t>(2, n / record_bytes);
      if (records == 0) return false;
      for (std::size_t i = 0; i < records; ++i) {
        if ((load_le<std::uint16_t>(p + i * record_bytes + ver_at) >> 8) != version) return false;
      }
      return true;
    };
    if (all_say(kV2Bytes, 2, 2)) return 2;
    if (all_say(kV1Bytes, 14, 1)) return 1;
    return 0;
  }

  bool decode(const unsigned char* p, std::uint64_t index, AccessRecord& r) override {
    const bool v1 = version_ == 1;
    const std::uint16_t ver = load_le<std::uint16_t>(p + (v1 ? 14 : 2));
    if ((ver >> 8) != version_) {
      fail(index, "version field " + std::to_string(ver >> 8) + " in a version-" + std::to_string(version_) +
                      " vscsi trace");
    }
    const std::uint16_t cmd = load_le<std::uint16_t>(p + (v1 ? 12 : 0));
    const std::uint32_t len = load_le<std::uint32_t>(p + (v1 ? 4 : 8));
    const std::uint64_t ts_us = load_le<std::uint64_t>(p + 24);
    if (len == 0) {
      if (skip_zero_size()) return false;
      fail(index, "len == 0 (cmd 0x" + hex_text(cmd) + "); -o skip_zero_size=1 drops such records");
    }
    if (ts_us > kMaxTsUs) fail(index, "ts " + std::to_string(ts_us) + " us is out of range");
    r.time_ns = static_cast<Nanoseconds>(ts_us) * 1000;
    r.block_id = load_le<std::uint64_t>(p + 16);
    r.bytes = len;
    r.op = is_scsi_write(cmd) ? AccessOp::write : AccessOp::read;
    return true;
  }


  int version_ = 0;
};

FLASHSIM_REGISTER_TRACE_FORMAT((TraceFormatRegistry::Entry{
    "vscsi",
    "VMware vscsi block trace, versions 1 (32-byte) and 2 (40-byte records), as libCacheSim reads it; .zst or .gz too",
    {{"skip_zero_size", ParamType::integer, "0", "1: drop records of len 0 (otherwise an error)", 0, 1, {}}},
    [](const ParamValues& p, const TraceOpenContext& c) -> std::unique_ptr<ITraceSource> {
      return std::make_unique<VscsiTraceSource>(c.path, p.integer("skip_zero_size") != 0);
    }}));

}  // namespace

}  // namespace flashsim
