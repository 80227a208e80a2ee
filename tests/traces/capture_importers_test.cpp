// The further importers of the capture issue: Kineto chrome traces whose
// copies carry host addresses (blocks by address), and Nsight Systems SQLite
// exports (a tiny synthetic database made here with the documented schema).
#include <gtest/gtest.h>

#include <fstream>

#include "sim/core/errors.h"
#include "tests/support/temp_dir.h"
#include "tests/traces/trace_test_util.h"
#include "traces/importers/kineto.h"
#include "traces/trace_formats.h"

#ifdef FLASHSIM_HAVE_SQLITE3
#include <sqlite3.h>

#include "traces/importers/nsys_sqlite.h"
#endif

namespace flashsim {
namespace {

std::string memcpy_event(const char* direction, double ts_us, std::uint64_t bytes, const std::string& address_args) {
  return std::string(R"J({"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy )J") + direction +
         R"J( (Pinned -> Device)", "pid": 0, "tid": 7, "ts": )J" + std::to_string(ts_us) +
         R"J(, "dur": 1, "args": {"device": 0, "stream": 7, "bytes": )J" + std::to_string(bytes) + address_args + "}}";
}

TEST(KinetoAddresses, BlocksAreHostSourceRangesWhenEveryCopyNamesOne) {
  test::TempDir dir;
  // Two passes: embedding (0x1000, 64 B), an input whose size changes
  // (0x9000), two weights; the pass ends with a DtoH. With addresses the
  // input is an access of its own ranges (no weight/input guessing).
  std::string events;
  double ts = 10;
  for (int pass = 0; pass < 2; ++pass) {
    const std::string input_bytes = std::to_string(8 + pass);
    for (const auto& [addr, bytes] : std::vector<std::pair<std::string, std::uint64_t>>{
             {"\"0x1000\"", 64}, {"36864", 8u + static_cast<std::uint64_t>(pass)}, {"\"0x2000\"", 4096},
             {"\"0x3000\"", 4096}}) {
      events += (events.empty() ? "" : ",\n") + memcpy_event("HtoD", ts, bytes, ", \"src_address\": " + addr);
      ts += 1;
    }
    events += ",\n" + memcpy_event("DtoH", ts, 4, ", \"dst_address\": \"0x500\"");
    ts += 1;
  }
  test::write_text_file(dir / "a.json", "{\"traceEvents\": [\n" + events + "\n]}");
  KinetoTraceSource src(dir / "a.json");
  const auto records = test::read_all(src);
  ASSERT_EQ(records.size(), 8u);
  const BlockId expected_blocks[] = {0, 1, 2, 3, 0, 4, 2, 3};
  for (std::size_t i = 0; i < 8; ++i) {
    EXPECT_EQ(records[i].block_id, expected_blocks[i]) << i;
    EXPECT_EQ(records[i].token_index, i < 4 ? 0 : 1) << i;
  }
  EXPECT_EQ(records[0].time_ns, 0);
  EXPECT_EQ(records[6].time_ns, 7000);  // (17 − 10) µs
  EXPECT_EQ(records[6].address, 0x2000u);
  ASSERT_EQ(src.meta().catalog.size(), 5u);
  EXPECT_EQ(src.meta().catalog[0].name, "host@0x1000:64");
  EXPECT_EQ(src.meta().catalog[1].name, "host@0x9000:8");
  EXPECT_EQ(src.meta().catalog[4].name, "host@0x9000:9");
  EXPECT_EQ(src.meta().catalog[2].address_end, 0x3000u);
  EXPECT_NE(src.meta().source.find("blocks by host address"), std::string::npos) << src.meta().source;

  // One copy without an address: back to the positional rules of kineto.h.
  events.replace(events.find(", \"src_address\": \"0x3000\""), std::string(", \"src_address\": \"0x3000\"").size(), "");
  test::write_text_file(dir / "b.json", "{\"traceEvents\": [\n" + events + "\n]}");
  KinetoTraceSource positional(dir / "b.json");
  EXPECT_EQ(positional.meta().catalog[0].name, "embedding");
  EXPECT_EQ(positional.report().input_copies, 2u);

  test::write_text_file(dir / "c.json",
                        "{\"traceEvents\": [" + memcpy_event("HtoD", 1, 8, ", \"src_address\": \"0xZZ\"") + "]}");
  EXPECT_THROW(KinetoTraceSource(dir / "c.json"), InputError);
}

#ifdef FLASHSIM_HAVE_SQLITE3

void exec(sqlite3* db, const std::string& sql) {
  char* error = nullptr;
  ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error), SQLITE_OK) << (error ? error : "");
}

// The columns of nsys's CUPTI_ACTIVITY_KIND_MEMCPY table that matter here
// (nsys export --type sqlite; copyKind holds CUPTI_ACTIVITY_MEMCPY_KIND values).
void make_db(const std::filesystem::path& path, bool with_table) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  exec(db, "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL)");
  if (with_table) {
    exec(db,
         "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER, "
         "contextId INTEGER, streamId INTEGER, correlationId INTEGER, globalPid INTEGER, bytes INTEGER NOT NULL, "
         "copyKind INTEGER NOT NULL, deprecatedSrcId INTEGER, srcKind INTEGER, dstKind INTEGER, srcDeviceId INTEGER, "
         "srcContextId INTEGER, dstDeviceId INTEGER, dstContextId INTEGER, migrationCause INTEGER, graphNodeId INTEGER)");
    // Two passes of embedding (100 B), two equal weights, and a DtoH; a DtoD
    // between them (dropped). Rows inserted out of time order.
    const char* rows[] = {
        "(5000, 5010, 0, 1, 7, 9, 1, 100, 1, 0, 2, 3, 0, 1, 0, 1, 0, 0)",
        "(1000, 1010, 0, 1, 7, 1, 1, 100, 1, 0, 2, 3, 0, 1, 0, 1, 0, 0)",
        "(1100, 1110, 0, 1, 7, 2, 1, 1000, 1, 0, 2, 3, 0, 1, 0, 1, 0, 0)",
        "(1200, 1210, 0, 1, 7, 3, 1, 1000, 1, 0, 2, 3, 0, 1, 0, 1, 0, 0)",
        "(1250, 1260, 0, 1, 7, 4, 1, 512, 8, 0, 3, 3, 0, 1, 0, 1, 0, 0)",
        "(1300, 1310, 0, 1, 7, 5, 1, 4, 2, 0, 3, 1, 0, 1, 0, 1, 0, 0)",
        "(5100, 5110, 0, 1, 7, 10, 1, 1000, 1, 0, 2, 3, 0, 1, 0, 1, 0, 0)",
        "(5200, 5210, 0, 1, 7, 11, 1, 1000, 1, 0, 2, 3, 0, 1, 0, 1, 0, 0)",
        "(5300, 5310, 0, 1, 7, 12, 1, 4, 2, 0, 3, 1, 0, 1, 0, 1, 0, 0)",
    };
    for (const char* r : rows) exec(db, std::string("INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES ") + r);
    // The runtime calls that issued them (correlationId 1..12; 6..8 absent),
    // one cudaStreamSynchronize after each pass's DtoH, on thread 42.
    exec(db, "INSERT INTO StringIds VALUES (1, 'cudaMemcpyAsync_v3020'), (2, 'cudaStreamSynchronize_v3020')");
    exec(db,
         "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER, "
         "globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL, returnValue INTEGER, callchainId INTEGER)");
    for (int c : {1, 2, 3, 4, 5, 9, 10, 11, 12}) {
      const int start = (c < 9 ? 900 : 4900) + 100 * (c < 9 ? c - 1 : c - 9);
      exec(db, "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (" + std::to_string(start) + ", " +
                   std::to_string(start + 20) + ", 0, 42, " + std::to_string(c) + ", 1, 0, 0)");
    }
    exec(db, "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (1400, 1420, 0, 42, 20, 2, 0, 0), "
             "(5400, 5420, 0, 42, 21, 2, 0, 0)");
  }
  sqlite3_close(db);
}

TEST(NsysSqlite, CopiesBecomeWeightAccessesByTheKinetoRules) {
  test::TempDir dir;
  make_db(dir / "r.sqlite", true);
  auto src = open_trace(dir / "r.sqlite", "nsys");
  const auto records = test::read_all(*src);
  ASSERT_EQ(records.size(), 6u);
  const BlockId blocks[] = {0, 1, 2, 0, 1, 2};
  const Nanoseconds times[] = {0, 100, 200, 4000, 4100, 4200};
  for (std::size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(records[i].block_id, blocks[i]) << i;
    EXPECT_EQ(records[i].time_ns, times[i]) << i;
    EXPECT_EQ(records[i].token_index, i < 3 ? 0 : 1) << i;
    EXPECT_EQ(records[i].stream_id, 7u);
  }
  const auto& catalog = src->meta().catalog;
  ASSERT_EQ(catalog.size(), 3u);
  EXPECT_EQ(catalog[0].name, "embedding");
  EXPECT_EQ(catalog[1].name, "layers.0.0");
  EXPECT_EQ(catalog[2].name, "layers.1.0");
  EXPECT_NE(src->meta().source.find("nsys:"), std::string::npos);
  EXPECT_NE(src->meta().source.find("1 other copies"), std::string::npos) << src->meta().source;
  // The program: 9 copy calls and 2 synchronisations on one thread; a step at
  // each pass's first weight copy; the synchronise waits on stream 7.
  const auto& program = src->meta().program;
  ASSERT_TRUE(program);
  EXPECT_EQ(src->meta().schema_version, 2);
  EXPECT_EQ(program->thread_count, 1u);
  std::size_t steps = 0, copies = 0, syncs = 0, with_access = 0;
  for (const ProgramOp& op : program->ops) {
    steps += op.kind == ProgramOpKind::step;
    copies += op.kind == ProgramOpKind::copy;
    syncs += op.kind == ProgramOpKind::stream_sync;
    with_access += op.first_access != kNoAccess;
    if (op.kind == ProgramOpKind::copy && op.direction == CopyDirection::h2d) {
      EXPECT_EQ(op.host_memory, HostMemory::pinned);  // srcKind 2
    }
    if (op.kind == ProgramOpKind::copy && op.direction == CopyDirection::d2h) {
      EXPECT_EQ(op.host_memory, HostMemory::pageable);  // dstKind 1
    }
  }
  EXPECT_EQ(steps, 2u);
  EXPECT_EQ(copies, 9u);
  EXPECT_EQ(syncs, 2u);
  EXPECT_EQ(with_access, 6u);  // the six weight records
}

TEST(NsysSqlite, ReportsWithoutCopiesOrNotSqliteAreInputErrors) {
  test::TempDir dir;
  make_db(dir / "none.sqlite", false);
  try {
    NsysSqliteTraceSource s(dir / "none.sqlite");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("no CUPTI_ACTIVITY_KIND_MEMCPY table"), std::string::npos) << e.what();
  }
  test::write_text_file(dir / "text.sqlite", "this is not a database, just some text that is long enough\n");
  EXPECT_THROW(NsysSqliteTraceSource(dir / "text.sqlite"), InputError);
  EXPECT_THROW(NsysSqliteTraceSource(dir / "missing.sqlite"), InputError);
}

#endif  // FLASHSIM_HAVE_SQLITE3

}  // namespace
}  // namespace flashsim
