// CSV importer: column mapping, time units, op values, header detection,
// round trips through the canonical file, and errors that name line and column.
#include "sim/core/errors.h"
#include "tests/support/shared_data.h"
#include "tests/support/temp_dir.h"
#include "tests/traces/trace_test_util.h"
#include "traces/csv_trace_writer.h"
#include "traces/hdf5_trace.h"
#include "traces/importers/csv_importer.h"
#include "traces/importers/oracle_general.h"
#include "traces/stats/trace_stats.h"
#include "traces/trace_formats.h"

namespace flashsim {
namespace {

using test::TempDir;

std::vector<AccessRecord> import_csv(const std::filesystem::path& p, std::map<std::string, std::string> options = {}) {
  auto src = open_trace(p, "csv", options);
  return test::read_all(*src, 7);
}

TEST(CsvImporter, MapsColumnsByNameWithUnitsAndOps) {
  TempDir dir;
  test::write_text_file(dir / "a.csv",
                        "# a comment line\n"
                        "ts,kind,lbn,size\n"
                        "1.5,R,10,4096\n"
                        "\n"
                        "2.0000004,w,11,512\r\n"
                        "\"3\",read,10,4096\n");
  const auto r = import_csv(dir / "a.csv", {{"time", "ts"}, {"op", "kind"}, {"time_unit", "us"}});
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0].time_ns, 1500);
  EXPECT_EQ(r[1].time_ns, 2000);  // 2000.0004 ns rounds to 2000
  EXPECT_EQ(r[2].time_ns, 3000);
  EXPECT_EQ(r[0].block_id, 10u);  // lbn found by alias
  EXPECT_EQ(r[1].bytes, 512u);    // size found by alias
  EXPECT_EQ(r[0].op, AccessOp::read);
  EXPECT_EQ(r[1].op, AccessOp::write);
  EXPECT_EQ(r[2].op, AccessOp::read);
  EXPECT_EQ(r[0].stream_id, 0u);
  EXPECT_EQ(r[0].address, kNoAddress);
}

TEST(CsvImporter, FractionalSecondsRoundToNearestNanosecond) {
  TempDir dir;
  test::write_text_file(dir / "s.csv", "time,id,bytes\n0.0000000015,1,1\n2.5e-9,2,1\n7,3,1\n");
  const auto r = import_csv(dir / "s.csv", {{"time_unit", "s"}});
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0].time_ns, 2);  // 1.5 ns, halves away from zero
  EXPECT_EQ(r[1].time_ns, 3);  // 2.5 ns
  EXPECT_EQ(r[2].time_ns, 7'000'000'000);
}

TEST(CsvImporter, NoHeaderMapsByIndex) {
  TempDir dir;
  // zipfgen's layout: time,id,size without a header; also ms and a custom op.
  test::write_text_file(dir / "z.csv", "5,100,64,GET\n6,101,64,SET\n");
  const auto r = import_csv(dir / "z.csv", {{"time", "0"}, {"block_id", "1"}, {"bytes", "2"}, {"op", "3"},
                                            {"time_unit", "ms"}});
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].time_ns, 5'000'000);
  EXPECT_EQ(r[1].block_id, 101u);
  EXPECT_EQ(r[0].op, AccessOp::read);
  EXPECT_EQ(r[1].op, AccessOp::write);
}

TEST(CsvImporter, WithoutTimeColumnTimeIsTheRecordIndex) {
  TempDir dir;
  test::write_text_file(dir / "ids.csv", "7\n8\n7\n");
  const auto r = import_csv(dir / "ids.csv", {{"block_id", "0"}, {"default_bytes", "4KiB"}, {"header", "no"}});
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[2].time_ns, 2);
  EXPECT_EQ(r[2].block_id, 7u);
  EXPECT_EQ(r[1].bytes, 4096u);
}

TEST(CsvImporter, RecordCountKnownAfterFirstPass) {
  TempDir dir;
  test::write_text_file(dir / "c.csv", "id,bytes\n1,1\n2,1\n");
  auto src = open_trace(dir / "c.csv");
  EXPECT_EQ(src->meta().record_count, 0u);
  test::read_all(*src);
  EXPECT_EQ(src->meta().record_count, 2u);
  EXPECT_EQ(src->meta().source, "csv:" + (dir / "c.csv").string());
}

// --- errors ---

TEST(CsvImporter, NonNumericCellNamesLineAndColumn) {
  TempDir dir;
  const auto p = dir / "bad.csv";
  test::write_text_file(p, "time,id,size\n1,2,3\n2,3,4\n3,4,abc\n");
  auto src = open_trace(p);
  EXPECT_INPUT_ERROR(test::read_all(*src), p.string() + ":4:", "column 'size'", "field bytes", "'abc'",
                     "not a non-negative integer");
}

TEST(CsvImporter, NonNumericTimeNamesLineAndColumn) {
  TempDir dir;
  const auto p = dir / "bad.csv";
  test::write_text_file(p, "ts,lbn,size\n1,2,3\n\n1x,3,4\n");
  auto src = open_trace(p);
  EXPECT_INPUT_ERROR(test::read_all(*src), p.string() + ":4:", "column 'ts'", "field time", "not a number");
}

TEST(CsvImporter, UnknownColumnNameListsTheHeader) {
  TempDir dir;
  const auto p = dir / "h.csv";
  test::write_text_file(p, "time,lbn,size\n1,2,3\n");
  EXPECT_INPUT_ERROR(open_trace(p, "csv", {{"bytes", "length"}}), p.string(), "column 'length'", "field bytes",
                     "not in the header", "columns: time, lbn, size");
}

TEST(CsvImporter, IndexBeyondHeaderAndMissingCells) {
  TempDir dir;
  const auto p = dir / "h.csv";
  test::write_text_file(p, "time,lbn,size\n1,2,3\n4,5\n");
  EXPECT_INPUT_ERROR(open_trace(p, "csv", {{"bytes", "3"}}), "column index 3", "beyond the header");
  auto src = open_trace(p);
  EXPECT_INPUT_ERROR(test::read_all(*src), p.string() + ":3:", "has 2 columns", "column 'size'", "missing");
}

TEST(CsvImporter, UnknownOpValueAndUnknownOption) {
  TempDir dir;
  const auto p = dir / "o.csv";
  test::write_text_file(p, "id,size,op\n1,1,2a\n");
  auto src = open_trace(p);
  EXPECT_INPUT_ERROR(test::read_all(*src), ":2:", "column 'op'", "'2a'", "op_read / op_write");
  EXPECT_EQ(import_csv(p, {{"op_write", "2a"}})[0].op, AccessOp::write);
  EXPECT_INPUT_ERROR(open_trace(p, "csv", {{"colour", "red"}}), "unknown parameter 'colour'");
  EXPECT_INPUT_ERROR(open_trace(p, "csv", {{"speed", "id"}}), "unknown parameter 'speed'");
}

TEST(CsvImporter, MissingBlockColumnAndZeroBytes) {
  TempDir dir;
  test::write_text_file(dir / "n.csv", "time,size\n1,2\n");
  EXPECT_INPUT_ERROR(open_trace(dir / "n.csv"), "no column for field block_id");
  test::write_text_file(dir / "z.csv", "time,id,size\n1,2,0\n");
  auto src = open_trace(dir / "z.csv");
  EXPECT_INPUT_ERROR(test::read_all(*src), "z.csv:2:", "bytes == 0");
}

TEST(CsvImporter, TimeBackwardsWithinAStreamIsAnError) {
  TempDir dir;
  test::write_text_file(dir / "t.csv", "time,id,size,stream\n10,1,1,0\n5,1,1,1\n9,1,1,0\n");
  auto src = open_trace(dir / "t.csv");
  EXPECT_INPUT_ERROR(test::read_all(*src), "t.csv:4:", "time goes backwards in stream 0");
}

TEST(CsvImporter, ErrorMidwayLeavesNoOutputFile) {
  TempDir dir;
  std::string text = "time,id,size\n";
  for (int i = 0; i < 100000; ++i) text += std::to_string(i) + "," + std::to_string(i % 97) + ",512\n";
  text += "100000,5,oops\n";
  test::write_text_file(dir / "big.csv", text);
  auto src = open_trace(dir / "big.csv");
  for (const char* out : {"out.h5", "out.csv"}) {
    try {
      auto sink = create_trace_sink(dir / out, src->meta());
      copy_trace(*src, *sink);
      ADD_FAILURE() << "expected an error";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("big.csv:100002:"), std::string::npos) << e.what();
    }
    EXPECT_EQ(test::listing(dir.path()), std::set<std::string>{"big.csv"});
  }
}

// --- round trips ---

TEST(CsvImporter, Hdf5ToCsvToHdf5IsExact) {
  TempDir dir;
  auto records = test::random_trace(5000, 300, 11);
  for (std::size_t i = 0; i < records.size(); i += 3) {
    records[i].phase = Phase::decode;
    records[i].token_index = static_cast<std::int32_t>(i % 100);
    records[i].address = 0xdead0000 + i;
    records[i].next_use_index = i + 1;
  }
  TraceMeta meta;
  meta.source = "random";
  meta.has_next_use = true;
  meta.catalog = {{3, "a,b", 10, kNoAddress, kNoAddress, -1, "weight"}, {10, "c", 20, 1, 21, 4, "kv_page"}};
  {
    Hdf5TraceWriter w(dir / "a.h5", meta);
    w.write(records);
    w.finish();
  }
  Hdf5TraceSource a(dir / "a.h5");
  {
    auto sink = create_trace_sink(dir / "b.csv", a.meta());
    EXPECT_EQ(copy_trace(a, *sink), 5000u);
  }
  EXPECT_TRUE(std::filesystem::exists(dir / "b.catalog.csv"));
  auto b = open_trace(dir / "b.csv");  // no options: the writer's header names every field
  EXPECT_TRUE(b->meta().has_next_use);
  {
    auto sink = create_trace_sink(dir / "c.h5", b->meta());
    copy_trace(*b, *sink);
  }
  Hdf5TraceSource c(dir / "c.h5");
  test::expect_same_records(records, test::read_all(c));
  EXPECT_EQ(a.present_fields(), c.present_fields());
  ASSERT_EQ(c.meta().catalog.size(), 2u);
  EXPECT_EQ(c.meta().catalog[0].name, "a,b");
  EXPECT_EQ(c.meta().catalog[1].address_end, 21u);
  EXPECT_EQ(c.meta().catalog[1].layer, 4);
  EXPECT_EQ(c.meta().catalog[1].kind, "kv_page");
}

TEST(CsvImporter, CsvImportReadsBackEqualFromHdf5) {
  TempDir dir;
  test::write_text_file(dir / "in.csv", "time,op,size,lbn\n1,r,512,9\n3,w,1024,8\n3,r,512,9\n");
  auto src = open_trace(dir / "in.csv");
  const auto direct = test::read_all(*src);
  {
    auto sink = create_trace_sink(dir / "in.h5", src->meta());
    copy_trace(*src, *sink);
  }
  Hdf5TraceSource h(dir / "in.h5");
  test::expect_same_records(direct, test::read_all(h));
  EXPECT_EQ(h.meta().source, "csv:" + (dir / "in.csv").string());
}

// --- the libCacheSim sample ---

TEST(CsvImporter, CloudPhysicsSampleFacts) {
  FLASHSIM_REQUIRE_SHARED(csv, "traces/libcachesim/cloudPhysicsIO.csv");
  // Header version,time,op,size,lbn; op holds SCSI opcodes 0x28 READ(10), 0x2a WRITE(10).
  auto src = open_trace(csv, "csv", {{"op_read", "28"}, {"op_write", "2a"}, {"time_unit", "s"}});
  const TraceStats st = compute_stats(*src, StatsOptions{{1000}, {1 << 20}, 0});
  EXPECT_EQ(st.records, 113872u);
  EXPECT_EQ(st.unique_blocks, 48974u);
  EXPECT_EQ(st.reads, 46974u);
  EXPECT_EQ(st.writes, 66898u);
  EXPECT_EQ(st.reuse.cold, 48974u);
}

TEST(CsvImporter, CloudPhysicsCsvMatchesOracleGeneralIdsAndTimes) {
  FLASHSIM_REQUIRE_SHARED(csv, "traces/libcachesim/cloudPhysicsIO.csv");
  FLASHSIM_REQUIRE_SHARED(bin, "traces/libcachesim/cloudPhysicsIO.oracleGeneral.bin");
  auto a = open_trace(csv, "csv", {{"op_read", "28"}, {"op_write", "2a"}, {"time_unit", "s"}});
  auto b = open_trace(bin);
  const auto ra = test::read_all(*a, 4096);
  const auto rb = test::read_all(*b, 4096);
  ASSERT_EQ(ra.size(), rb.size());
  for (std::size_t i = 0; i < ra.size(); ++i) {
    ASSERT_EQ(ra[i].block_id, rb[i].block_id) << i;
    ASSERT_EQ(ra[i].time_ns, rb[i].time_ns) << i;
  }
}

}  // namespace
}  // namespace flashsim

namespace flashsim {
namespace {

// An empty file and a header with no records are errors in the user's
// terms, naming the file (not "no column for field block_id", not a run of
// zero accesses); blank and comment lines do not count as records.
TEST(CsvImporter, EmptyFileAndHeaderOnlyAreNamed) {
  test::TempDir dir;
  auto message = [&](const std::string& name, const std::string& text) -> std::string {
    test::write_text_file(dir.path() / name, text);
    try {
      (void)open_trace(dir.path() / name, "csv", {});
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_NE(message("empty.csv", "").find("empty.csv: the file is empty"), std::string::npos);
  EXPECT_NE(message("blank.csv", "\n# a comment\n\n").find("the file is empty"), std::string::npos);
  EXPECT_NE(message("hdr.csv", "block_id,bytes\n\n# nothing\n").find("hdr.csv: a header and no records"),
            std::string::npos);
  EXPECT_EQ(message("one.csv", "block_id,bytes\n1,100\n"), "");
}

}  // namespace
}  // namespace flashsim
