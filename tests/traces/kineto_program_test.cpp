// The program of a Kineto trace (traces/importers/kineto_program.h) on
// hand-made events.
#include <gtest/gtest.h>

#include "traces/importers/kineto_program.h"

namespace flashsim {
namespace {

KinetoProgramEvent ev(KinetoProgramEvent::Type t, std::string name, Nanoseconds ts, Nanoseconds dur, std::uint64_t corr,
                      std::uint32_t stream = 7, ByteCount bytes = 0) {
  KinetoProgramEvent e;
  e.type = t;
  e.name = std::move(name);
  e.thread = 534;
  e.ts_ns = ts;
  e.dur_ns = dur;
  e.correlation = corr;
  e.stream = stream;
  e.bytes = bytes;
  return e;
}

TEST(KinetoProgram, RuntimeCallsJoinTheirDeviceWorkAndSynchronisesFindTheirStream) {
  using T = KinetoProgramEvent::Type;
  std::vector<KinetoProgramEvent> events = {
      ev(T::call, "cudaStreamSynchronize", 500, 10, 1),  // before any device work: the whole device
      ev(T::call, "cudaLaunchKernel", 1000, 40, 2),
      ev(T::call, "cuLaunchKernel", 1010, 20, 3),  // inside the runtime call: part of it
      ev(T::kernel, "gemm", 1100, 900, 2),
      ev(T::call, "cudaMemcpyAsync", 2000, 5000, 4),
      ev(T::copy, "Memcpy HtoD (Pageable -> Device)", 2100, 4800, 4, 7, 4096),
      ev(T::call, "cudaStreamSynchronize", 7100, 20, 5),
  };
  AccessRecord r;
  r.time_ns = 0;  // the first (and only) weight copy
  r.bytes = 4096;
  r.token_index = 0;
  const Program p = kineto_program(events, {r}, "test");
  ASSERT_EQ(p.ops.size(), 5u);  // the nested driver call is not an op of its own
  EXPECT_EQ(p.ops[0].kind, ProgramOpKind::device_sync);
  EXPECT_EQ(p.ops[1].kind, ProgramOpKind::kernel);
  EXPECT_EQ(p.ops[1].host_start_ns, 1000 - 500);
  EXPECT_EQ(p.ops[1].gpu_ns, 900);
  EXPECT_EQ(p.ops[2].kind, ProgramOpKind::step);  // the pass's first weight copy starts a step
  EXPECT_EQ(p.ops[3].kind, ProgramOpKind::copy);
  EXPECT_EQ(p.ops[3].direction, CopyDirection::h2d);
  EXPECT_EQ(p.ops[3].host_memory, HostMemory::pageable);
  EXPECT_FALSE(p.ops[3].blocking);
  EXPECT_EQ(p.ops[3].first_access, 0u);
  EXPECT_EQ(p.ops[4].kind, ProgramOpKind::stream_sync);
  EXPECT_EQ(p.ops[4].stream, p.ops[3].stream);
  EXPECT_EQ(p.step_rule, "kineto passes");
  EXPECT_EQ(p.stream_count, 1u);
}

}  // namespace
}  // namespace flashsim
