// GPU test (label gpu): captures hw/capture/example/known_sequence.cu through
// the CUPTI injection library and checks the trace against the program's
// known sequence exactly. Skips without a CUDA device.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <fstream>
#include <map>

#include "hw/device_info.h"
#include "tests/support/temp_dir.h"
#include "traces/hdf5_trace.h"
#include "traces/importers/capture_launch.h"
#include "traces/importers/cupti_capture.h"

namespace flashsim::capture {
namespace {

constexpr std::uint64_t kMiB = 1 << 20;

std::filesystem::path bin_dir() { return std::filesystem::path(FLASHSIM_BINARY).parent_path(); }

std::map<std::string, std::uint64_t> read_manifest(const std::filesystem::path& path) {
  std::map<std::string, std::uint64_t> out;
  std::ifstream in(path);
  std::string name, address;
  std::uint64_t bytes = 0;
  while (in >> name >> address >> bytes) out[name] = std::stoull(address, nullptr, 16);
  return out;
}

const Region* region_at(const ConvertedCapture& c, std::uint64_t address) {
  for (const Region& r : c.regions) {
    if (r.begin <= address && address < r.end) return &r;
  }
  return nullptr;
}

class CaptureGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    if (hw::list_devices().empty()) GTEST_SKIP() << "no CUDA device";
    library_ = bin_dir() / kCaptureLibraryName;
    program_ = bin_dir() / "flashsim_known_sequence";
    ASSERT_TRUE(std::filesystem::exists(library_)) << library_;
    ASSERT_TRUE(std::filesystem::exists(program_)) << program_;
    std::filesystem::create_directories(dir_ / "raw");
    const LaunchResult run = run_with_capture({program_.string(), (dir_ / "manifest").string()}, library_, dir_ / "raw");
    ASSERT_TRUE(run.ok()) << run.describe();
    processes_ = read_raw_capture_dir(dir_ / "raw");
    ASSERT_EQ(processes_.size(), 1u);
    m_ = read_manifest(dir_ / "manifest");
    ASSERT_EQ(m_.size(), 5u);
  }
  test::TempDir dir_;
  std::filesystem::path library_, program_;
  std::vector<RawCapture> processes_;
  std::map<std::string, std::uint64_t> m_;
};

TEST_F(CaptureGpu, KnownSequenceHostCopiesExactly) {
  const ConvertedCapture c = convert_capture(processes_, {}, "known_sequence");
  const CaptureReport& r = c.report;
  EXPECT_EQ(r.dropped_by_cupti, 0u);
  EXPECT_EQ(r.unaddressed, 0u);
  EXPECT_EQ(r.h2d, 7u);
  EXPECT_EQ(r.h2d_pinned, 4u);  // 3 from cudaMallocHost, 1 from registered memory
  EXPECT_EQ(r.h2d_pageable, 3u);
  EXPECT_EQ(r.d2h, 1u);
  EXPECT_EQ(r.d2d, 1u);
  EXPECT_EQ(r.memsets, 1u);
  EXPECT_EQ(r.kernels, 6u);
  EXPECT_EQ(r.host_registrations, 1u);
  EXPECT_EQ(r.passes, 3u);

  struct Expected {
    std::uint64_t address;
    ByteCount bytes;
    AccessOp op;
    BlockId block;
    std::int32_t token;
  };
  const std::uint64_t hP = m_["hP"], hQ = m_["hQ"], hR = m_["hR"];
  const Expected expected[] = {
      {hP, 4 * kMiB, AccessOp::read, 0, 0}, {hQ, kMiB, AccessOp::read, 1, 0},
      {hP, 4 * kMiB, AccessOp::read, 0, 1}, {hQ, kMiB, AccessOp::read, 1, 1},
      {hP, 4 * kMiB, AccessOp::read, 0, 2}, {hQ, kMiB, AccessOp::read, 1, 2},
      {hR + kMiB, kMiB / 2, AccessOp::read, 2, 2}, {hQ, kMiB, AccessOp::write, 1, 2},
  };
  ASSERT_EQ(c.records.size(), 8u);
  Nanoseconds previous = 0;
  for (std::size_t i = 0; i < 8; ++i) {
    const AccessRecord& a = c.records[i];
    SCOPED_TRACE("record " + std::to_string(i));
    EXPECT_EQ(a.address, expected[i].address);
    EXPECT_EQ(a.bytes, expected[i].bytes);
    EXPECT_EQ(a.op, expected[i].op);
    EXPECT_EQ(a.block_id, expected[i].block);
    EXPECT_EQ(a.token_index, expected[i].token);
    EXPECT_EQ(a.stream_id, 0u);
    EXPECT_GE(a.time_ns, previous);
    previous = a.time_ns;
    // A kernel follows each of the six pass copies; none follows the last two.
    if (i < 6) {
      EXPECT_GT(a.compute_ns, 0);
    } else {
      EXPECT_EQ(a.compute_ns, 0);
    }
  }
  EXPECT_EQ(c.records[0].time_ns, 0);
  ASSERT_EQ(c.meta.catalog.size(), 3u);
  const Region* pinned = region_at(c, hP);
  ASSERT_NE(pinned, nullptr);
  EXPECT_EQ(pinned->begin, hP);
  EXPECT_EQ(c.meta.catalog[0].name, pinned->name + "+0x0:4194304");
  EXPECT_EQ(c.meta.catalog[0].kind, "host_pinned");
  char pageable[64];
  std::snprintf(pageable, sizeof pageable, "pageable@0x%llx:1048576", static_cast<unsigned long long>(hQ));
  EXPECT_EQ(c.meta.catalog[1].name, pageable);
  EXPECT_EQ(c.meta.catalog[1].kind, "host_pageable");
  EXPECT_EQ(c.meta.catalog[2].name, "registered.0+0x100000:524288");
  EXPECT_EQ(c.meta.catalog[2].kind, "host_pinned");

  int kernels = 0;
  for (const CaptureEvent& e : c.events) {
    if (e.type != CaptureEvent::Type::kernel) continue;
    EXPECT_NE(e.name.find("scale"), std::string::npos) << e.name;
    EXPECT_EQ(e.grid[0], kernels % 2 == 0 ? 8 : 4);
    EXPECT_EQ(e.block[0], kernels % 2 == 0 ? 256 : 128);
    EXPECT_EQ(e.stream, 0u);
    ++kernels;
  }
  EXPECT_EQ(kernels, 6);
}

TEST_F(CaptureGpu, KnownSequenceDeviceSideExactly) {
  ConvertOptions o;
  parse_directions("d2d,memset", o);
  const ConvertedCapture c = convert_capture(processes_, o, "known_sequence");
  const std::uint64_t dA = m_["dA"], dB = m_["dB"];
  ASSERT_EQ(c.records.size(), 2u);
  EXPECT_EQ(c.records[0].op, AccessOp::write);  // memset dB
  EXPECT_EQ(c.records[0].address, dB);
  EXPECT_EQ(c.records[1].op, AccessOp::read);  // D2D from dB
  EXPECT_EQ(c.records[1].address, dB);
  EXPECT_EQ(c.records[0].block_id, c.records[1].block_id);
  const Region* a = region_at(c, dA);
  const Region* b = region_at(c, dB);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(a->begin, dA);
  EXPECT_EQ(a->end, dA + 4 * kMiB);
  EXPECT_EQ(b->begin, dB);
  EXPECT_EQ(c.meta.catalog[0].name, b->name + "+0x0:1048576");
  EXPECT_EQ(c.meta.catalog[0].kind, "device");
  for (const CaptureEvent& e : c.events) {
    if (e.type == CaptureEvent::Type::copy && e.copy_kind == CopyKind::dtod) {
      EXPECT_EQ(e.dst_region, a->name + "+0x100000");
    }
  }
}

TEST(CaptureGpuCli, CommandWritesTheTraceAndPassesOnFailures) {
  if (hw::list_devices().empty()) GTEST_SKIP() << "no CUDA device";
  test::TempDir dir;
  const std::string program = (bin_dir() / "flashsim_known_sequence").string();
  auto run = [](const std::string& args) {
    FILE* pipe = popen((std::string(FLASHSIM_BINARY) + " " + args + " 2>&1").c_str(), "r");
    std::string out;
    char buf[4096];
    while (std::size_t n = std::fread(buf, 1, sizeof buf, pipe)) out.append(buf, n);
    const int status = pclose(pipe);
    return std::make_pair(WIFEXITED(status) ? WEXITSTATUS(status) : -1, out);
  };
  const auto [code, out] =
      run("capture --out " + (dir / "t.h5").string() + " -- " + program + " " + (dir / "manifest").string());
  ASSERT_EQ(code, 0) << out;
  Hdf5TraceSource t(dir / "t.h5");
  EXPECT_EQ(t.meta().record_count, 8u);
  EXPECT_EQ(t.meta().catalog.size(), 3u);
  // Schema 3: the pageable D2H copy's residency was read, and the probe
  // measured its nine loops before and after (plain and captured).
  EXPECT_EQ(t.meta().schema_version, 3);
  ASSERT_TRUE(t.meta().program);
  const CaptureHost& host = t.meta().program->host;
  EXPECT_TRUE(host.residency_recorded);
  for (const ProgramOp& op : t.meta().program->ops) EXPECT_LE(op.host_fresh_bytes, op.bytes);
  EXPECT_EQ(host.call_costs.size(), 9u) << out;
  for (const CaptureCallCost& c : host.call_costs) {
    EXPECT_GT(c.plain_ns, 0) << c.call;
    EXPECT_GT(c.captured_ns, 0) << c.call;
  }
  EXPECT_NE(out.find("capture cost per call measured"), std::string::npos) << out;
  // Without its argument the program exits 2 before touching CUDA.
  const auto [code2, out2] = run("capture --out " + (dir / "u.h5").string() + " -- " + program);
  EXPECT_EQ(code2, 2) << out2;
  EXPECT_NE(out2.find("exited with status 2"), std::string::npos) << out2;
  EXPECT_FALSE(std::filesystem::exists(dir / "u.h5"));
}

}  // namespace
}  // namespace flashsim::capture
