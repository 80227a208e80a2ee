// The program of a capture (traces/importers/cupti_program.h) on synthetic
// format-2 raw records: which call did what, blocking, streams, steps.
#include <gtest/gtest.h>

#include "traces/importers/cupti_program.h"

namespace flashsim::capture {
namespace {

RawCapture sample() {
  RawCapture c;
  c.pid = 1;
  // Thread 77: mark, launch (corr 1), memcpyAsync (corr 2, driver 3 inside),
  // memcpy (corr 4, blocking), event record (5), stream sync (6), mark, end mark.
  c.apis = {{1, ApiDomain::runtime, 10, 1000, 1500, 77}, {2, ApiDomain::runtime, 11, 2000, 2600, 77},
            {3, ApiDomain::driver, 90, 2100, 2500, 77},  {4, ApiDomain::runtime, 12, 3000, 9000, 77},
            {5, ApiDomain::runtime, 13, 9100, 9200, 77}, {6, ApiDomain::runtime, 14, 9300, 12000, 77}};
  c.api_names = {{ApiDomain::runtime, 10, "cudaLaunchKernel_v7000"},
                 {ApiDomain::runtime, 11, "cudaMemcpyAsync_v3020"},
                 {ApiDomain::runtime, 12, "cudaMemcpy_v3020"},
                 {ApiDomain::runtime, 13, "cudaEventRecord"},
                 {ApiDomain::runtime, 14, "cudaStreamSynchronize_v3020"}};
  RawKernel k;
  k.correlation_id = 1;
  k.start_ns = 1600;
  k.end_ns = 5600;
  k.stream_id = 7;
  k.name = "gemm";
  c.kernels.push_back(k);
  RawCopy a;  // the async copy: activity names the driver call 3, runtime 2
  a.correlation_id = 3;
  a.runtime_correlation_id = 2;
  a.copy_kind = CopyKind::htod;
  a.src_kind = MemoryKind::pinned;
  a.dst_kind = MemoryKind::device;
  a.bytes = 4096;
  a.start_ns = 5600;
  a.end_ns = 5700;
  a.stream_id = 13;
  RawCopy b = a;  // the blocking copy: pageable, on stream 7
  b.correlation_id = 4;
  b.runtime_correlation_id = 4;
  b.src_kind = MemoryKind::pageable;
  b.start_ns = 5700;
  b.end_ns = 8900;
  b.stream_id = 7;
  c.copies = {a, b};
  c.api_calls.push_back(RawApiCall{2, ApiDomain::runtime, 11, ApiWhat::copy, 0x7000, 0x1000, 4096, 2000});
  c.api_calls.push_back(RawApiCall{4, ApiDomain::runtime, 12, ApiWhat::copy, 0x7000, 0x9000, 4096, 3000});
  c.event_records.push_back(RawEventRecord{5, 1, 13, 42});
  c.syncs.push_back(RawSync{SyncType::stream_synchronize, 9300, 12000, 6, 1, 7, 0});
  c.markers = {{kMarkerInstantaneous, 900, 77, "flashsim.step"},
               {kMarkerInstantaneous, 12500, 77, "flashsim.step"},
               {kMarkerInstantaneous, 12600, 77, "flashsim.end"},
               {kMarkerInstantaneous, 12700, 77, "other"}};
  derive_links_from_apis(c);
  return c;
}

TEST(CuptiProgram, CallsBecomeOpsWithTheirStreamsBlockingAndSteps) {
  const std::vector<RawCapture> raw = {sample()};
  const ConvertedCapture converted = convert_capture(raw, ConvertOptions{}, "test");
  ProgramReport rep;
  const Program p = build_program(raw, converted, ProgramOptions{}, "test", &rep);
  EXPECT_EQ(p.thread_count, 1u);
  EXPECT_EQ(rep.api_calls, 5u);  // the driver call inside cudaMemcpyAsync is part of it
  EXPECT_EQ(p.step_rule, "nvtx:flashsim.step");
  std::vector<ProgramOpKind> kinds;
  for (const ProgramOp& op : p.ops) kinds.push_back(op.kind);
  const std::vector<ProgramOpKind> expected = {ProgramOpKind::step,         ProgramOpKind::kernel,
                                               ProgramOpKind::copy,         ProgramOpKind::copy,
                                               ProgramOpKind::event_record, ProgramOpKind::stream_sync,
                                               ProgramOpKind::step,         ProgramOpKind::step};
  ASSERT_EQ(kinds, expected);
  const Nanoseconds origin = 900;  // the first mark, before the first call
  EXPECT_EQ(p.ops[0].host_start_ns, 0);
  EXPECT_EQ(p.ops[1].host_start_ns, 1000 - origin);
  EXPECT_EQ(p.ops[1].gpu_ns, 4000);
  EXPECT_FALSE(p.ops[2].blocking);  // cudaMemcpyAsync
  EXPECT_EQ(p.ops[2].host_memory, HostMemory::pinned);
  EXPECT_TRUE(p.ops[3].blocking);   // cudaMemcpy
  EXPECT_EQ(p.ops[3].host_memory, HostMemory::pageable);
  EXPECT_EQ(p.ops[3].host_end_ns - p.ops[3].host_start_ns, 6000);
  EXPECT_EQ(p.ops[2].first_access, 0u);  // GPU start order: the async copy became record 0
  EXPECT_EQ(p.ops[3].first_access, 1u);
  // Streams keep the trace's numbering: the kernel's stream 7 was seen with the
  // blocking copy (record 1) after stream 13 (record 0).
  EXPECT_EQ(p.ops[2].stream, p.ops[4].stream);  // copy and event record on raw stream 13
  EXPECT_EQ(p.ops[1].stream, p.ops[5].stream);  // kernel and sync on raw stream 7
  EXPECT_NE(p.ops[1].stream, p.ops[2].stream);
  EXPECT_EQ(p.event_count, 1u);
  EXPECT_EQ(p.ops[6].host_start_ns, 12500 - origin);
}

TEST(CuptiProgram, Format1CapturesHaveNoProgramAndKernelStepsAreAnOption) {
  RawCapture v1 = sample();
  std::vector<RawCapture> raw = {v1};
  raw[0].apis.clear();
  const ConvertedCapture converted = convert_capture(raw, ConvertOptions{}, "test");
  EXPECT_TRUE(build_program(raw, converted, ProgramOptions{}, "test").empty());

  raw = {sample()};
  raw[0].markers.clear();
  const ConvertedCapture c2 = convert_capture(raw, ConvertOptions{}, "test");
  ProgramOptions o;
  o.step_kernel = "gem";
  const Program p = build_program(raw, c2, o, "test");
  EXPECT_EQ(p.step_rule, "kernel:gem");
  ASSERT_GE(p.ops.size(), 2u);
  EXPECT_EQ(p.ops[0].kind, ProgramOpKind::step);
  EXPECT_EQ(p.ops[1].kind, ProgramOpKind::kernel);
}

TEST(CuptiProgram, CheckProgramRefusesCorruptCountsAndValues) {
  const std::vector<RawCapture> raw = {sample()};
  const ConvertedCapture converted = convert_capture(raw, ConvertOptions{}, "test");
  const Program good = build_program(raw, converted, ProgramOptions{}, "test");
  EXPECT_EQ(check_program(good, converted.records.size()), "");
  Program p = good;
  p.event_count = 0xFFFFFFFFu;  // a corrupt header: refused before anything is sized by it
  EXPECT_NE(check_program(p, converted.records.size()).find("more than the"), std::string::npos);
  p = good;
  p.ops[1].gpu_ns = -1;
  EXPECT_NE(check_program(p, converted.records.size()).find("negative GPU time"), std::string::npos);
  p = good;
  p.ops[2].bytes = ByteCount{1} << 62;
  EXPECT_NE(check_program(p, converted.records.size()).find("more than 1 PiB"), std::string::npos);
  p = good;
  p.ops[2].first_access = converted.records.size();
  EXPECT_NE(check_program(p, converted.records.size()).find("outside the trace"), std::string::npos);
}

}  // namespace
}  // namespace flashsim::capture
