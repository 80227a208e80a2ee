// The raw capture file (traces/importers/cupti_raw.h): round trip, and files
// cut short or corrupt are InputErrors naming file and line.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "sim/core/errors.h"
#include "tests/support/temp_dir.h"
#include "traces/importers/cupti_raw.h"

namespace flashsim::capture {
namespace {

RawCapture sample() {
  RawCapture c;
  c.pid = 4242;
  RawCopy copy;
  copy.correlation_id = 7;
  copy.runtime_correlation_id = 6;
  copy.copy_kind = CopyKind::htod;
  copy.src_kind = MemoryKind::pinned;
  copy.dst_kind = MemoryKind::device;
  copy.bytes = 1 << 20;
  copy.start_ns = 1'700'000'000'123'456'789ull;
  copy.end_ns = copy.start_ns + 25'000;
  copy.device_id = 0;
  copy.context_id = 1;
  copy.stream_id = 13;
  c.copies.push_back(copy);
  RawMemset s;
  s.correlation_id = 8;
  s.memory_kind = MemoryKind::device;
  s.bytes = 4096;
  s.start_ns = 10;
  s.end_ns = 12;
  c.memsets.push_back(s);
  RawKernel k;
  k.correlation_id = 9;
  k.start_ns = 20;
  k.end_ns = 30;
  k.stream_id = 13;
  k.grid[0] = 132;
  k.grid[1] = 2;
  k.grid[2] = 1;
  k.block[0] = 128;
  k.block[1] = 1;
  k.block[2] = 1;
  k.name = "void at::native::vectorized_elementwise_kernel<4, float>(int, float*)";
  c.kernels.push_back(k);
  RawMemory m;
  m.correlation_id = 3;
  m.operation = MemoryOperation::release;
  m.memory_kind = MemoryKind::pinned;
  m.address = 0x7fffdeadbeef;
  m.bytes = 12345;
  m.timestamp_ns = 99;
  c.memory.push_back(m);
  RawApiCall a;
  a.correlation_id = 6;
  a.domain = ApiDomain::runtime;
  a.cbid = 41;
  a.what = ApiWhat::copy;
  a.dst = 0x7f0000000000;
  a.src = 0x200000000;
  a.bytes = 1 << 20;
  a.host_ns = 5;
  a.host_checked = true;
  a.host_resident_bytes = 3 << 18;
  c.api_calls.push_back(a);
  c.links.push_back({7, 6});
  c.host_registers.push_back({true, 0x1000, 8192, 1});
  c.host_registers.push_back({false, 0x1000, 0, 2});
  c.dropped_records = 3;
  c.apis.push_back(RawApi{6, ApiDomain::runtime, 211, 4, 30, 77});
  c.apis.push_back(RawApi{7, ApiDomain::driver, 279, 5, 25, 77});
  c.syncs.push_back(RawSync{SyncType::stream_wait_event, 40, 41, 10, 1, 14, 3});
  c.event_records.push_back(RawEventRecord{11, 1, 13, 3});
  c.markers.push_back(RawMarker{kMarkerInstantaneous, 35, 77, "flashsim.step 1"});
  c.api_names.push_back(RawApiName{ApiDomain::runtime, 211, "cudaMemcpyAsync_v3020"});
  return c;
}

std::string write_to_string(const RawCapture& c, const std::filesystem::path& path) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  EXPECT_TRUE(write_raw_capture(f, c));
  std::fclose(f);
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(CaptureRaw, RoundTripKeepsEveryField) {
  test::TempDir dir;
  const RawCapture c = sample();
  const std::string text = write_to_string(c, dir / "a.raw");
  EXPECT_EQ(text.substr(0, text.find('\n')), "flashsim-capture-raw 3 4242");
  const RawCapture r = read_raw_capture(dir / "a.raw");
  EXPECT_EQ(r.pid, 4242);
  ASSERT_EQ(r.copies.size(), 1u);
  EXPECT_EQ(r.copies[0].start_ns, c.copies[0].start_ns);
  EXPECT_EQ(r.copies[0].runtime_correlation_id, 6u);
  EXPECT_EQ(r.copies[0].src_kind, MemoryKind::pinned);
  EXPECT_EQ(r.copies[0].stream_id, 13u);
  ASSERT_EQ(r.memsets.size(), 1u);
  EXPECT_EQ(r.memsets[0].bytes, 4096u);
  ASSERT_EQ(r.kernels.size(), 1u);
  EXPECT_EQ(r.kernels[0].name, c.kernels[0].name);  // spaces survive: the name ends the line
  EXPECT_EQ(r.kernels[0].grid[0], 132);
  EXPECT_EQ(r.kernels[0].grid[1], 2);
  ASSERT_EQ(r.memory.size(), 1u);
  EXPECT_EQ(r.memory[0].address, 0x7fffdeadbeefu);
  EXPECT_EQ(r.memory[0].operation, MemoryOperation::release);
  ASSERT_EQ(r.api_calls.size(), 1u);
  EXPECT_EQ(r.api_calls[0].src, 0x200000000u);
  EXPECT_EQ(r.api_calls[0].cbid, 41u);
  EXPECT_TRUE(r.api_calls[0].host_checked);
  EXPECT_EQ(r.api_calls[0].host_resident_bytes, 3u << 18);
  ASSERT_EQ(r.links.size(), 1u);
  EXPECT_EQ(r.links[0].driver_correlation_id, 7u);
  ASSERT_EQ(r.host_registers.size(), 2u);
  EXPECT_FALSE(r.host_registers[1].registered);
  EXPECT_EQ(r.dropped_records, 3u);
  ASSERT_EQ(r.apis.size(), 2u);
  EXPECT_EQ(r.apis[1].domain, ApiDomain::driver);
  EXPECT_EQ(r.apis[1].thread, 77u);
  EXPECT_EQ(r.apis[0].end_ns, 30u);
  ASSERT_EQ(r.syncs.size(), 1u);
  EXPECT_EQ(r.syncs[0].type, SyncType::stream_wait_event);
  EXPECT_EQ(r.syncs[0].stream_id, 14u);
  EXPECT_EQ(r.syncs[0].event_id, 3u);
  ASSERT_EQ(r.event_records.size(), 1u);
  EXPECT_EQ(r.event_records[0].stream_id, 13u);
  ASSERT_EQ(r.markers.size(), 1u);
  EXPECT_EQ(r.markers[0].name, "flashsim.step 1");  // spaces survive
  ASSERT_EQ(r.api_names.size(), 1u);
  EXPECT_EQ(r.api_names[0].name, "cudaMemcpyAsync_v3020");
  // Rewriting what was read gives the same bytes.
  EXPECT_EQ(write_to_string(r, dir / "b.raw"), text);
}

void expect_error(const std::filesystem::path& path, const std::string& text, const std::string& needle);

TEST(CaptureRaw, Version1FilesStillReadAndLinksComeFromApiTiming) {
  test::TempDir dir;
  {
    std::ofstream out(dir / "v1.raw");
    out << "flashsim-capture-raw 1 5\nX 6 R 41 copy 0x10 0x20 8 1\nE 0 0 0 0 1 0 0 0\n";
  }
  const RawCapture v1 = read_raw_capture(dir / "v1.raw");
  EXPECT_EQ(v1.api_calls.size(), 1u);
  EXPECT_FALSE(v1.api_calls[0].host_checked);  // before version 3: not measured
  EXPECT_TRUE(v1.apis.empty());
  // A version-1 file must not carry version-2 records.
  expect_error(dir / "x.raw", "flashsim-capture-raw 1 5\nA 6 R 41 1 2 3\nE 0 0 0 0 0 0 0 0\n", "unknown record tag 'A'");

  // The driver call 7 ran inside runtime call 6 on thread 77; driver call 9
  // on another thread did not; driver call 8 started inside 6 but ended after it.
  RawCapture c;
  c.apis.push_back(RawApi{6, ApiDomain::runtime, 1, 100, 200, 77});
  c.apis.push_back(RawApi{7, ApiDomain::driver, 2, 110, 190, 77});
  c.apis.push_back(RawApi{8, ApiDomain::driver, 2, 150, 250, 77});
  c.apis.push_back(RawApi{9, ApiDomain::driver, 2, 120, 130, 78});
  derive_links_from_apis(c);
  ASSERT_EQ(c.links.size(), 1u);
  EXPECT_EQ(c.links[0].driver_correlation_id, 7u);
  EXPECT_EQ(c.links[0].runtime_correlation_id, 6u);
}

void expect_error(const std::filesystem::path& path, const std::string& text, const std::string& needle) {
  {
    std::ofstream out(path, std::ios::binary);
    out << text;
  }
  try {
    read_raw_capture(path);
    ADD_FAILURE() << "no error for:\n" << text;
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(CaptureRaw, CutShortOrCorruptFilesNameTheLine) {
  test::TempDir dir;
  const std::string text = write_to_string(sample(), dir / "a.raw");
  const std::string without_end = text.substr(0, text.rfind("E "));
  expect_error(dir / "x.raw", without_end, "cut short");
  std::string bad_count = text;
  bad_count.replace(bad_count.rfind("E 1"), 3, "E 2");
  expect_error(dir / "x.raw", bad_count, "file cut short");
  expect_error(dir / "x.raw", "flashsim-capture-raw 1 1\nZ 1 2\n", "x.raw:2: unknown record tag 'Z'");
  expect_error(dir / "x.raw", "flashsim-capture-raw 4 1\n", "format version 4");
  expect_error(dir / "x.raw", "flashsim-capture-raw 3 1\nX 1 R 3 copy 0x1 0x2 8 4 2 0\n", "x.raw:2: residency flag 2");
  expect_error(dir / "x.raw", "flashsim-capture-raw 3 1\nX 1 R 3 copy 0x1 0x2 8 4 1 9\n",
               "x.raw:2: resident bytes exceed the call's bytes");
  expect_error(dir / "x.raw", "flashsim-capture-raw 3 1\nX 1 R 3 copy 0x1 0x2 8 4 0 3\n",
               "x.raw:2: resident bytes given for a destination not checked");
  expect_error(dir / "x.raw", "flashsim-capture-raw 3 1\nX 1 R 3 copy 0x1 0x2 8 4 1 0x4\n",
               "x.raw:2: '0x4' is not a decimal whole number");
  // Times beyond 2^62 ns would wrap once the trace adds durations to them.
  expect_error(dir / "x.raw", "flashsim-capture-raw 2 1\nA 1 R 3 10 18446744073709551615 0\n",
               "x.raw:2: timestamp 18446744073709551615 ns is beyond 2^62 ns");
  expect_error(dir / "x.raw", "flashsim-capture-raw 2 1\nN 2 4611686018427387904 0 flashsim.repeat\n",
               "x.raw:2: timestamp 4611686018427387904 ns is beyond 2^62 ns");
  expect_error(dir / "x.raw", "flashsim-capture-raw 2 1\nA 1 R 3 0x10 0x20 0\n", "x.raw:2: '0x10' is not a decimal");
  expect_error(dir / "x.raw", "hello\n", "not a flashsim capture file");
  expect_error(dir / "x.raw", "", "empty file");
  expect_error(dir / "x.raw", "flashsim-capture-raw 1 1\nC 1 2 1 2 3 100 50 10 0 0 0\nE 1 0 0 0 0 0 0 0\n",
               "x.raw:2: copy ends before it starts");
  expect_error(dir / "x.raw", "flashsim-capture-raw 1 1\nC 1 2 11 2 3 100 5 10 0 0 0\n",
               "x.raw:2: value 11 is out of range");
  expect_error(dir / "x.raw", "flashsim-capture-raw 1 1\nX 1 Q 3 copy 0x1 0x2 3 4\n", "API domain 'Q'");
  expect_error(dir / "x.raw", "flashsim-capture-raw 1 1\nL 1 2 3\n", "unexpected text '3'");
  expect_error(dir / "x.raw", "flashsim-capture-raw 1 1\nL 1 -2\n", "'-2' is not a whole number");
}

TEST(CaptureRaw, DirectoryReadsEveryRawFileInNameOrder) {
  test::TempDir dir;
  RawCapture a = sample(), b = sample();
  a.pid = 2;
  b.pid = 1;
  write_to_string(a, dir / "capture-2.raw");
  write_to_string(b, dir / "capture-1.raw");
  { std::ofstream(dir / "capture-3.raw.tmp") << "partial"; }  // a writer's temp: ignored
  const auto all = read_raw_capture_dir(dir.path());
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].pid, 1);
  EXPECT_EQ(all[1].pid, 2);
}

}  // namespace
}  // namespace flashsim::capture
