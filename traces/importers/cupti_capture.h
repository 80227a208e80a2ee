// Raw CUPTI capture records (traces/importers/cupti_raw.h) → canonical trace
// and block catalog. CUDA-free: CI unit-tests it on synthetic records.
//
// The rules (docs/capture.md shows them on a captured PyTorch program):
//  * Joins: a copy's activity record (GPU start/end, bytes, stream, pinned or
//    pageable ends) gets its addresses from the API call with the same
//    driver correlation id, else the runtime call named by its runtime
//    correlation id, else the runtime call the driver call was made inside
//    (RawLink). Memsets alike. Several activity records of one API call take
//    consecutive pieces of its range in GPU start order. A copy with no API
//    call (e.g. cudaMemcpyBatchAsync, not tracked) is counted and dropped.
//  * Which copies are accesses: host→device copies are reads of their host
//    source range, device→host copies writes of their host destination
//    range (both on by default); device→device and peer copies reads of the
//    source range, memsets writes of the destination (off by default: they
//    stay inside the fast tier). Array and host→host copies are dropped.
//  * Blocks are address ranges: with block_bytes = 0 every distinct
//    [begin, end) range of one process is one block (a weight streamed from
//    the same host buffer is the same block every time); with block_bytes =
//    N a range is cut into N-byte pieces aligned to the start of the
//    allocation it lies in (device, pinned or registered host allocation),
//    or to address 0 where none is known (pageable memory), and each touched
//    piece is one access (offset = where the touch starts in the piece).
//    Block ids are dense, in order of first access.
//  * Regions: allocations (CUPTI MEMORY2 records: device, pinned host,
//    managed) and host-registered ranges, numbered per kind in order of
//    allocation ("dev.3", "pinned.0", "managed.1", "registered.0"); a block
//    is named "<region>+0x<offset>:<bytes>" ("pageable@0x<address>:<bytes>"
//    outside any region). Catalog kind: host_pinned, host_pageable, device,
//    managed (from the copy's memory kinds).
//  * Records, in GPU start order: time_ns = GPU start − the first kept
//    copy's start; stream_id = dense index of (process, device, stream) in
//    order of first appearance; address = first byte touched; compute_ns
//    (compute = kernels) = kernel busy time (union over all streams) between
//    this access's GPU end and the next access's GPU start on the same stream
//    (the last one: to the last kernel's end); compute = gap: that whole
//    window; none: 0.
//  * Tokens (tokens_from_marker): the marker block is the most often read
//    block (ties: the first accessed), e.g. the first weight of a model
//    streamed once per token; each of its reads starts a pass: token_index =
//    (reads of the marker so far) − 1, 0 before its first read, and
//    request_id = 0, so the simulator reports time per pass; off: both unset.
//    (The first block copied is often a one-off input, hence not it.)
#pragma once
#include <cstdint>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include "traces/access_record.h"
#include "traces/importers/cupti_raw.h"

namespace flashsim::capture {

enum class ComputeAttribution { kernels, gap, none };

/// "kernels" | "gap" | "none"; throws InputError naming `where` otherwise.
ComputeAttribution parse_compute_attribution(const std::string& text, const std::string& where);

struct ConvertOptions {
  ByteCount block_bytes = 0;  ///< 0: whole ranges; N: N-byte pieces of each allocation
  bool h2d = true;            ///< host→device copies (reads of the host source)
  bool d2h = true;            ///< device→host copies (writes of the host destination)
  bool d2d = false;           ///< device→device and peer copies (reads of the source)
  bool memset = false;        ///< memsets (writes of the destination)
  ComputeAttribution compute = ComputeAttribution::kernels;
  bool tokens_from_marker = true;
};

/// Parses "h2d,d2h,d2d,memset" (any subset, comma separated) into `options`.
/// Throws InputError naming the unknown word.
void parse_directions(const std::string& text, ConvertOptions& options);

/// A named address range: an allocation or a host registration.
struct Region {
  std::string name;  ///< "dev.0", "pinned.2", "managed.0", "registered.1"
  MemoryKind kind = MemoryKind::unknown;
  std::uint32_t process = 0;
  std::uint64_t begin = 0, end = 0;
  std::uint64_t from_ns = 0;                                    ///< allocated at (CUPTI clock)
  std::uint64_t until_ns = std::numeric_limits<std::uint64_t>::max();  ///< released at
};

/// One copy, memset or kernel, in GPU start order: the readable log that
/// `flashsim capture --events` writes.
struct CaptureEvent {
  enum class Type : std::uint8_t { copy, memset, kernel };
  Type type = Type::copy;
  std::uint32_t process = 0;
  std::uint32_t device = 0;
  std::uint32_t stream = 0;   ///< dense, as in the trace (kernels too)
  std::int64_t start_ns = 0;  ///< relative to the trace's origin (may be negative before it)
  std::int64_t end_ns = 0;
  std::uint64_t bytes = 0;
  CopyKind copy_kind = CopyKind::unknown;
  MemoryKind src_kind = MemoryKind::unknown, dst_kind = MemoryKind::unknown;
  std::uint64_t src = kNoAddress, dst = kNoAddress;
  std::string src_region, dst_region;  ///< "" when the address is unknown
  std::string name;                    ///< kernel name
  std::int32_t grid[3] = {0, 0, 0}, block[3] = {0, 0, 0};
  std::uint64_t first_record = kNoAddress;  ///< index of its first access record; kNoAddress = not in the trace
  std::uint32_t record_count = 0;           ///< access records it became (block_bytes pieces)
  std::uint32_t correlation_id = 0;         ///< of the API call that issued it (CUPTI's, as recorded)
  std::uint32_t runtime_correlation_id = 0; ///< copies: of the runtime call (0: none)
  std::uint32_t raw_stream = 0;             ///< CUPTI's stream id (stream is the dense index)
  /// Copies: the API call read the destination's page residency (raw v3);
  /// host_fresh_bytes = this piece's share of the call's bytes not resident.
  bool host_checked = false;
  std::uint64_t host_fresh_bytes = 0;
};

/// What was seen and what was kept.
struct CaptureReport {
  std::uint64_t processes = 0;
  std::uint64_t copies = 0, h2d = 0, d2h = 0, d2d = 0, other_copies = 0;
  ByteCount h2d_bytes = 0, d2h_bytes = 0, d2d_bytes = 0;
  std::uint64_t h2d_pinned = 0, h2d_pageable = 0;
  std::uint64_t memsets = 0, kernels = 0;
  Nanoseconds kernel_busy_ns = 0;  ///< union of kernel intervals
  std::uint64_t allocations = 0, host_registrations = 0;
  std::uint64_t unaddressed = 0;  ///< copies/memsets with no API call to give addresses: dropped
  std::uint64_t dropped_by_cupti = 0;
  std::uint64_t records = 0, blocks = 0;
  ByteCount record_bytes = 0;
  std::uint64_t passes = 0;           ///< reads of the marker block (tokens_from_marker)
  BlockId marker_block = 0;           ///< that block
  Nanoseconds span_ns = 0;            ///< first kept copy start → last kernel or copy end
};

struct ConvertedCapture {
  TraceMeta meta;
  std::vector<AccessRecord> records;
  std::vector<CaptureEvent> events;
  std::vector<Region> regions;
  CaptureReport report;
  std::uint64_t origin_ns = 0;  ///< CUPTI time of the records' time 0 (the first kept copy's start)
};

/// Converts the raw captures of one run (one per process) by the rules
/// above. `source` goes into meta.source. Throws InputError when no copy is
/// kept (the message says what was seen) or a record violates schema v1.
ConvertedCapture convert_capture(const std::vector<RawCapture>& processes, const ConvertOptions& options,
                                 const std::string& source);

/// Writes `converted.events` as CSV (header: type,process,stream,start_ns,
/// end_ns,bytes,copy_kind,src_kind,dst_kind,src,dst,src_region,dst_region,
/// name,grid,block,first_record) to `path` atomically. Throws Error on I/O failure.
void write_capture_events_csv(const std::filesystem::path& path, const ConvertedCapture& converted);

/// Several lines for people: counts, bytes, pinned/pageable, span.
std::string describe(const CaptureReport& report);

/// Names for the enums ("htod", "pinned", ...).
const char* to_string(CopyKind kind);
const char* to_string(MemoryKind kind);

}  // namespace flashsim::capture
