// The capture's host facts (traces/importers/capture_host_facts.h): curve
// fits computed by hand, the probe's costs from synthetic loops, the
// residency of a D2H copy through conversion, and schema 3 in HDF5.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <fstream>

#include "sim/core/errors.h"
#include "tests/support/temp_dir.h"
#include "traces/hdf5_io.h"
#include "traces/hdf5_trace.h"
#include "traces/importers/capture_host_facts.h"
#include "traces/importers/cupti_capture.h"
#include "traces/importers/cupti_program.h"
#include "traces/trace_formats.h"

namespace flashsim::capture {
namespace {

TEST(CaptureHostFacts, CurveIsTheMedianPerSizeMadeMonotoneByPooling) {
  // 4 KiB: 10, 12, 50 -> 12; 8 KiB: 30, 10 -> 20; 16 KiB: 8 -> 8 (a violator).
  // Pooling 20 (2 copies) and 8 (1 copy): (40 + 8) / 3 = 16 for both.
  const auto c = fit_copy_time_curve({{4096, 10}, {4096, 12}, {4096, 50}, {8192, 30}, {8192, 10}, {16384, 8}, {0, 5}});
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c[0].bytes, 4096u);
  EXPECT_EQ(c[0].ns, 12);
  EXPECT_EQ(c[0].copies, 3u);
  EXPECT_EQ(c[1].ns, 16);
  EXPECT_EQ(c[2].ns, 16);
  EXPECT_EQ(c[2].copies, 1u);
  EXPECT_TRUE(fit_copy_time_curve({{4096, 10}, {4096, 12}}).empty());  // fewer than 3 copies
}

TEST(CaptureHostFacts, ManySizesAreBinnedByQuarterOctaves) {
  std::vector<std::pair<ByteCount, Nanoseconds>> s;
  for (ByteCount b = 1000; b < 1000 + 100; ++b) s.emplace_back(b, static_cast<Nanoseconds>(b));  // 100 sizes
  const auto c = fit_copy_time_curve(s);
  // 1000..1099 spans log2 9.97..10.10: 4*log2 in [39.86, 40.41] -> bins 39 and 40.
  // Bin 39: 1000..1023 (24 sizes), median 1011; bin 40: 1024..1099 (76), lower median 1061.
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0].bytes, 1011u);
  EXPECT_EQ(c[0].copies, 24u);
  EXPECT_EQ(c[1].bytes, 1061u);
  EXPECT_EQ(c[1].copies, 76u);
}

RawApi api(std::uint32_t corr, std::uint32_t cbid, std::uint64_t start, std::uint64_t end) {
  return RawApi{corr, ApiDomain::runtime, cbid, start, end, 1};
}

TEST(CaptureHostFacts, ProbeCostsAreMediansOfTheLoops) {
  // A launch loop of 20 calls, each 1000 ns, gaps 300 ns (one 900 outlier);
  // then 20 cudaGetDevice calls of 100 ns with gaps of 200 ns.
  RawCapture c;
  c.api_names = {{ApiDomain::runtime, 211, "cudaLaunchKernel_v7000"}, {ApiDomain::runtime, 5, "cudaGetDevice_v3020"}};
  std::uint64_t t = 1000;
  for (std::uint32_t i = 0; i < 20; ++i) {
    c.apis.push_back(api(i + 1, 211, t, t + 1000));
    t += 1000 + (i == 7 ? 900 : 300);
  }
  for (std::uint32_t i = 0; i < 20; ++i) {
    c.apis.push_back(api(100 + i, 5, t, t + 100));
    t += 300;
  }
  ProbeTiming plain{{{"launch", 2000}, {"host_call", 50}, {"event_record", 300}}};
  ProbeTiming plain2{{{"launch", 2200}, {"host_call", 70}, {"event_record", 300}}};
  ProbeTiming captured{{{"launch", 3300}, {"host_call", 300}, {"event_record", 700}}};
  const auto costs = probe_call_costs({plain, plain2}, {captured}, {c});
  ASSERT_EQ(costs.size(), 2u);  // event_record: no loop in the raw records
  EXPECT_EQ(costs[0].call, "launch");
  EXPECT_EQ(costs[0].plain_ns, 2100);
  EXPECT_EQ(costs[0].captured_ns, 3300);
  EXPECT_EQ(costs[0].recorded_gap_ns, 300);
  EXPECT_EQ(costs[1].call, "host_call");
  EXPECT_EQ(costs[1].recorded_gap_ns, 200);
  CaptureHost h;
  h.call_costs = costs;
  EXPECT_EQ(h.gap_ns("launch"), 300);
  EXPECT_EQ(h.gap_ns("stream_sync"), 250);  // not measured: the median of the measured
  EXPECT_EQ(h.inside_ns("launch"), 3300 - 2100 - 300);
  EXPECT_EQ(h.inside_ns("host_call"), 300 - 60 - 200);
  EXPECT_EQ(h.inside_ns("stream_sync"), 0);
}

TEST(CaptureHostFacts, ProbeFilesAreReadAndBadOnesNamed) {
  test::TempDir dir;
  std::filesystem::create_directories(dir / "probe");
  { std::ofstream(dir / "probe" / "plain-before.txt") << "flashsim-capture-probe 1\nlaunch 2000.5 2000\n"; }
  const ProbeTiming t = read_probe_timing(dir / "probe" / "plain-before.txt");
  ASSERT_EQ(t.ns_per_call.size(), 1u);
  EXPECT_DOUBLE_EQ(t.ns_per_call[0].second, 2000.5);
  std::vector<std::string> warnings;
  EXPECT_TRUE(read_probe_dir(dir / "nowhere", warnings).empty());
  EXPECT_TRUE(warnings.empty());  // no probe folder: nothing to say
  // No captured run, no raw records: nothing measured, and both said.
  EXPECT_TRUE(read_probe_dir(dir / "probe", warnings).empty());
  ASSERT_EQ(warnings.size(), 2u);
  EXPECT_NE(warnings[0].find("no readable captured-*.txt"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[1].find("no readable raw/*.raw"), std::string::npos) << warnings[1];
  // A damaged timing file is skipped and named, not fatal to the import.
  { std::ofstream(dir / "probe" / "captured-before.txt") << "flashsim-capture-probe 1\nlaunch 10 -5\n"; }
  warnings.clear();
  read_probe_dir(dir / "probe", warnings);
  ASSERT_EQ(warnings.size(), 3u);
  EXPECT_NE(warnings[0].find("captured-before.txt:2: expected"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[0].find("(skipped)"), std::string::npos) << warnings[0];
  auto refused = [&](const std::string& name, const std::string& text, const std::string& what) {
    { std::ofstream(dir / name) << text; }
    try {
      read_probe_timing(dir / name);
      ADD_FAILURE() << name;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(name + ":" + what), std::string::npos) << e.what();
    }
  };
  const std::string head = "flashsim-capture-probe 1\n";
  refused("bad.txt", head + "launch -3 10\n", "2: expected 'CALL NS_PER_CALL CALLS'");
  refused("negative_calls.txt", head + "launch 3 -10\n", "2: expected");  // would wrap as unsigned
  refused("trailing.txt", head + "launch 3 10 extra\n", "2: expected");
  refused("unit.txt", head + "launch 3ns 10\n", "2: expected");
  refused("unknown.txt", head + "teleport 3 10\n", "2: expected");
  refused("twice.txt", head + "launch 3 10\nlaunch 4 10\n", "3: probe call 'launch' a second time");
  refused("bad2.txt", "something else\n", "1: not a capture probe timing file");
}

// One process: a pageable D2H cudaMemcpy of 8 KiB whose destination was 1/4
// resident, then the repeat and step marks around it.
RawCapture one_d2h(bool checked) {
  RawCapture c;
  c.pid = 1;
  RawCopy copy;
  copy.correlation_id = 2;
  copy.runtime_correlation_id = 1;
  copy.copy_kind = CopyKind::dtoh;
  copy.src_kind = MemoryKind::device;
  copy.dst_kind = MemoryKind::pageable;
  copy.bytes = 8192;
  copy.start_ns = 1100;
  copy.end_ns = 5100;
  c.copies.push_back(copy);
  RawApiCall a;
  a.correlation_id = 1;
  a.cbid = 31;
  a.dst = 0x7f0000000000;
  a.src = 0x300000000;
  a.bytes = 8192;
  a.host_ns = 1000;
  a.host_checked = checked;
  a.host_resident_bytes = checked ? 2048 : 0;
  c.api_calls.push_back(a);
  c.apis.push_back(RawApi{1, ApiDomain::runtime, 31, 1000, 6000, 9});
  c.api_names.push_back({ApiDomain::runtime, 31, "cudaMemcpy_v3020"});
  c.markers.push_back(RawMarker{kMarkerInstantaneous, 900, 9, "flashsim.repeat"});
  c.markers.push_back(RawMarker{kMarkerInstantaneous, 950, 9, "flashsim.step"});
  c.markers.push_back(RawMarker{kMarkerInstantaneous, 7000, 9, "flashsim.end"});
  return c;
}

TEST(CaptureHostFacts, ResidencyAndRepeatMarksReachTheProgramAndSchema3) {
  for (const bool checked : {true, false}) {
    SCOPED_TRACE(checked);
    const std::vector<RawCapture> raw = {one_d2h(checked)};
    ConvertedCapture conv = convert_capture(raw, ConvertOptions{}, "test");
    attach_program(conv, raw, ProgramOptions{}, "test");
    ASSERT_TRUE(conv.meta.program);
    const Program& p = *conv.meta.program;
    const ProgramOp* copy = nullptr;
    for (const ProgramOp& op : p.ops) {
      if (op.kind == ProgramOpKind::copy) copy = &op;
    }
    ASSERT_NE(copy, nullptr);
    EXPECT_EQ(p.host.residency_recorded, checked);
    EXPECT_EQ(copy->host_fresh_bytes, checked ? 6144u : 0u);  // 8192 - 2048 resident
    ASSERT_EQ(p.repeat_marks_ns.size(), 1u);
    EXPECT_EQ(p.repeat_marks_ns[0], 0);  // the origin: the first mark
    EXPECT_EQ(conv.meta.schema_version, 3);  // repeat marks are v3

    test::TempDir dir;
    {
      auto sink = create_trace_sink(dir / "t.h5", conv.meta);
      sink->write(conv.records);
      sink->finish();
    }
    auto back = open_trace(dir / "t.h5");
    const TraceMeta m = back->meta();
    EXPECT_EQ(m.schema_version, 3);
    ASSERT_TRUE(m.program);
    EXPECT_EQ(m.program->repeat_marks_ns, p.repeat_marks_ns);
    EXPECT_EQ(m.program->host.residency_recorded, checked);
    for (std::size_t i = 0; i < p.ops.size(); ++i) EXPECT_EQ(m.program->ops[i].host_fresh_bytes, p.ops[i].host_fresh_bytes);
  }
}

TEST(CaptureHostFacts, CurvesAndCallCostsRoundTripThroughHdf5) {
  const std::vector<RawCapture> raw = {one_d2h(true)};
  ConvertedCapture conv = convert_capture(raw, ConvertOptions{}, "test");
  attach_program(conv, raw, ProgramOptions{}, "test");
  Program p = *conv.meta.program;
  p.host.pageable_h2d = {{4096, 3000, 5}, {1 << 20, 90000, 2}};
  p.host.call_costs = {{"launch", 2100, 3300, 300}, {"host_call", 60, 300, 200}};
  conv.meta.program = std::make_shared<const Program>(p);
  test::TempDir dir;
  {
    auto sink = create_trace_sink(dir / "t.h5", conv.meta);
    sink->write(conv.records);
    sink->finish();
  }
  const TraceMeta m = open_trace(dir / "t.h5")->meta();
  ASSERT_EQ(m.program->host.pageable_h2d.size(), 2u);
  EXPECT_EQ(m.program->host.pageable_h2d[1].bytes, 1u << 20);
  EXPECT_EQ(m.program->host.pageable_h2d[1].ns, 90000);
  EXPECT_EQ(m.program->host.pageable_h2d[1].copies, 2u);
  ASSERT_EQ(m.program->host.call_costs.size(), 2u);
  EXPECT_EQ(m.program->host.call_costs[1].call, "host_call");
  EXPECT_EQ(m.program->host.call_costs[1].captured_ns, 300);
  EXPECT_EQ(m.program->host.call_costs[0].recorded_gap_ns, 300);
}

// Damaged facts are refused on reading, naming the dataset (helper-2's bank:
// they gave negative copy times, an overflowed median gap, or were ignored).
TEST(CaptureHostFacts, ImplausibleFactsAreRefusedNamingTheDataset) {
  const std::vector<RawCapture> raw = {one_d2h(true)};
  ConvertedCapture conv = convert_capture(raw, ConvertOptions{}, "test");
  attach_program(conv, raw, ProgramOptions{}, "test");
  const Program good = *conv.meta.program;
  auto refused = [&](Program p, const std::string& needle) {
    conv.meta.program = std::make_shared<const Program>(p);
    test::TempDir dir;
    {
      auto sink = create_trace_sink(dir / "t.h5", conv.meta);
      sink->write(conv.records);
      sink->finish();
    }
    try {
      open_trace(dir / "t.h5");
      ADD_FAILURE() << needle;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  Program p = good;
  p.host.pageable_h2d = {{4096, 1'000'000'000}, {1 << 20, 10}};
  p.host.pageable_h2d[0].copies = p.host.pageable_h2d[1].copies = 1;
  refused(p, "pageable_h2d[1]: the time falls as the size grows");
  p = good;
  p.host.pageable_h2d = {{1, 1, 1}, {2, 1'000'000'000'000'000, 1}};
  refused(p, "pageable_h2d[1]: needs bytes >= 1, a time in (0, 1e15) ns");
  p = good;
  p.host.call_costs = {{"launch", 1, std::int64_t{1} << 62, 1}};
  refused(p, "call_cost_*[0]: a time of 1000 s or more");
  p = good;
  p.host.call_costs = {{"bogus", 1, 2, 1}};
  refused(p, "call_cost_call[0] 'bogus' is not a probe call");
  p = good;
  for (ProgramOp& op : p.ops) op.host_fresh_bytes = op.bytes + 1;
  refused(p, "exceeds its bytes");
}

// A file that says schema 2 but holds schema-3 data is refused, not read
// as 2 with the facts dropped (helper-2's bank: it was silently accepted).
TEST(CaptureHostFacts, SchemaTwoFileWithSchemaThreeDataIsRefused) {
  const std::vector<RawCapture> raw = {one_d2h(true)};
  ConvertedCapture conv = convert_capture(raw, ConvertOptions{}, "test");
  attach_program(conv, raw, ProgramOptions{}, "test");
  ASSERT_EQ(conv.meta.program->schema_version(), 3);
  test::TempDir dir;
  {
    auto sink = create_trace_sink(dir / "t.h5", conv.meta);
    sink->write(conv.records);
    sink->finish();
  }
  {
    h5::Handle f(H5Fopen((dir / "t.h5").c_str(), H5F_ACC_RDWR, H5P_DEFAULT), H5Fclose);
    H5Adelete(f.get(), "schema_version");
    h5::write_attr_int(f.get(), "schema_version", H5T_STD_I32LE, 2);
  }
  try {
    open_trace(dir / "t.h5");
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("holds schema-3 data (host, repeat_marks_ns, host_fresh_bytes)"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace flashsim::capture
