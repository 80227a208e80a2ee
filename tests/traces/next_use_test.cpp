// Next use: a hand-worked case, and out of core equal to in memory.
#include "sim/core/errors.h"
#include "tests/support/temp_dir.h"
#include "tests/traces/trace_test_util.h"
#include "traces/hdf5_trace.h"
#include "traces/next_use.h"

namespace flashsim {
namespace {

using test::TempDir;

std::vector<AccessRecord> trace_of(const std::vector<BlockId>& ids) {
  std::vector<AccessRecord> v(ids.size());
  for (std::size_t i = 0; i < ids.size(); ++i) {
    v[i].time_ns = static_cast<Nanoseconds>(i);
    v[i].block_id = ids[i];
    v[i].bytes = 1;
  }
  return v;
}

TEST(NextUse, HandWorked) {
  //                      0  1  2  3  4  5  6
  MemoryTraceSource src({}, trace_of({1, 2, 1, 3, 2, 1, 4}));
  const auto next = next_use_in_memory(src);
  const std::uint64_t N = kNeverAccessedAgain;
  EXPECT_EQ(next, (std::vector<std::uint64_t>{2, 4, 5, N, N, N, N}));
}

void write_h5(const std::filesystem::path& p, const std::vector<AccessRecord>& records, TraceMeta meta = {}) {
  Hdf5WriteOptions o;
  o.chunk_records = 1000;
  Hdf5TraceWriter w(p, std::move(meta), o);
  w.write(records);
  w.finish();
}

TEST(NextUse, OutOfCoreEqualsInMemory) {
  TempDir dir;
  const auto records = test::random_trace(20000, 700, 21);
  TraceMeta meta;
  meta.source = "random";
  meta.catalog = {{3, "x", 1, kNoAddress, kNoAddress, -1, "weight"}};
  write_h5(dir / "in.h5", records, meta);
  MemoryTraceSource mem({}, records);
  const auto expected = next_use_in_memory(mem);
  for (std::size_t window : {1u, 7u, 999u, 1000u, 4096u, 1u << 20}) {
    SCOPED_TRACE("window " + std::to_string(window));
    add_next_use(dir / "in.h5", dir / "out.h5", {}, window);
    EXPECT_EQ(test::listing(dir.path()), (std::set<std::string>{"in.h5", "out.h5"}));  // scratch removed
    Hdf5TraceSource out(dir / "out.h5");
    EXPECT_TRUE(out.meta().has_next_use);
    EXPECT_EQ(out.meta().source, "random");
    EXPECT_EQ(out.meta().catalog.size(), 1u);
    const auto back = test::read_all(out, 4096);
    ASSERT_EQ(back.size(), records.size());
    for (std::size_t i = 0; i < back.size(); ++i) {
      ASSERT_EQ(back[i].next_use_index, expected[i]) << "record " << i;
      AccessRecord a = back[i];
      a.next_use_index = records[i].next_use_index;
      ASSERT_TRUE(test::same(a, records[i])) << "record " << i;
    }
    // The in-memory computation on the output agrees too.
    EXPECT_EQ(next_use_in_memory(out), expected);
  }
}

TEST(NextUse, InPlaceReplacesTheFile) {
  TempDir dir;
  write_h5(dir / "t.h5", trace_of({5, 6, 5}));
  add_next_use(dir / "t.h5", dir / "t.h5");
  EXPECT_EQ(test::listing(dir.path()), std::set<std::string>{"t.h5"});
  Hdf5TraceSource t(dir / "t.h5");
  const auto r = test::read_all(t);
  EXPECT_EQ(r[0].next_use_index, 2u);
  EXPECT_EQ(r[1].next_use_index, kNeverAccessedAgain);
}

TEST(NextUse, BadInputLeavesNoOutput) {
  TempDir dir;
  test::write_text_file(dir / "x.h5", "not hdf5");
  EXPECT_THROW(add_next_use(dir / "x.h5", dir / "y.h5"), InputError);
  EXPECT_EQ(test::listing(dir.path()), std::set<std::string>{"x.h5"});
}

}  // namespace
}  // namespace flashsim
