// libCacheSim oracleGeneral importer: field mapping, next-access vtime,
// truncation, and the facts of the shared cloudPhysics sample.
#include <cstring>
#include <fstream>

#include "sim/core/errors.h"
#include "tests/support/shared_data.h"
#include "tests/support/temp_dir.h"
#include "tests/traces/trace_test_util.h"
#include "traces/hdf5_trace.h"
#include "traces/importers/oracle_general.h"
#include "traces/next_use.h"
#include "traces/trace_formats.h"

namespace flashsim {
namespace {

using test::TempDir;

struct Raw {
  std::uint32_t time;
  std::uint64_t id;
  std::uint32_t size;
  std::int64_t next;
};

void write_oracle(const std::filesystem::path& p, const std::vector<Raw>& rows, std::size_t extra_bytes = 0) {
  std::ofstream out(p, std::ios::binary);
  for (const Raw& r : rows) {
    unsigned char b[24];
    std::memcpy(b, &r.time, 4);
    std::memcpy(b + 4, &r.id, 8);
    std::memcpy(b + 12, &r.size, 4);
    std::memcpy(b + 16, &r.next, 8);
    out.write(reinterpret_cast<const char*>(b), 24);
  }
  for (std::size_t i = 0; i < extra_bytes; ++i) out.put('\0');
}

TEST(OracleGeneral, MapsFieldsAndOneBasedNextAccessVtime) {
  TempDir dir;
  // Requests: A B A C B; vtimes 1..5. A's next after request 0 is request 2 (vtime 3).
  write_oracle(dir / "t.oracleGeneral.bin",
               {{10, 0xA, 100, 3}, {10, 0xB, 200, 5}, {11, 0xA, 100, -1}, {12, 0xC, 300, -1}, {12, 0xB, 200, -1}});
  auto src = open_trace(dir / "t.oracleGeneral.bin");
  EXPECT_TRUE(src->meta().has_next_use);
  EXPECT_EQ(src->meta().record_count, 5u);
  const auto r = test::read_all(*src, 2);
  ASSERT_EQ(r.size(), 5u);
  EXPECT_EQ(r[0].time_ns, 10'000'000'000);
  EXPECT_EQ(r[3].time_ns, 12'000'000'000);
  EXPECT_EQ(r[1].block_id, 0xBu);
  EXPECT_EQ(r[3].bytes, 300u);
  EXPECT_EQ(r[0].next_use_index, 2u);
  EXPECT_EQ(r[1].next_use_index, 4u);
  EXPECT_EQ(r[2].next_use_index, kNeverAccessedAgain);
  EXPECT_EQ(r[0].op, AccessOp::read);
  // And it agrees with our own next-use computation.
  const auto mine = next_use_in_memory(*src);
  for (std::size_t i = 0; i < r.size(); ++i) EXPECT_EQ(mine[i], r[i].next_use_index) << i;
}

TEST(OracleGeneral, TruncatedFileNamesTheIncompleteRecord) {
  TempDir dir;
  const auto p = dir / "cut.oracleGeneral.bin";
  write_oracle(p, {{1, 1, 1, -1}, {1, 2, 1, -1}, {1, 3, 1, -1}}, 10);
  EXPECT_INPUT_ERROR(open_trace(p), p.string(), "truncated", "82 bytes is not a multiple of 24", "record 3",
                     "10 of 24 bytes");
}

TEST(OracleGeneral, TruncatedImportLeavesNoOutput) {
  TempDir dir;
  write_oracle(dir / "cut.oracleGeneral", {{1, 1, 1, -1}}, 5);
  EXPECT_THROW(open_trace(dir / "cut.oracleGeneral"), InputError);
  EXPECT_EQ(test::listing(dir.path()), std::set<std::string>{"cut.oracleGeneral"});
}

TEST(OracleGeneral, NextVtimeNotAfterItsRequestIsAnError) {
  TempDir dir;
  write_oracle(dir / "n.oracleGeneral", {{1, 1, 1, 3}, {1, 2, 1, 2}, {1, 1, 1, -1}});
  auto src = open_trace(dir / "n.oracleGeneral");
  EXPECT_INPUT_ERROR(test::read_all(*src), "record 1", "next_access_vtime 2 is not after this request");
}

TEST(OracleGeneral, ZeroSizeIsAnError) {
  TempDir dir;
  write_oracle(dir / "z.oracleGeneral", {{1, 1, 1, -1}, {1, 2, 0, -1}});
  auto src = open_trace(dir / "z.oracleGeneral");
  EXPECT_INPUT_ERROR(test::read_all(*src), "record 1", "bytes == 0");
}

TEST(OracleGeneral, RoundTripsThroughHdf5) {
  TempDir dir;
  write_oracle(dir / "t.oracleGeneral.bin", {{1, 5, 10, 3}, {2, 6, 20, -1}, {3, 5, 10, -1}});
  auto src = open_trace(dir / "t.oracleGeneral.bin");
  const auto direct = test::read_all(*src);
  {
    auto sink = create_trace_sink(dir / "t.h5", src->meta());
    copy_trace(*src, *sink);
  }
  Hdf5TraceSource h(dir / "t.h5");
  EXPECT_TRUE(h.meta().has_next_use);
  test::expect_same_records(direct, test::read_all(h));
}

TEST(OracleGeneral, CloudPhysicsSampleFactsAndNextUse) {
  FLASHSIM_REQUIRE_SHARED(bin, "traces/libcachesim/cloudPhysicsIO.oracleGeneral.bin");
  auto src = open_trace(bin);
  const auto records = test::read_all(*src, 5000);
  EXPECT_EQ(records.size(), 113872u);
  std::set<BlockId> unique;
  for (const auto& r : records) unique.insert(r.block_id);
  EXPECT_EQ(unique.size(), 48974u);
  // libCacheSim's next_access_vtime − 1 is exactly our next-use index, for every request.
  const auto mine = next_use_in_memory(*src);
  ASSERT_EQ(mine.size(), records.size());
  std::size_t never = 0;
  for (std::size_t i = 0; i < records.size(); ++i) {
    ASSERT_EQ(mine[i], records[i].next_use_index) << "record " << i;
    never += mine[i] == kNeverAccessedAgain;
  }
  EXPECT_EQ(never, 48974u);  // each block's last request
}

}  // namespace
}  // namespace flashsim
