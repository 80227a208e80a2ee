#include "traces/importers/oracle_general.h"

#include "sim/core/errors.h"
#include "traces/trace_formats.h"

namespace flashsim {

OracleGeneralTraceSource::OracleGeneralTraceSource(std::filesystem::path path)
    : FixedRecordTraceSource(std::move(path), "oracleGeneral") {
  if (stream().size_bytes() == std::uint64_t{0}) {
    throw InputError(where() + ": empty file: an oracleGeneral trace holds 24-byte records");
  }
  meta_.source = "oraclegeneral:" + where();
  meta_.has_next_use = true;
  start(0, kOracleGeneralRecordBytes, std::nullopt, false);
}

bool OracleGeneralTraceSource::decode(const unsigned char* p, std::uint64_t index, AccessRecord& r) {
  r.time_ns = static_cast<Nanoseconds>(load_le<std::uint32_t>(p)) * kNsPerS;
  r.block_id = load_le<std::uint64_t>(p + 4);
  r.bytes = load_le<std::uint32_t>(p + 12);
  r.next_use_index = next_use_from_vtime(load_le<std::int64_t>(p + 16), index);
  return true;
}

namespace {

FLASHSIM_REGISTER_TRACE_FORMAT((TraceFormatRegistry::Entry{
    "oraclegeneral", "libCacheSim oracleGeneral binary (24-byte records with next-access vtime; .zst or .gz too)", {},
    [](const ParamValues&, const TraceOpenContext& c) -> std::unique_ptr<ITraceSource> {
      return std::make_unique<OracleGeneralTraceSource>(c.path);
    }}));

}  // namespace

}  // namespace flashsim
