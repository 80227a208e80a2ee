// Raw CUPTI records -> trace (traces/importers/cupti_capture.h) on a
// hand-built capture whose every output value is worked out below.
#include <gtest/gtest.h>

#include <fstream>

#include "sim/core/errors.h"
#include "tests/support/temp_dir.h"
#include "tests/traces/trace_test_util.h"
#include "traces/importers/cupti_capture.h"
#include "traces/trace_formats.h"

namespace flashsim::capture {
namespace {

constexpr std::uint64_t kMiB = 1 << 20;
constexpr std::uint64_t P = 0x200000000;     // pinned host buffer, 4 MiB (cudaMallocHost)
constexpr std::uint64_t Q = 0x5000000;       // pageable host buffer, 1 MiB (no region)
constexpr std::uint64_t A = 0x7f0000000000;  // device buffer, 4 MiB
constexpr std::uint64_t B = 0x7f0000400000;  // device buffer, 1 MiB

RawCopy copy(std::uint32_t corr, std::uint32_t runtime_corr, CopyKind kind, MemoryKind src, MemoryKind dst,
             std::uint64_t bytes, std::uint64_t start, std::uint64_t end, std::uint32_t stream = 7) {
  RawCopy c;
  c.correlation_id = corr;
  c.runtime_correlation_id = runtime_corr;
  c.copy_kind = kind;
  c.src_kind = src;
  c.dst_kind = dst;
  c.bytes = bytes;
  c.start_ns = start;
  c.end_ns = end;
  c.stream_id = stream;
  return c;
}

RawKernel kernel(std::uint64_t start, std::uint64_t end, std::uint32_t stream = 7, std::string name = "scale") {
  RawKernel k;
  k.start_ns = start;
  k.end_ns = end;
  k.stream_id = stream;
  k.grid[0] = 8;
  k.grid[1] = k.grid[2] = 1;
  k.block[0] = 256;
  k.block[1] = k.block[2] = 1;
  k.name = std::move(name);
  return k;
}

RawApiCall api(std::uint32_t corr, ApiDomain domain, std::uint64_t dst, std::uint64_t src, std::uint64_t bytes,
               ApiWhat what = ApiWhat::copy) {
  RawApiCall a;
  a.correlation_id = corr;
  a.domain = domain;
  a.what = what;
  a.dst = dst;
  a.src = src;
  a.bytes = bytes;
  a.host_ns = 900;
  return a;
}

RawMemory alloc(MemoryKind kind, std::uint64_t address, std::uint64_t bytes, std::uint64_t ts) {
  RawMemory m;
  m.operation = MemoryOperation::allocation;
  m.memory_kind = kind;
  m.address = address;
  m.bytes = bytes;
  m.timestamp_ns = ts;
  return m;
}

// Two passes of "H2D weight P->A, kernel, H2D input Q->B, kernels", then a
// D2H B->Q (addresses through a driver->runtime link), a D2D A->B (dropped
// by default) and an H2D whose API call was not recorded (unaddressed).
RawCapture two_passes() {
  RawCapture c;
  c.pid = 42;
  c.memory = {alloc(MemoryKind::device, A, 4 * kMiB, 10), alloc(MemoryKind::device, B, kMiB, 20),
              alloc(MemoryKind::pinned, P, 4 * kMiB, 30)};
  using MK = MemoryKind;
  c.copies = {copy(501, 11, CopyKind::htod, MK::pinned, MK::device, 4 * kMiB, 1000, 1100),
              copy(502, 0, CopyKind::htod, MK::pageable, MK::device, kMiB, 1500, 1550),
              copy(503, 13, CopyKind::htod, MK::pinned, MK::device, 4 * kMiB, 3000, 3100),
              copy(504, 0, CopyKind::dtoh, MK::device, MK::pageable, kMiB, 3300, 3350),
              copy(505, 0, CopyKind::dtod, MK::device, MK::device, kMiB, 3600, 3610),
              copy(506, 0, CopyKind::htod, MK::pinned, MK::device, kMiB, 3700, 3710)};
  c.api_calls = {api(11, ApiDomain::runtime, A, P, 4 * kMiB), api(502, ApiDomain::driver, B, Q, kMiB),
                 api(13, ApiDomain::runtime, A, P, 4 * kMiB), api(14, ApiDomain::runtime, Q, B, kMiB),
                 api(505, ApiDomain::driver, B, A, kMiB)};
  c.links = {{504, 14}};
  c.kernels = {kernel(1100, 1400), kernel(1600, 1900), kernel(1800, 2000, 9, "other"), kernel(3100, 3200),
               kernel(3400, 3500)};
  return c;
}

TEST(CaptureConvert, TwoPassesExactRecordsCatalogAndReport) {
  const ConvertedCapture out = convert_capture({two_passes()}, {}, "test");
  // Worked out by hand (header rules): origin = 1000 (first kept copy).
  ASSERT_EQ(out.records.size(), 4u);
  struct Expected {
    Nanoseconds time;
    BlockId block;
    ByteCount bytes;
    AccessOp op;
    std::uint64_t address;
    Nanoseconds compute;
    std::int32_t token;
  };
  const Expected expected[] = {
      {0, 0, 4 * kMiB, AccessOp::read, P, 300, 0},     // K1 in [1100, 1500)
      {500, 1, kMiB, AccessOp::read, Q, 400, 0},       // K2 ∪ K3 = [1600, 2000) in [1550, 3000)
      {2000, 0, 4 * kMiB, AccessOp::read, P, 100, 1},  // K4 in [3100, 3300)
      {2300, 1, kMiB, AccessOp::write, Q, 100, 1},     // last: K5 in [3350, 3500)
  };
  for (std::size_t i = 0; i < 4; ++i) {
    const AccessRecord& r = out.records[i];
    SCOPED_TRACE("record " + std::to_string(i) + " " + test::describe(r));
    EXPECT_EQ(r.time_ns, expected[i].time);
    EXPECT_EQ(r.block_id, expected[i].block);
    EXPECT_EQ(r.bytes, expected[i].bytes);
    EXPECT_EQ(r.op, expected[i].op);
    EXPECT_EQ(r.address, expected[i].address);
    EXPECT_EQ(r.offset, 0u);
    EXPECT_EQ(r.compute_ns, expected[i].compute);
    EXPECT_EQ(r.token_index, expected[i].token);
    EXPECT_EQ(r.request_id, 0u);
    EXPECT_EQ(r.stream_id, 0u);
  }
  ASSERT_EQ(out.meta.catalog.size(), 2u);
  EXPECT_EQ(out.meta.catalog[0].name, "pinned.0+0x0:4194304");
  EXPECT_EQ(out.meta.catalog[0].kind, "host_pinned");
  EXPECT_EQ(out.meta.catalog[0].address_begin, P);
  EXPECT_EQ(out.meta.catalog[0].address_end, P + 4 * kMiB);
  EXPECT_EQ(out.meta.catalog[1].name, "pageable@0x5000000:1048576");
  EXPECT_EQ(out.meta.catalog[1].kind, "host_pageable");
  EXPECT_EQ(out.meta.catalog[1].bytes, kMiB);
  EXPECT_EQ(out.meta.record_count, 4u);
  EXPECT_EQ(out.meta.source, "test");

  const CaptureReport& r = out.report;
  EXPECT_EQ(r.copies, 6u);
  EXPECT_EQ(r.h2d, 4u);
  EXPECT_EQ(r.h2d_pinned, 3u);
  EXPECT_EQ(r.h2d_pageable, 1u);
  EXPECT_EQ(r.d2h, 1u);
  EXPECT_EQ(r.d2d, 1u);
  EXPECT_EQ(r.kernels, 5u);
  EXPECT_EQ(r.kernel_busy_ns, 300 + 400 + 100 + 100);
  EXPECT_EQ(r.unaddressed, 1u);
  EXPECT_EQ(r.allocations, 3u);
  EXPECT_EQ(r.passes, 2u);
  EXPECT_EQ(r.marker_block, 0u);  // P and Q both read twice: the first accessed wins
  EXPECT_EQ(r.records, 4u);
  EXPECT_EQ(r.blocks, 2u);
  EXPECT_EQ(r.record_bytes, 10 * kMiB);
  EXPECT_EQ(r.span_ns, 2500);

  // Events: 6 copies + 5 kernels in start order, times from the origin.
  ASSERT_EQ(out.events.size(), 11u);
  const CaptureEvent* d2d = nullptr;
  for (const auto& e : out.events) {
    if (e.type == CaptureEvent::Type::copy && e.copy_kind == CopyKind::dtod) d2d = &e;
  }
  ASSERT_NE(d2d, nullptr);
  EXPECT_EQ(d2d->src_region, "dev.0+0x0");
  EXPECT_EQ(d2d->dst_region, "dev.1+0x0");
  EXPECT_EQ(d2d->start_ns, 2600);
  EXPECT_EQ(d2d->first_record, kNoAddress);
  EXPECT_EQ(out.events.front().first_record, 0u);
  EXPECT_EQ(out.events.front().dst_region, "dev.0+0x0");
  // The kernel on the other CUPTI stream gets the next dense stream index.
  for (const auto& e : out.events) {
    if (e.type == CaptureEvent::Type::kernel) {
      EXPECT_EQ(e.stream, e.name == "other" ? 1u : 0u) << e.name;
    }
  }
}

// A one-off input copied first, then three passes over two weights: the
// most-read block (weight W0, not the input) marks the passes.
TEST(CaptureConvert, TokensFollowTheMostReadBlockNotTheFirstCopied) {
  RawCapture c;
  const std::uint64_t input = Q, w0 = P, w1 = P + kMiB;
  std::uint32_t corr = 1;
  std::uint64_t t = 100;
  auto h2d = [&](std::uint64_t src) {
    c.copies.push_back(copy(corr, 0, CopyKind::htod, MemoryKind::pinned, MemoryKind::device, kMiB, t, t + 10));
    c.api_calls.push_back(api(corr, ApiDomain::driver, A, src, kMiB));
    ++corr;
    t += 100;
  };
  h2d(input);
  for (int pass = 0; pass < 3; ++pass) {
    h2d(w0);
    h2d(w1);
  }
  const ConvertedCapture out = convert_capture({c}, {}, "t");
  ASSERT_EQ(out.records.size(), 7u);
  const std::int32_t tokens[] = {0, 0, 0, 1, 1, 2, 2};
  for (std::size_t i = 0; i < 7; ++i) EXPECT_EQ(out.records[i].token_index, tokens[i]) << i;
  EXPECT_EQ(out.report.marker_block, 1u);
  EXPECT_EQ(out.report.passes, 3u);
}

TEST(CaptureConvert, ComputeGapAndNoneAndNoTokens) {
  ConvertOptions o;
  o.compute = ComputeAttribution::gap;
  o.tokens_from_marker = false;
  const ConvertedCapture gap = convert_capture({two_passes()}, o, "t");
  ASSERT_EQ(gap.records.size(), 4u);
  EXPECT_EQ(gap.records[0].compute_ns, 1500 - 1100);
  EXPECT_EQ(gap.records[1].compute_ns, 3000 - 1550);
  EXPECT_EQ(gap.records[2].compute_ns, 3300 - 3100);
  EXPECT_EQ(gap.records[3].compute_ns, 3500 - 3350);
  EXPECT_EQ(gap.records[3].token_index, -1);
  EXPECT_EQ(gap.records[3].request_id, kNoRequest);
  EXPECT_EQ(gap.report.passes, 0u);
  o.compute = ComputeAttribution::none;
  const ConvertedCapture none = convert_capture({two_passes()}, o, "t");
  for (const auto& r : none.records) EXPECT_EQ(r.compute_ns, 0);
}

TEST(CaptureConvert, DeviceDirectionsAddMemsetAndDeviceCopies) {
  RawCapture c = two_passes();
  RawMemset s;
  s.correlation_id = 600;
  s.memory_kind = MemoryKind::device;
  s.bytes = kMiB;
  s.start_ns = 3620;
  s.end_ns = 3630;
  s.stream_id = 7;
  c.memsets.push_back(s);
  c.api_calls.push_back(api(600, ApiDomain::driver, B, 0, kMiB, ApiWhat::memset));
  ConvertOptions o;
  parse_directions("d2d,memset", o);
  EXPECT_FALSE(o.h2d);
  EXPECT_FALSE(o.d2h);
  const ConvertedCapture out = convert_capture({c}, o, "t");
  ASSERT_EQ(out.records.size(), 2u);
  EXPECT_EQ(out.records[0].op, AccessOp::read);  // D2D: read of A
  EXPECT_EQ(out.records[0].address, A);
  EXPECT_EQ(out.records[1].op, AccessOp::write);  // memset of B
  EXPECT_EQ(out.records[1].address, B);
  EXPECT_EQ(out.records[1].time_ns, 20);
  ASSERT_EQ(out.meta.catalog.size(), 2u);
  EXPECT_EQ(out.meta.catalog[0].name, "dev.0+0x0:1048576");
  EXPECT_EQ(out.meta.catalog[1].name, "dev.1+0x0:1048576");
  EXPECT_EQ(out.meta.catalog[1].kind, "device");
  EXPECT_THROW(parse_directions("h2d,sideways", o), InputError);
}

TEST(CaptureConvert, FixedSizeBlocksAlignedToTheAllocation) {
  RawCapture c;
  c.memory = {alloc(MemoryKind::pinned, P, 4 * kMiB, 1)};
  // 1 MiB from P + 512 KiB: straddles pieces 0 and 1 of the allocation; then
  // the whole 4 MiB; pageable Q (no region: pieces aligned to address 0).
  c.copies = {copy(1, 0, CopyKind::htod, MemoryKind::pinned, MemoryKind::device, kMiB, 100, 200),
              copy(2, 0, CopyKind::htod, MemoryKind::pinned, MemoryKind::device, 4 * kMiB, 300, 400),
              copy(3, 0, CopyKind::htod, MemoryKind::pageable, MemoryKind::device, kMiB + 16, 500, 600)};
  c.api_calls = {api(1, ApiDomain::driver, A, P + kMiB / 2, kMiB), api(2, ApiDomain::driver, A, P, 4 * kMiB),
                 api(3, ApiDomain::driver, A, Q, kMiB + 16)};
  ConvertOptions o;
  o.block_bytes = kMiB;
  const ConvertedCapture out = convert_capture({c}, o, "t");
  ASSERT_EQ(out.records.size(), 2u + 4u + 2u);
  EXPECT_EQ(out.records[0].block_id, 0u);
  EXPECT_EQ(out.records[0].offset, kMiB / 2);
  EXPECT_EQ(out.records[0].bytes, kMiB / 2);
  EXPECT_EQ(out.records[0].address, P + kMiB / 2);
  EXPECT_EQ(out.records[1].block_id, 1u);
  EXPECT_EQ(out.records[1].offset, 0u);
  EXPECT_EQ(out.records[1].bytes, kMiB / 2);
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(out.records[2 + i].block_id, i < 2 ? i : i);  // pieces 0..3 of the allocation
    EXPECT_EQ(out.records[2 + i].bytes, kMiB);
    EXPECT_EQ(out.records[2 + i].time_ns, 200);
  }
  EXPECT_EQ(out.records[6].block_id, 4u);
  EXPECT_EQ(out.records[6].bytes, kMiB);
  EXPECT_EQ(out.records[7].block_id, 5u);
  EXPECT_EQ(out.records[7].bytes, 16u);
  EXPECT_EQ(out.records[7].offset, 0u);
  ASSERT_EQ(out.meta.catalog.size(), 6u);
  EXPECT_EQ(out.meta.catalog[1].name, "pinned.0+0x100000:1048576");
  EXPECT_EQ(out.meta.catalog[3].name, "pinned.0+0x300000:1048576");
  EXPECT_EQ(out.meta.catalog[5].name, "pageable@0x5100000:1048576");
  // The marker is block 0 (read twice; blocks 1..5 once or twice, later).
  EXPECT_EQ(out.records[7].token_index, 1);
}

TEST(CaptureConvert, OneApiCallSplitIntoSeveralActivityRecords) {
  RawCapture c;
  c.copies = {copy(9, 0, CopyKind::htod, MemoryKind::pageable, MemoryKind::device, kMiB, 150, 160),
              copy(9, 0, CopyKind::htod, MemoryKind::pageable, MemoryKind::device, kMiB, 100, 110)};
  c.api_calls = {api(9, ApiDomain::driver, A, Q, 2 * kMiB)};
  const ConvertedCapture out = convert_capture({c}, {}, "t");
  ASSERT_EQ(out.records.size(), 2u);
  EXPECT_EQ(out.records[0].address, Q);  // the earlier GPU start takes the first piece
  EXPECT_EQ(out.records[1].address, Q + kMiB);
  EXPECT_NE(out.records[0].block_id, out.records[1].block_id);
}

TEST(CaptureConvert, TwoProcessesKeepTheirBlocksAndStreamsApart) {
  RawCapture a = two_passes(), b = two_passes();
  b.pid = 43;
  for (auto& c : b.copies) c.start_ns += 10, c.end_ns += 10;
  const ConvertedCapture out = convert_capture({a, b}, {}, "t");
  EXPECT_EQ(out.records.size(), 8u);
  EXPECT_EQ(out.meta.catalog.size(), 4u);  // same addresses, other process: other blocks
  EXPECT_EQ(out.meta.catalog[0].name, "p0.pinned.0+0x0:4194304");
  EXPECT_EQ(out.records[1].stream_id, 1u);
  EXPECT_EQ(out.records[1].block_id, 1u);  // process 1's P range
  EXPECT_EQ(out.report.processes, 2u);
}

TEST(CaptureConvert, NothingToKeepIsAnInputErrorSayingWhatWasSeen) {
  RawCapture c;
  c.kernels = {kernel(1, 2)};
  try {
    convert_capture({c}, {}, "prog");
    FAIL() << "no error";
  } catch (const InputError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("prog: no copy"), std::string::npos) << m;
    EXPECT_NE(m.find("1 kernels"), std::string::npos) << m;
  }
}

TEST(CaptureConvert, EventsCsvListsCopiesAndKernelsWithRegions) {
  test::TempDir dir;
  const ConvertedCapture out = convert_capture({two_passes()}, {}, "t");
  write_capture_events_csv(dir / "events.csv", out);
  std::ifstream in(dir / "events.csv");
  std::string header, first;
  std::getline(in, header);
  std::getline(in, first);
  EXPECT_EQ(header,
            "type,process,stream,start_ns,end_ns,bytes,copy_kind,src_kind,dst_kind,src,dst,src_region,dst_region,"
            "name,grid,block,first_record");
  EXPECT_EQ(first, "copy,0,0,0,100,4194304,htod,pinned,device,0x200000000,0x7f0000000000,pinned.0+0x0,dev.0+0x0,,,,0");
  std::string line;
  int lines = 2;
  while (std::getline(in, line)) {
    ++lines;
    if (line.rfind("kernel", 0) == 0) {
      EXPECT_NE(line.find(",8x1x1,256x1x1,"), std::string::npos) << line;
    }
  }
  EXPECT_EQ(lines, 12);
}

TEST(CaptureConvert, CuptiFormatOpensARawFileWithOptions) {
  test::TempDir dir;
  {
    std::FILE* f = std::fopen((dir / "capture-42.raw").c_str(), "wb");
    ASSERT_TRUE(write_raw_capture(f, two_passes()));
    std::fclose(f);
  }
  auto whole = open_trace(dir / "capture-42.raw", "cupti");
  EXPECT_EQ(test::read_all(*whole).size(), 4u);
  auto pieces = open_trace(dir.path(), "cupti", {{"block_bytes", "1MiB"}, {"compute", "none"}});
  const auto records = test::read_all(*pieces);
  EXPECT_EQ(records.size(), 4u + 1 + 4 + 1);
  EXPECT_EQ(pieces->meta().catalog.size(), 5u);
  EXPECT_THROW(open_trace(dir.path(), "cupti", {{"directions", "up"}}), InputError);
}

}  // namespace
}  // namespace flashsim::capture
