// `flashsim trace import | convert | stats | next-use`, run as a program:
// exit codes, printed facts, and no output file left behind on errors.
#include <cstdio>
#include <cstdlib>

#include "tests/support/shared_data.h"
#include "tests/support/temp_dir.h"
#include "tests/traces/trace_test_util.h"
#include "traces/hdf5_trace.h"

namespace flashsim {
namespace {

using test::TempDir;

struct CliRun {
  int exit_code = -1;
  std::string output;  // stdout and stderr
};

CliRun flashsim(const std::string& args) {
  CliRun r;
  const std::string command = std::string(FLASHSIM_BINARY) + " " + args + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return r;
  char buf[4096];
  while (std::size_t n = std::fread(buf, 1, sizeof(buf), pipe)) r.output.append(buf, n);
  const int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

std::string q(const std::filesystem::path& p) { return "'" + p.string() + "'"; }

TEST(TraceCli, ImportConvertStatsRoundTrip) {
  TempDir dir;
  test::write_text_file(dir / "in.csv", "ts_us,lbn,size,rw\n0.5,1,100,r\n1,2,200,w\n2,1,100,r\n3,3,50,r\n");
  const CliRun imp = flashsim("trace import csv " + q(dir / "in.csv") + " " + q(dir / "a.h5") +
                           " --map time=ts_us --map op=rw --time-unit us");
  ASSERT_EQ(imp.exit_code, 0) << imp.output;
  EXPECT_NE(imp.output.find("wrote 4 records"), std::string::npos) << imp.output;
  {
    Hdf5TraceSource a(dir / "a.h5");
    const auto r = test::read_all(a);
    ASSERT_EQ(r.size(), 4u);
    EXPECT_EQ(r[0].time_ns, 500);
    EXPECT_EQ(r[1].op, AccessOp::write);
  }
  const CliRun conv = flashsim("trace convert " + q(dir / "a.h5") + " " + q(dir / "b.csv"));
  ASSERT_EQ(conv.exit_code, 0) << conv.output;
  const CliRun back = flashsim("trace convert " + q(dir / "b.csv") + " " + q(dir / "c.h5") + " --next-use");
  ASSERT_EQ(back.exit_code, 0) << back.output;
  {
    Hdf5TraceSource a(dir / "a.h5"), c(dir / "c.h5");
    EXPECT_TRUE(c.meta().has_next_use);
    auto ra = test::read_all(a);
    const auto rc = test::read_all(c);
    ASSERT_EQ(rc.size(), 4u);
    EXPECT_EQ(rc[0].next_use_index, 2u);
    for (auto& r : ra) r.next_use_index = kNeverAccessedAgain;
    auto rc_plain = rc;
    for (auto& r : rc_plain) r.next_use_index = kNeverAccessedAgain;
    test::expect_same_records(ra, rc_plain);
  }
  const CliRun stats = flashsim("trace stats " + q(dir / "c.h5") + " --capacity-blocks 1,2,3 --capacity-bytes 250,450");
  ASSERT_EQ(stats.exit_code, 0) << stats.output;
  for (const char* part : {"records          4", "unique blocks    3", "footprint        350 B", "time span        2500 ns",
                           "capacity in blocks", "capacity in bytes"}) {
    EXPECT_NE(stats.output.find(part), std::string::npos) << part << "\n" << stats.output;
  }
  const CliRun json = flashsim("trace stats " + q(dir / "in.csv") + " -m time=ts_us -m op=rw --time-unit us --json");
  ASSERT_EQ(json.exit_code, 0) << json.output;
  EXPECT_NE(json.output.find("\"records\": 4"), std::string::npos) << json.output;
  EXPECT_NE(json.output.find("\"time_span_ns\": 2500"), std::string::npos) << json.output;
}

TEST(TraceCli, BadInputsExitWithTwoAndLeaveNothing) {
  TempDir dir;
  test::write_text_file(dir / "bad.csv", "time,lbn,size\n1,2,3\n2,x,4\n");
  const CliRun cell = flashsim("trace import csv " + q(dir / "bad.csv") + " " + q(dir / "out.h5"));
  EXPECT_EQ(cell.exit_code, 2) << cell.output;
  EXPECT_NE(cell.output.find("bad.csv:3: column 'lbn' (field block_id): 'x'"), std::string::npos) << cell.output;
  const CliRun column = flashsim("trace import csv " + q(dir / "bad.csv") + " " + q(dir / "out.h5") + " --map bytes=len");
  EXPECT_EQ(column.exit_code, 2);
  EXPECT_NE(column.output.find("column 'len' (field bytes) is not in the header"), std::string::npos) << column.output;
  const CliRun format = flashsim("trace import parquet " + q(dir / "bad.csv") + " " + q(dir / "out.h5"));
  EXPECT_EQ(format.exit_code, 2);
  EXPECT_NE(format.output.find("unknown name 'parquet'"), std::string::npos) << format.output;
  const CliRun action = flashsim("trace frobnicate");
  EXPECT_EQ(action.exit_code, 2);
  EXPECT_EQ(test::listing(dir.path()), std::set<std::string>{"bad.csv"});
}

TEST(TraceCli, LibCacheSimSampleStats) {
  FLASHSIM_REQUIRE_SHARED(bin, "traces/libcachesim/cloudPhysicsIO.oracleGeneral.bin");
  const CliRun r = flashsim("trace stats " + q(bin) + " --mrc-points 4");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("records          113872"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("unique blocks    48974"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace flashsim
