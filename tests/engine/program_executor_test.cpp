// The execution model of real programs (sim/engine/program/program_executor.h):
// small hand-built programs whose step times, copy times and blocked host
// time are computed by hand in the comments next to each expectation.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "sim/core/errors.h"
#include "sim/engine/execution_spec.h"
#include "sim/engine/hardware_profile.h"
#include "sim/engine/program/program_executor.h"
#include "sim/engine/program/program_prefetch.h"
#include "traces/access_record.h"
#include "traces/program.h"

namespace flashsim {
namespace {

// --- building programs ---

ProgramOp op(ProgramOpKind kind, Nanoseconds start, Nanoseconds end, std::uint32_t stream = kNoStream) {
  ProgramOp o;
  o.kind = kind;
  o.host_start_ns = start;
  o.host_end_ns = end;
  o.stream = stream;
  return o;
}
ProgramOp step(Nanoseconds t) { return op(ProgramOpKind::step, t, t); }
ProgramOp kernel(Nanoseconds start, Nanoseconds end, std::uint32_t stream, Nanoseconds gpu) {
  ProgramOp o = op(ProgramOpKind::kernel, start, end, stream);
  o.gpu_ns = gpu;
  return o;
}
ProgramOp copy(Nanoseconds start, Nanoseconds end, std::uint32_t stream, CopyDirection dir, ByteCount bytes,
               HostMemory memory, bool blocking = false) {
  ProgramOp o = op(ProgramOpKind::copy, start, end, stream);
  o.direction = dir;
  o.bytes = bytes;
  o.host_memory = memory;
  o.blocking = blocking;
  return o;
}
ProgramOp with_event(ProgramOp o, std::uint32_t event) {
  o.event = event;
  return o;
}

Program program(std::vector<ProgramOp> ops, std::uint32_t threads, std::uint32_t streams, std::uint32_t events = 0) {
  Program p;
  p.ops = std::move(ops);
  p.thread_count = threads;
  p.stream_count = streams;
  p.event_count = events;
  p.step_rule = "nvtx:step";
  return p;
}

TraceMeta meta_of(const Program& p, std::vector<BlockCatalogEntry> catalog = {}) {
  TraceMeta meta;
  meta.schema_version = 2;
  meta.source = "program_executor_test";
  meta.catalog = std::move(catalog);
  meta.program = std::make_shared<const Program>(p);
  return meta;
}

// Two tiers: HBM and host DRAM behind a 16 GB/s link with 1 us latency
// (the fallback of ExecutionSpec's link figures).
HardwareProfile hardware(const ExecutionSpec& execution = {}) {
  HardwareProfile hw;
  hw.name = "test";
  TierSpec hbm;
  hbm.name = "hbm";
  hbm.capacity_bytes = 1 << 30;
  TierSpec dram;
  dram.name = "host_dram";
  dram.link_to_faster.latency_ns = 1000;
  dram.link_to_faster.bandwidth = 16e9;
  hw.tiers = {hbm, dram};
  hw.execution = execution;
  return hw;
}

ExecutorOptions recorded_time() {
  ExecutorOptions o;
  o.host_time = HostTime::recorded;
  return o;
}

// --- 1. closed loop: one thread, one stream ---

// step, launch (host 1000 ns), stream sync, step ... with gaps of 100 (step
// -> launch), 200 (launch exit -> sync entry) and 300 (sync exit -> step).
Program closed_loop(Nanoseconds gpu, Nanoseconds sync_recorded) {
  std::vector<ProgramOp> ops;
  Nanoseconds t = 0;
  for (int s = 0; s < 2; ++s) {
    ops.push_back(step(t));
    ops.push_back(kernel(t + 100, t + 1100, 0, gpu));
    ops.push_back(op(ProgramOpKind::stream_sync, t + 1300, t + 1300 + sync_recorded, 0));
    t += 1300 + sync_recorded + 300;
  }
  ops.push_back(step(t));
  return program(std::move(ops), 1, 1);
}

TEST(ProgramExecutor, ClosedLoopGpuBoundRecordedAndCalibrated) {
  // Recorded: sync 1300 -> 6200 (4900 ns), step every 6500 ns.
  const Program p = closed_loop(5000, 4900);
  const TraceMeta meta = meta_of(p);
  ExecutionSpec spec;
  spec.api_launch_ns = 300;
  spec.api_stream_sync_ns = 40;
  const HardwareProfile hw = hardware(spec);

  const ProgramPrediction r = run_program(meta, {}, hw, recorded_time());
  // Step: gap 100, launch at 100 -> kernel 100..5100; launch cost 1000 -> 1100,
  // gap 200 -> sync at 1300 waits to 5100 (3800 blocked), blocked sync returns
  // after api_stream_sync 40 -> 5140, gap 300 -> next step at 5440.
  // = 100 + 5000 + 40 + 300 = 5440.
  ASSERT_EQ(r.step_start_ns.size(), 3u);
  EXPECT_EQ(r.step_start_ns[0], 0);
  EXPECT_EQ(r.step_durations(0), (std::vector<Nanoseconds>{5440, 5440}));
  EXPECT_EQ(r.step_durations(1), (std::vector<Nanoseconds>{5440}));
  EXPECT_EQ(r.step_durations(0, true), (std::vector<Nanoseconds>{6500, 6500}));  // 1300 + 4900 + 300
  EXPECT_EQ(r.host_blocked_ns, 2 * 3800);  // 5100 - 1300 per step
  EXPECT_EQ(r.end_ns, 2 * 5440);           // the last step marker, cost 0

  ExecutorOptions calibrated;
  calibrated.host_time = HostTime::calibrated;
  const ProgramPrediction c = run_program(meta, {}, hw, calibrated);
  // GPU bound: launch costs min(1000, 300) = 300 -> sync at 100 + 300 + 200 =
  // 600 waits to 5100 (4500 blocked); step still 100 + 5000 + 40 + 300 = 5440.
  EXPECT_EQ(c.step_durations(0), (std::vector<Nanoseconds>{5440, 5440}));
  EXPECT_EQ(c.host_blocked_ns, 2 * 4500);
}

TEST(ProgramExecutor, ClosedLoopHostBoundRecordedCalibratedAndCaptureGap) {
  // A 400 ns kernel: the syncs below never block in the model (the stream
  // has drained when they are issued), so their non-blocking cost applies.
  const Program p = closed_loop(400, 4900);
  const TraceMeta meta = meta_of(p);
  ExecutionSpec spec;
  spec.api_launch_ns = 300;
  spec.api_stream_sync_ns = 40;
  const HardwareProfile hw = hardware(spec);

  const ProgramPrediction r = run_program(meta, {}, hw, recorded_time());
  // Recorded costs: kernel 100..500, sync at 1300: 100 + 1000 + 200 + 4900
  // (sync as recorded) + 300 = 6500, the recorded step.
  EXPECT_EQ(r.step_durations(0), (std::vector<Nanoseconds>{6500, 6500}));
  EXPECT_EQ(r.host_blocked_ns, 0);

  ExecutorOptions calibrated;
  const ProgramPrediction c = run_program(meta, {}, hw, calibrated);
  // Kernel 100..500, sync at 100 + 300 + 200 = 600 (drained):
  // 100 + min(1000, 300) + 200 + min(4900, 40) + 300 = 940.
  EXPECT_EQ(c.step_durations(0), (std::vector<Nanoseconds>{940, 940}));

  calibrated.capture_gap_ns = 50;
  const ProgramPrediction g = run_program(meta, {}, hw, calibrated);
  // Gaps less 50 each: kernel 50..450, sync at 50 + 300 + 150 = 500 (drained):
  // 50 + 300 + 150 + 40 + 250 = 790.
  EXPECT_EQ(g.step_durations(0), (std::vector<Nanoseconds>{790, 790}));
}

// --- 2. async copy overlap through an event ---

// Pinned H2D copy of 64000 B on side stream 1, event record on 1, stream 0
// waits for it, kernel (2000 ns) on 0, device sync, step.
Program copy_then_kernel(bool blocking_copy) {
  std::vector<ProgramOp> ops;
  ops.push_back(step(0));
  ProgramOp c = copy(100, 600, 1, CopyDirection::h2d, 64000, HostMemory::pinned, blocking_copy);
  c.gpu_ns = 4500;  // recorded GPU time: a record only
  ops.push_back(c);
  ops.push_back(with_event(op(ProgramOpKind::event_record, 700, 800, 1), 0));
  ops.push_back(with_event(op(ProgramOpKind::stream_wait_event, 900, 1000, 0), 0));
  ops.push_back(kernel(1100, 1600, 0, 2000));
  ops.push_back(op(ProgramOpKind::device_sync, 1800, 9000));
  ops.push_back(step(9200));
  return program(std::move(ops), 1, 2, 1);
}

ExecutionSpec h2d_spec() {
  ExecutionSpec spec;
  spec.h2d_latency_ns = 1000;
  spec.h2d_bandwidth = 16e9;  // 16 B/ns: 64000 B in 4000 ns
  spec.d2h_latency_ns = 1000;
  spec.d2h_bandwidth = 16e9;
  spec.api_device_sync_ns = 25;
  return spec;
}

TEST(ProgramExecutor, AsyncCopyOnASideStreamGatesTheKernelNotTheHost) {
  const TraceMeta meta = meta_of(copy_then_kernel(false));
  const ProgramPrediction r = run_program(meta, {}, hardware(h2d_spec()), recorded_time());
  // Copy issued at 100 (gap from the step): 1000 + 64000 / 16 = 5000 ns, ends
  // 5100. The host goes on: copy cost 500 -> 600, +100 -> record at 700
  // (queued behind the copy), -> 800 +100 -> wait at 900 (stream 0 held),
  // -> 1000 +100 -> kernel at 1100 (queued behind the wait), -> 1600 +200 ->
  // device sync at 1800. At 5100 the record completes, the wait releases and
  // the kernel starts (the copy's end): 5100..7100. The sync returns at
  // 7100 + 25; +200 gap -> step at 7325 = 100 + 5000 + 2000 + 25 + 200.
  EXPECT_EQ(r.step_durations(0), (std::vector<Nanoseconds>{7325}));
  EXPECT_EQ(r.host_blocked_ns, 7100 - 1800);  // only the device sync blocked
  EXPECT_EQ(r.copies, 1u);
  EXPECT_EQ(r.h2d_bytes, 64000u);
  EXPECT_EQ(r.copy_count[0][0], 1u);
  EXPECT_EQ(r.copy_model_ns[0][0], 5000);
  EXPECT_EQ(r.copy_recorded_ns[0][0], 4500);
  EXPECT_EQ(r.copy_count[0][1], 0u);
}

TEST(ProgramExecutor, BlockingPinnedCopyBlocksTheHostUntilItEnds) {
  const TraceMeta meta = meta_of(copy_then_kernel(true));
  const ProgramPrediction r = run_program(meta, {}, hardware(h2d_spec()), recorded_time());
  // cudaMemcpy at 100 blocks to 5100 (5000), returns after api_stream_sync
  // (0) -> +100 gap -> record at 5200 (stream 1 idle: done at once) -> 5300
  // +100 -> wait at 5400 (satisfied) -> 5500 +100 -> kernel at 5600..7600;
  // -> 6100 +200 -> device sync at 6300 waits to 7600 (1300), +25 +200 ->
  // step at 7825.
  EXPECT_EQ(r.step_durations(0), (std::vector<Nanoseconds>{7825}));
  EXPECT_EQ(r.host_blocked_ns, 5000 + 1300);
}

// --- 3. pageable copies: the calibrated curve, blocking; pinned what-if ---

TEST(ProgramExecutor, PageableCopyBlocksForTheCurveTimePinnedDoesNot) {
  std::vector<ProgramOp> ops;
  ops.push_back(step(0));
  ops.push_back(copy(100, 600, 0, CopyDirection::h2d, 26000, HostMemory::pageable));  // cudaMemcpyAsync
  ops.push_back(op(ProgramOpKind::host, 700, 800));
  ops.push_back(op(ProgramOpKind::stream_sync, 900, 1000, 0));
  ops.push_back(step(1200));
  const TraceMeta meta = meta_of(program(std::move(ops), 1, 1));
  ExecutionSpec spec = h2d_spec();
  spec.api_stream_sync_ns = 30;
  spec.pageable_h2d = make_copy_curve({{101000, 12000}, {1000, 2000}}, "pageable_h2d");  // sorted by bytes
  // 26000 B: 2000 + (12000 - 2000) * (26000 - 1000) / (101000 - 1000) = 2000 + 2500 = 4500.
  EXPECT_EQ(spec.pageable_h2d.time_ns(26000), 4500);
  const HardwareProfile hw = hardware(spec);

  const ProgramPrediction r = run_program(meta, {}, hw, recorded_time());
  // Copy at 100 blocks to 4600 (4500), returns after 30 -> 4630, +100 -> host
  // op 4730..4830, +100 -> sync at 4930 (drained: recorded 100) -> 5030, +200
  // -> step at 5230 = 100 + 4500 + 30 + 100 + 100 + 100 + 100 + 200.
  EXPECT_EQ(r.step_durations(0), (std::vector<Nanoseconds>{5230}));
  EXPECT_EQ(r.host_blocked_ns, 4500);
  EXPECT_EQ(r.copy_count[0][1], 1u);
  EXPECT_EQ(r.copy_model_ns[0][1], 4500);
  EXPECT_EQ(r.copy_count[0][0], 0u);

  ExecutorOptions pinned = recorded_time();
  pinned.host_memory = HostMemoryMode::pinned;
  const ProgramPrediction q = run_program(meta, {}, hw, pinned);
  // Pinned: 1000 + 26000 / 16 = 2625 ns, 100..2725, async: the host goes on
  // 600 +100 -> host op 700..800 +100 -> sync at 900 waits to 2725 (1825),
  // +30 +200 -> step at 2955 = 100 + 2625 + 30 + 200.
  EXPECT_EQ(q.step_durations(0), (std::vector<Nanoseconds>{2955}));
  EXPECT_EQ(q.host_blocked_ns, 2725 - 900);
  EXPECT_EQ(q.copy_count[0][0], 1u);
  EXPECT_EQ(q.copy_model_ns[0][0], 2625);
  EXPECT_EQ(q.copy_count[0][1], 0u);
}

// --- 3b. the capture's host facts (schema v3) ---

// One pageable D2H copy of 10000 B, 3/4 of it into fresh pages; the
// profile's touched curve 1 ns/B, fresh 3 ns/B (straight lines through 0).
TEST(ProgramExecutor, FreshPagesAreChargedPerCopyAsTheCaptureRecorded) {
  Program p = program({step(0), copy(100, 200, 0, CopyDirection::d2h, 10000, HostMemory::pageable, true), step(20000)}, 1, 1);
  p.ops[1].host_fresh_bytes = 7500;
  p.host.residency_recorded = true;
  ExecutionSpec spec;
  spec.pageable_d2h = make_copy_curve({{1000, 1000}, {100000, 100000}}, "d2h");
  spec.pageable_d2h_fresh = make_copy_curve({{1000, 3000}, {100000, 300000}}, "fresh");
  const HardwareProfile hw = hardware(spec);
  auto copy_ns = [&](FreshPages f, bool recorded) {
    Program q = p;
    q.host.residency_recorded = recorded;
    ExecutorOptions o = recorded_time();
    o.fresh_pages = f;
    return run_program(meta_of(q), {}, hw, o).copy_model_ns[1][1];
  };
  // per copy: 10000 + 0.75 * (30000 - 10000) = 25000.
  EXPECT_EQ(copy_ns(FreshPages::per_copy, true), 25000);
  EXPECT_EQ(copy_ns(FreshPages::per_copy, false), 10000);  // not recorded: touched
  EXPECT_EQ(copy_ns(FreshPages::all, true), 30000);
  EXPECT_EQ(copy_ns(FreshPages::none, true), 10000);
}

// Fresh pages without a fresh-page curve: 'all' is refused, and per copy
// warns that the recorded fresh bytes are timed as touched pages. With
// copy curves 'fit' the curve comes from the trace's own fresh copies (more
// than half of their bytes fresh), so 'all' then works without the profile's.
TEST(ProgramExecutor, FreshPagesWithoutAFreshCurveAreRefusedOrSaid) {
  // Three copies (kMinCurveCopies: the fewest a fitted curve is made from).
  std::vector<ProgramOp> ops = {step(0)};
  for (int i = 0; i < 3; ++i) {
    ops.push_back(copy(100 + 50000 * i, 200 + 50000 * i, 0, CopyDirection::d2h, 10000, HostMemory::pageable, true));
    ops.back().host_fresh_bytes = 7500;
    ops.back().gpu_ns = 40000;
  }
  ops.push_back(step(200000));
  Program p = program(ops, 1, 1);
  p.host.residency_recorded = true;
  ExecutionSpec spec;
  spec.pageable_d2h = make_copy_curve({{1000, 1000}, {100000, 100000}}, "d2h");
  const HardwareProfile hw = hardware(spec);
  ExecutorOptions o = recorded_time();
  o.fresh_pages = FreshPages::all;
  o.copy_curves = CopyCurveSource::capture;  // the trace stores no fresh curve
  try {
    run_program(meta_of(p), {}, hw, o);
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("copy curves 'capture'"), std::string::npos) << e.what();
  }
  o.copy_curves = CopyCurveSource::fit;  // refitted: three fresh copies of 10000 B in 40000 ns
  EXPECT_EQ(run_program(meta_of(p), {}, hw, o).copy_model_ns[1][1], 3 * 40000);
  o.fresh_pages = FreshPages::per_copy;
  o.copy_curves = CopyCurveSource::profile;
  const ProgramPrediction q = run_program(meta_of(p), {}, hw, o);
  EXPECT_EQ(q.copy_model_ns[1][1], 3 * 10000);  // timed as touched pages
  ASSERT_EQ(q.sources.warnings.size(), 1u);
  EXPECT_NE(q.sources.warnings[0].find("no fresh-page curve"), std::string::npos) << q.sources.warnings[0];
  o.fresh_pages = FreshPages::none;  // asked for: nothing to warn about
  EXPECT_TRUE(run_program(meta_of(p), {}, hw, o).sources.warnings.empty());
}

// The trace's own curve inside its sizes; the profile's beyond, scaled to meet it.
TEST(ProgramExecutor, CaptureCurvesWinInsideTheirSizesAndScaleTheProfileBeyond) {
  ExecutionSpec spec;
  spec.pageable_h2d = make_copy_curve({{1000, 1000}, {1000000, 1000000}}, "h2d");  // 1 ns/B
  const HardwareProfile hw = hardware(spec);
  auto h2d_ns = [&](ByteCount bytes, CopyCurveSource source) {
    Program p = program({step(0), copy(100, 200, 0, CopyDirection::h2d, bytes, HostMemory::pageable), step(20000000)}, 1, 1);
    p.host.pageable_h2d = {{10000, 20000, 4}, {20000, 30000, 4}};  // the capture: 2 ns/B at 10 kB, 1.5 at 20 kB
    ExecutorOptions o = recorded_time();
    o.copy_curves = source;
    const ProgramPrediction r = run_program(meta_of(p), {}, hw, o);
    EXPECT_FALSE(r.sources.pageable_h2d.empty());
    return r.copy_model_ns[0][1];
  };
  EXPECT_EQ(h2d_ns(15000, CopyCurveSource::capture), 25000);  // interpolated
  EXPECT_EQ(h2d_ns(40000, CopyCurveSource::capture), 60000);  // profile 40000 x (30000 / 20000)
  EXPECT_EQ(h2d_ns(5000, CopyCurveSource::capture), 10000);   // profile 5000 x (20000 / 10000)
  EXPECT_EQ(h2d_ns(15000, CopyCurveSource::profile), 15000);
}

// fit: an older trace's own copies make the curve (3 copies of 1000 B that
// took 5000 ns each on the GPU: 5000 ns; the profile says 1000).
TEST(ProgramExecutor, FitMakesTheCurveFromTheTracesOwnCopies) {
  std::vector<ProgramOp> ops = {step(0)};
  for (int i = 0; i < 3; ++i) {
    ops.push_back(copy(100 + 10000 * i, 200 + 10000 * i, 0, CopyDirection::h2d, 1000, HostMemory::pageable));
    ops.back().gpu_ns = 5000;
  }
  ops.push_back(step(40000));
  const Program p = program(std::move(ops), 1, 1);
  ExecutionSpec spec;
  spec.pageable_h2d = make_copy_curve({{1000, 1000}, {1000000, 1000000}}, "h2d");
  const HardwareProfile hw = hardware(spec);
  ExecutorOptions o = recorded_time();
  EXPECT_EQ(run_program(meta_of(p), {}, hw, o).copy_model_ns[0][1], 3000);  // schema 2: the profile's
  o.copy_curves = CopyCurveSource::fit;
  const ProgramPrediction f = run_program(meta_of(p), {}, hw, o);
  EXPECT_EQ(f.copy_model_ns[0][1], 15000);
  EXPECT_EQ(f.sources.pageable_h2d.rfind("capture (1 sizes, 3 copies)", 0), 0u) << f.sources.pageable_h2d;
}

// The probe's recorded gaps come off the gaps, half from each neighbour; its
// cost inside host-only calls off their recorded time.
TEST(ProgramExecutor, TheMeasuredCaptureCostComesOffGapsAndHostCalls) {
  // step 0, host call 100..1100, kernel launch 1500..1600 (gpu 10), step 2000.
  Program p = program({step(0), op(ProgramOpKind::host, 100, 1100), kernel(1500, 1600, 0, 10), step(2000)}, 1, 1);
  p.host.call_costs = {{"host_call", 50, 450, 200}, {"launch", 1000, 1800, 600}};
  const HardwareProfile hw = hardware();
  const ProgramPrediction r = run_program(meta_of(p), {}, hw, recorded_time());
  // Gaps: step->host 100 - (0 + 100) = 0; host->launch 400 - (100 + 300) = 0;
  // launch->step 400 - (300 + 0) = 100. Host call 1000 - (450 - 50 - 200) = 800;
  // launch 100 - (1800 - 1000 - 600 = 200) -> 0. Step = 0 + 800 + 0 + 0 + 100 = 900.
  EXPECT_EQ(r.step_durations(0), (std::vector<Nanoseconds>{900}));
  EXPECT_NE(r.sources.capture_cost.find("measured at capture"), std::string::npos) << r.sources.capture_cost;
  ExecutorOptions fixed = recorded_time();
  fixed.capture_gap_ns = 0;  // a figure given: no probe figures at all
  EXPECT_EQ(run_program(meta_of(p), {}, hw, fixed).step_durations(0), (std::vector<Nanoseconds>{2000}));
}

// --- 4. duplex ---

TEST(ProgramExecutor, DuplexLimitHalvesTheSecondDirectionToStart) {
  std::vector<ProgramOp> ops;
  ops.push_back(step(0));
  ops.push_back(copy(100, 300, 0, CopyDirection::h2d, 64000, HostMemory::pinned));
  ops.push_back(copy(400, 600, 1, CopyDirection::d2h, 64000, HostMemory::pinned));
  ops.push_back(op(ProgramOpKind::device_sync, 700, 7900));
  ops.push_back(step(8000));
  const TraceMeta meta = meta_of(program(std::move(ops), 1, 2));
  ExecutionSpec spec = h2d_spec();
  spec.api_device_sync_ns = 0;
  spec.duplex_bandwidth = 20e9;  // each direction at most 10 GB/s while both run

  const ProgramPrediction r = run_program(meta, {}, hardware(spec), recorded_time());
  // H2D starts first at 100 with the D2H engine idle: 1000 + 64000 / 16 =
  // 5000 ns (100..5100). D2H starts second at 400 while H2D runs: bandwidth
  // min(16, 20 / 2) = 10 B/ns -> 1000 + 6400 = 7400 ns (400..7800). Device
  // sync at 700 waits to 7800, +100 gap -> step at 7900.
  EXPECT_EQ(r.copy_model_ns[0][0], 5000);
  EXPECT_EQ(r.copy_model_ns[1][0], 7400);
  EXPECT_EQ(r.step_durations(0), (std::vector<Nanoseconds>{7900}));
  EXPECT_EQ(r.h2d_bytes, 64000u);
  EXPECT_EQ(r.d2h_bytes, 64000u);

  spec.duplex_bandwidth = 0;  // no limit: both 5000 ns, D2H 400..5400
  const ProgramPrediction u = run_program(meta, {}, hardware(spec), recorded_time());
  EXPECT_EQ(u.copy_model_ns[1][0], 5000);
  EXPECT_EQ(u.step_durations(0), (std::vector<Nanoseconds>{5500}));  // 5400 + 100
}

// The limit applies while the other engine is busy when the copy actually
// starts (not when it was issued): an H2D copy queued behind a long H2D copy
// starts after the D2H copy has ended and gets the full bandwidth.
TEST(ProgramExecutor, DuplexLimitLooksAtTheCopysStartNotItsIssue) {
  std::vector<ProgramOp> ops;
  ops.push_back(copy(100, 100, 0, CopyDirection::h2d, 160000, HostMemory::pinned));
  ops.push_back(copy(200, 200, 1, CopyDirection::d2h, 64000, HostMemory::pinned));
  ops.push_back(copy(300, 300, 2, CopyDirection::h2d, 64000, HostMemory::pinned));
  ops.push_back(op(ProgramOpKind::device_sync, 400, 400));
  const TraceMeta meta = meta_of(program(std::move(ops), 1, 3));
  ExecutionSpec spec = h2d_spec();
  spec.api_device_sync_ns = 0;
  spec.duplex_bandwidth = 20e9;

  const ProgramPrediction r = run_program(meta, {}, hardware(spec), recorded_time());
  // H2D A: 100..(100 + 1000 + 160000 / 16 = 11100), full bandwidth.
  // D2H at 200, H2D busy: 1000 + 64000 / 10 = 7400 -> 200..7600.
  // H2D B issued at 300 waits for the H2D engine: 11100..; the D2H engine is
  // idle then (7600 < 11100): full bandwidth, 5000 -> ends 16100.
  EXPECT_EQ(r.copy_model_ns[0][0], 11000 + 5000);
  EXPECT_EQ(r.copy_model_ns[1][0], 7400);
  EXPECT_EQ(r.end_ns, 16100);  // the device sync returns when B ends (cost 0)
}

// --- 5. the fast tier removes copies of resident blocks ---

// step, H2D copy of block 7 (record r), stream sync, step -- twice.
struct TwoCopies {
  TraceMeta meta;
  std::vector<AccessRecord> records;
};

TwoCopies two_copies_of_one_block() {
  std::vector<ProgramOp> ops;
  Nanoseconds t = 0;
  for (std::uint64_t r = 0; r < 2; ++r) {
    ops.push_back(step(t));
    ProgramOp c = copy(t + 100, t + 300, 0, CopyDirection::h2d, 64000, HostMemory::pinned);
    c.first_access = r;
    c.access_count = 1;
    ops.push_back(c);
    ops.push_back(op(ProgramOpKind::stream_sync, t + 300, t + 5400, 0));
    t += 5500;
  }
  ops.push_back(step(t));
  BlockCatalogEntry block;
  block.id = 7;
  block.bytes = 64000;
  block.kind = "weight";
  TwoCopies out;
  out.meta = meta_of(program(std::move(ops), 1, 1), {block});
  for (std::uint64_t r = 0; r < 2; ++r) {
    AccessRecord a;
    a.time_ns = static_cast<Nanoseconds>(100 + 5500 * r);
    a.block_id = 7;
    a.bytes = 64000;
    a.op = AccessOp::read;
    out.records.push_back(a);
  }
  return out;
}

TEST(ProgramExecutor, FastTierRemovesTheCopyOfAResidentBlock) {
  const TwoCopies t = two_copies_of_one_block();
  ExecutionSpec spec = h2d_spec();
  spec.api_copy_async_ns = 50;
  spec.api_stream_sync_ns = 20;
  const HardwareProfile hw = hardware(spec);
  ExecutorOptions o;  // calibrated host time
  o.cache.capacity_bytes = 1 << 30;
  o.cache.eviction.impl = "lru";

  o.as_recorded = true;
  const ProgramPrediction all = run_program(t.meta, t.records, hw, o);
  // Each step: gap 100, copy 1000 + 64000 / 16 = 5000 (host: min(200, 50),
  // gap 0, sync waits for the copy), sync returns +20, gap 100:
  // 100 + 5000 + 20 + 100 = 5220.
  EXPECT_EQ(all.step_durations(0), (std::vector<Nanoseconds>{5220, 5220}));
  EXPECT_EQ(all.copies, 2u);
  EXPECT_EQ(all.copies_removed, 0u);
  EXPECT_EQ(all.bytes_removed, 0u);
  EXPECT_EQ(all.h2d_bytes, 128000u);
  // No tier: both accesses are misses served by the program's copies.
  EXPECT_EQ(all.counters.accesses, 2u);
  EXPECT_EQ(all.counters.hits, 0u);
  EXPECT_EQ(all.counters.bytes_fetched, 128000u);

  o.as_recorded = false;
  const ProgramPrediction lru = run_program(t.meta, t.records, hw, o);
  // The first copy misses (block 7 admitted): 5220 as above. The second hits:
  // nothing is copied, the sync finds the stream drained and costs
  // min(5100, 20) = 20: 100 + 50 + 20 + 100 = 270, shorter by
  // 5220 - 270 = 4950 = the copy's 5000 less the 50 of the copy call that
  // overlapped it.
  EXPECT_EQ(lru.step_durations(0), (std::vector<Nanoseconds>{5220, 270}));
  EXPECT_EQ(lru.copies, 2u);
  EXPECT_EQ(lru.copies_removed, 1u);
  EXPECT_EQ(lru.bytes_removed, 64000u);
  EXPECT_EQ(lru.h2d_bytes, 64000u);
  EXPECT_EQ(lru.copy_count[0][0], 1u);  // only the first reached the copy engine
  EXPECT_EQ(lru.counters.accesses, 2u);
  EXPECT_EQ(lru.counters.misses, 1u);
  EXPECT_EQ(lru.counters.hits, 1u);
  EXPECT_EQ(lru.host_blocked_ns, 5100 - 150);  // the first sync only: 100 + 50 -> 5100
}

// --- 6. errors ---

TEST(ProgramExecutor, TraceWithoutAProgramIsAnInputError) {
  TraceMeta meta;
  meta.source = "v1";
  try {
    run_program(meta, {}, hardware(), ExecutorOptions{});
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("no program"), std::string::npos) << e.what();
  }
  meta.program = std::make_shared<const Program>();  // present but empty
  EXPECT_THROW(run_program(meta, {}, hardware(), ExecutorOptions{}), InputError);
}

TEST(ProgramExecutor, OpBeyondTheAccessRecordsIsAnInputError) {
  ProgramOp c = copy(0, 100, 0, CopyDirection::h2d, 64000, HostMemory::pinned);
  c.first_access = 1;  // only record 0 exists
  c.access_count = 1;
  const TraceMeta meta = meta_of(program({c}, 1, 1));
  std::vector<AccessRecord> records(1);
  records[0].block_id = 7;
  records[0].bytes = 64000;
  try {
    run_program(meta, records, hardware(), ExecutorOptions{});
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("access records"), std::string::npos) << e.what();
  }
}

// --- end time ---

// end_ns is when the last thread finished: a final call's host cost counts.
TEST(ProgramExecutor, EndIncludesTheLastCallsHostCost) {
  std::vector<ProgramOp> ops;
  ops.push_back(step(0));
  ops.push_back(op(ProgramOpKind::host, 100, 1100));
  const TraceMeta meta = meta_of(program(std::move(ops), 1, 0));
  const ProgramPrediction r = run_program(meta, {}, hardware(), recorded_time());
  EXPECT_EQ(r.end_ns, 1100);  // gap 100 + host call 1000
}

// --- 7. CopyCurve ---

TEST(ProgramExecutor, CopyCurveInterpolatesAndExtendsItsEndSegments) {
  const CopyCurve c = make_copy_curve({{1000, 2000}, {101000, 12000}, {201000, 17000}}, "curve");
  // Segments: 0.1 ns/B from (1000, 2000), 0.05 ns/B from (101000, 12000).
  EXPECT_EQ(c.time_ns(0), 0);
  EXPECT_EQ(c.time_ns(1000), 2000);
  EXPECT_EQ(c.time_ns(51000), 7000);     // 2000 + 0.1 * 50000
  EXPECT_EQ(c.time_ns(151000), 14500);   // 12000 + 0.05 * 50000
  EXPECT_EQ(c.time_ns(401000), 27000);   // beyond the last: 17000 + 0.05 * 200000
  EXPECT_EQ(c.time_ns(500), 1950);       // below the first: 2000 - 0.1 * 500
  EXPECT_EQ(c.time_ns(1), 1900);         // 2000 - 0.1 * 999 = 1900.1 -> 1900

  // Extending a steep first segment below its start never goes negative.
  const CopyCurve steep = make_copy_curve({{1000, 100}, {2000, 1100}}, "steep");
  EXPECT_EQ(steep.time_ns(50), 0);  // 100 + 1.0 * (50 - 1000) = -850 -> 0
  // One point (built by hand: make_copy_curve wants two): proportional.
  CopyCurve one;
  one.points = {{1000, 2000}};
  EXPECT_EQ(one.time_ns(1500), 3000);  // 2000 * 1500 / 1000
  EXPECT_TRUE(CopyCurve{}.empty());
  EXPECT_EQ(CopyCurve{}.time_ns(1000), 0);

  EXPECT_THROW(make_copy_curve({{1000, 2000}, {1000, 3000}}, "dup"), InputError);
  EXPECT_THROW(make_copy_curve({{0, 2000}, {1000, 3000}}, "zero"), InputError);
  EXPECT_THROW(make_copy_curve({{1000, 2000}}, "one point"), InputError);
  EXPECT_THROW(make_copy_curve({{1000, 2000}, {2000, 1000}}, "falling"), InputError);
  EXPECT_THROW(make_copy_curve({{256.5, 2000}, {2000, 3000}}, "fractional bytes"), InputError);
  EXPECT_THROW(make_copy_curve({{256, 1e30}, {2000, 3e30}}, "huge"), InputError);
}


// --- the prefetch what-if (sim/engine/program/program_prefetch.h) ---

namespace prefetch_case {

// step; H2D A (16 MB pinned, async) at 100..200; kernel 1 ms at 300..400;
// H2D B at 500..600; kernel at 700..800; stream sync 900..950; step at 1000.
// All on stream 0. Copies take 1000 + 16e6 B / 16 GB/s = 1,001,000 ns.
Program serial() {
  return program({step(0), copy(100, 200, 0, CopyDirection::h2d, 16'000'000, HostMemory::pinned),
                  kernel(300, 400, 0, 1'000'000), copy(500, 600, 0, CopyDirection::h2d, 16'000'000, HostMemory::pinned),
                  kernel(700, 800, 0, 1'000'000), op(ProgramOpKind::stream_sync, 900, 950, 0), step(1000)},
                 1, 1);
}

}  // namespace prefetch_case

TEST(ProgramPrefetch, CopiesMoveToACopyStreamAndTheStepShrinksByHand) {
  const Program p = prefetch_case::serial();
  ExecutorOptions o;  // calibrated host time with zero API costs: only the recorded gaps (100, 50) count
  const ProgramPrediction before = run_program(meta_of(p), {}, hardware(), o);
  // A 100..1,001,100; k1 ..2,001,100; B ..3,002,100; k2 ..4,002,100; sync at
  // 500 returns then, + 50 gap = 4,002,150.
  EXPECT_EQ(before.step_durations(0), (std::vector<Nanoseconds>{4'002'150}));

  const Program q = with_prefetch(p, 1);
  EXPECT_EQ(check_program(q, 0), "");
  ASSERT_EQ(q.ops.size(), 11u);  // + 2 event records + 2 stream waits
  EXPECT_EQ(q.stream_count, 2u);
  EXPECT_EQ(q.event_count, 2u);
  EXPECT_EQ(q.ops[1].kind, ProgramOpKind::copy);
  EXPECT_EQ(q.ops[1].stream, 1u);
  EXPECT_EQ(q.ops[3].kind, ProgramOpKind::copy);  // B issued at A's place
  EXPECT_EQ(q.ops[3].host_start_ns, 100);
  const ProgramPrediction after = run_program(meta_of(q), {}, hardware(), o);
  // A 100..1,001,100 and B behind it on the copy engine ..2,002,100; k1 waits
  // for A: 1,001,100..2,001,100; k2 waits for B: 2,002,100..3,002,100; + 50.
  EXPECT_EQ(after.step_durations(0), (std::vector<Nanoseconds>{3'002'150}));
  // Distance 0 gives the same here: B no longer queues behind k1 on stream 0.
  EXPECT_EQ(run_program(meta_of(with_prefetch(p, 0)), {}, hardware(), o).step_durations(0),
            (std::vector<Nanoseconds>{3'002'150}));
  EXPECT_THROW(with_prefetch(p, 5000), InputError);
}

}  // namespace
}  // namespace flashsim
