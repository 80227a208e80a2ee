// Standard library only: compiled into flashsim_traces and into the
// injection library (hw/capture/).
#include <cinttypes>
#include <cstdio>

#include "traces/importers/cupti_raw.h"

namespace flashsim::capture {

namespace {
unsigned u(auto v) { return static_cast<unsigned>(v); }
}  // namespace

bool write_raw_capture(std::FILE* f, const RawCapture& c) {
  bool ok = std::fprintf(f, "%s %d %" PRId64 "\n", kRawMagic, kRawVersion, c.pid) > 0;
  for (const RawCopy& r : c.copies) {
    ok = ok && std::fprintf(f, "C %" PRIu32 " %" PRIu32 " %u %u %u %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu32
                               " %" PRIu32 " %" PRIu32 "\n",
                            r.correlation_id, r.runtime_correlation_id, u(r.copy_kind), u(r.src_kind), u(r.dst_kind),
                            r.bytes, r.start_ns, r.end_ns, r.device_id, r.context_id, r.stream_id) > 0;
  }
  for (const RawMemset& r : c.memsets) {
    ok = ok && std::fprintf(f, "S %" PRIu32 " %u %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu32 " %" PRIu32
                               " %" PRIu32 "\n",
                            r.correlation_id, u(r.memory_kind), r.bytes, r.start_ns, r.end_ns, r.device_id,
                            r.context_id, r.stream_id) > 0;
  }
  for (const RawKernel& r : c.kernels) {
    ok = ok && std::fprintf(f, "K %" PRIu32 " %" PRIu64 " %" PRIu64 " %" PRIu32 " %" PRIu32 " %" PRIu32
                               " %d %d %d %d %d %d %s\n",
                            r.correlation_id, r.start_ns, r.end_ns, r.device_id, r.context_id, r.stream_id, r.grid[0],
                            r.grid[1], r.grid[2], r.block[0], r.block[1], r.block[2],
                            r.name.empty() ? "?" : r.name.c_str()) > 0;
  }
  for (const RawMemory& r : c.memory) {
    ok = ok && std::fprintf(f, "M %" PRIu32 " %u %u 0x%" PRIx64 " %" PRIu64 " %" PRIu64 " %" PRIu32 " %" PRIu32
                               " %" PRIu32 "\n",
                            r.correlation_id, u(r.operation), u(r.memory_kind), r.address, r.bytes, r.timestamp_ns,
                            r.device_id, r.context_id, r.stream_id) > 0;
  }
  for (const RawApiCall& r : c.api_calls) {
    ok = ok && std::fprintf(f, "X %" PRIu32 " %c %" PRIu32 " %s 0x%" PRIx64 " 0x%" PRIx64 " %" PRIu64 " %" PRIu64
                               " %d %" PRIu64 "\n",
                            r.correlation_id, r.domain == ApiDomain::runtime ? 'R' : 'D', r.cbid,
                            r.what == ApiWhat::copy ? "copy" : "memset", r.dst, r.src, r.bytes, r.host_ns,
                            r.host_checked ? 1 : 0, r.host_resident_bytes) > 0;
  }
  for (const RawLink& r : c.links) {
    ok = ok && std::fprintf(f, "L %" PRIu32 " %" PRIu32 "\n", r.driver_correlation_id, r.runtime_correlation_id) > 0;
  }
  for (const RawHostRegister& r : c.host_registers) {
    ok = ok && std::fprintf(f, "H %s 0x%" PRIx64 " %" PRIu64 " %" PRIu64 "\n",
                            r.registered ? "register" : "unregister", r.address, r.bytes, r.host_ns) > 0;
  }
  for (const RawApi& r : c.apis) {
    ok = ok && std::fprintf(f, "A %" PRIu32 " %c %" PRIu32 " %" PRIu64 " %" PRIu64 " %" PRIu32 "\n", r.correlation_id,
                            r.domain == ApiDomain::runtime ? 'R' : 'D', r.cbid, r.start_ns, r.end_ns, r.thread) > 0;
  }
  for (const RawSync& r : c.syncs) {
    ok = ok && std::fprintf(f, "Y %u %" PRIu64 " %" PRIu64 " %" PRIu32 " %" PRIu32 " %" PRIu32 " %" PRIu32 "\n",
                            u(r.type), r.start_ns, r.end_ns, r.correlation_id, r.context_id, r.stream_id,
                            r.event_id) > 0;
  }
  for (const RawEventRecord& r : c.event_records) {
    ok = ok && std::fprintf(f, "V %" PRIu32 " %" PRIu32 " %" PRIu32 " %" PRIu32 "\n", r.correlation_id, r.context_id,
                            r.stream_id, r.event_id) > 0;
  }
  for (const RawMarker& r : c.markers) {
    ok = ok && std::fprintf(f, "N %" PRIu32 " %" PRIu64 " %" PRIu32 " %s\n", r.flags, r.timestamp_ns, r.thread,
                            r.name.empty() ? "?" : r.name.c_str()) > 0;
  }
  for (const RawApiName& r : c.api_names) {
    ok = ok && std::fprintf(f, "Q %c %" PRIu32 " %s\n", r.domain == ApiDomain::runtime ? 'R' : 'D', r.cbid,
                            r.name.empty() ? "?" : r.name.c_str()) > 0;
  }
  ok = ok && std::fprintf(f, "E %zu %zu %zu %zu %zu %zu %zu %" PRIu64 " %zu %zu %zu %zu %zu\n", c.copies.size(),
                          c.memsets.size(), c.kernels.size(), c.memory.size(), c.api_calls.size(), c.links.size(),
                          c.host_registers.size(), c.dropped_records, c.apis.size(), c.syncs.size(),
                          c.event_records.size(), c.markers.size(), c.api_names.size()) > 0;
  return ok && std::fflush(f) == 0 && !std::ferror(f);
}

}  // namespace flashsim::capture
