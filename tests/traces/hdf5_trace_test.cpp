// The canonical HDF5 trace: round trip, optional fields, determinism,
// atomic output, and each class of corrupt file.
#include <algorithm>
#include <fstream>
#include <iterator>

#include "sim/core/errors.h"
#include "tests/support/temp_dir.h"
#include "tests/traces/trace_test_util.h"
#include "traces/hdf5_io.h"
#include "traces/hdf5_trace.h"
#include "traces/trace_formats.h"

namespace flashsim {
namespace {

using test::TempDir;

std::vector<AccessRecord> full_records() {
  std::vector<AccessRecord> v = test::random_trace(1000, 50, 1);
  for (std::size_t i = 0; i < v.size(); ++i) {
    v[i].request_id = i / 100;
    v[i].token_index = static_cast<std::int32_t>(i % 37);
    v[i].phase = i < 500 ? Phase::prefill : Phase::decode;
    v[i].operator_id = static_cast<std::uint32_t>(i % 11);
    v[i].compute_ns = static_cast<Nanoseconds>(i * 3);
    v[i].address = 0x7f0000000000ull + i * 4096;
    v[i].offset = i % 64;
    v[i].next_use_index = i + 5;
  }
  return v;
}

TraceMeta meta_with_catalog(bool next_use) {
  TraceMeta m;
  m.source = "unit test";
  m.has_next_use = next_use;
  m.catalog = {{0, "layers.0.q", 8388608, 0x1000, 0x801000, 0, "weight"},
               {1, "embedding", 131072000, kNoAddress, kNoAddress, -1, "embedding"},
               {2, "name, with \"quotes\"", 4096, 5, 4101, 3, "io"}};
  return m;
}

void write_file(const std::filesystem::path& path, const TraceMeta& meta, const std::vector<AccessRecord>& records,
                Hdf5WriteOptions options = {}, std::size_t piece = 77) {
  Hdf5TraceWriter w(path, meta, options);
  for (std::size_t i = 0; i < records.size(); i += piece) {
    const std::size_t n = std::min(piece, records.size() - i);
    w.write(std::span<const AccessRecord>(records.data() + i, n));
  }
  EXPECT_EQ(w.records_written(), records.size());
  w.finish();
}

std::string file_bytes(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(Hdf5Trace, RoundTripsEveryFieldAndTheCatalog) {
  TempDir dir;
  const auto records = full_records();
  Hdf5WriteOptions o;
  o.chunk_records = 64;  // many chunks, a partial last one
  write_file(dir / "t.h5", meta_with_catalog(true), records, o);
  EXPECT_EQ(test::listing(dir.path()), std::set<std::string>{"t.h5"});

  Hdf5TraceSource src(dir / "t.h5", 100);  // windows not aligned with chunks
  EXPECT_EQ(src.meta().record_count, 1000u);
  EXPECT_EQ(src.meta().source, "unit test");
  EXPECT_TRUE(src.meta().has_next_use);
  EXPECT_EQ(src.meta().schema_version, 1);
  EXPECT_EQ(src.units(), kTraceUnits);
  EXPECT_EQ(src.present_fields().size(), 13u);
  test::expect_same_records(records, test::read_all(src, 33));
  // rewind gives the same again
  test::expect_same_records(records, test::read_all(src, 1000));

  const auto& cat = src.meta().catalog;
  ASSERT_EQ(cat.size(), 3u);
  EXPECT_EQ(cat[0].name, "layers.0.q");
  EXPECT_EQ(cat[0].bytes, 8388608u);
  EXPECT_EQ(cat[0].address_begin, 0x1000u);
  EXPECT_EQ(cat[0].address_end, 0x801000u);
  EXPECT_EQ(cat[0].layer, 0);
  EXPECT_EQ(cat[0].kind, "weight");
  EXPECT_EQ(cat[1].id, 1u);
  EXPECT_EQ(cat[1].address_begin, kNoAddress);
  EXPECT_EQ(cat[1].layer, -1);
  EXPECT_EQ(cat[2].name, "name, with \"quotes\"");
  EXPECT_EQ(cat[2].kind, "io");
}

TEST(Hdf5Trace, AllDefaultOptionalFieldsAreOmittedAndReadBackAsDefaults) {
  TempDir dir;
  auto records = test::random_trace(300, 20, 2);
  // token_index becomes non-default only from record 200 on: the dataset
  // appears late and records 0..199 must read back as the default (-1).
  for (std::size_t i = 200; i < records.size(); ++i) records[i].token_index = 7;
  Hdf5WriteOptions o;
  o.chunk_records = 50;
  write_file(dir / "t.h5", TraceMeta{}, records, o);
  Hdf5TraceSource src(dir / "t.h5");
  EXPECT_EQ(src.present_fields(),
            (std::vector<std::string>{"time_ns", "block_id", "bytes", "op", "stream_id", "token_index"}));
  EXPECT_FALSE(src.meta().has_next_use);
  EXPECT_TRUE(src.meta().catalog.empty());
  const auto back = test::read_all(src);
  test::expect_same_records(records, back);
  EXPECT_EQ(back[0].token_index, -1);
  EXPECT_EQ(back[0].address, kNoAddress);
  EXPECT_EQ(back[299].token_index, 7);
}

TEST(Hdf5Trace, WritesAllFieldsWhenAskedNotToOmit) {
  TempDir dir;
  Hdf5WriteOptions o;
  o.omit_default_fields = false;
  write_file(dir / "t.h5", TraceMeta{}, test::random_trace(10, 3, 3), o);
  Hdf5TraceSource src(dir / "t.h5");
  EXPECT_EQ(src.present_fields().size(), 12u);  // all but next_use_index (has_next_use is false)
}

TEST(Hdf5Trace, EmptyTraceIsValid) {
  TempDir dir;
  write_file(dir / "e.h5", TraceMeta{}, {});
  Hdf5TraceSource src(dir / "e.h5");
  EXPECT_EQ(src.meta().record_count, 0u);
  EXPECT_TRUE(test::read_all(src).empty());
}

TEST(Hdf5Trace, SameInputGivesIdenticalBytes) {
  TempDir dir;
  const auto records = full_records();
  write_file(dir / "a.h5", meta_with_catalog(true), records);
  write_file(dir / "b.h5", meta_with_catalog(true), records, {}, 500);  // different write() pieces
  const std::string a = file_bytes(dir / "a.h5");
  EXPECT_GT(a.size(), 1000u);
  EXPECT_EQ(a, file_bytes(dir / "b.h5"));
}

// The records' chunk length as written (HDF5's dataset creation list).
hsize_t records_chunk(const std::filesystem::path& path, const char* field) {
  h5::Handle file = h5::open_file_read(path.string());
  h5::Handle group = h5::open_group(file.get(), "records");
  h5::Handle d = h5::open_dataset(group.get(), field);
  h5::Handle dcpl(H5Dget_create_plist(d.get()), H5Pclose);
  hsize_t dims[1] = {0};
  EXPECT_EQ(H5Pget_chunk(dcpl.get(), 1, dims), 1);
  return dims[0];
}

TEST(Hdf5Trace, AShortTraceGetsAChunkOfItsLengthALongOneTheConfiguredChunk) {
  // A reader inflates whole chunks: 300 records must not sit in a chunk of 64 Ki.
  TempDir dir;
  const auto records = full_records();  // 1000 records
  write_file(dir / "short.h5", meta_with_catalog(true), records);
  EXPECT_EQ(records_chunk(dir / "short.h5", "block_id"), 1000u);
  EXPECT_EQ(records_chunk(dir / "short.h5", "next_use_index"), 1000u);
  Hdf5WriteOptions small;
  small.chunk_records = 256;  // 1000 records: 3 full chunks and a partial one
  write_file(dir / "long.h5", meta_with_catalog(true), records, small);
  EXPECT_EQ(records_chunk(dir / "long.h5", "block_id"), 256u);
  Hdf5TraceSource src(dir / "long.h5");
  const auto back = test::read_all(src);
  ASSERT_EQ(back.size(), records.size());
  EXPECT_EQ(back.back().block_id, records.back().block_id);
  EXPECT_EQ(back.back().next_use_index, records.back().next_use_index);
}

// /streams: what the event engine's first pass would find, so that it can
// replay in one pass (sim/engine/event/trace_scan.h).
TEST(Hdf5Trace, ListsTheStreamsAFirstPassWouldFind) {
  TempDir dir;
  std::vector<AccessRecord> records = test::random_trace(1000, 50, 1);
  for (std::size_t i = 0; i < records.size(); ++i) {
    if (i % 9 == 4) records[i].stream_id = 70000;  // beyond the small-id table of the numbering
  }
  write_file(dir / "t.h5", TraceMeta{}, records);
  std::vector<StreamSummary> expected;
  for (const AccessRecord& r : records) {
    auto it = std::find_if(expected.begin(), expected.end(), [&](const StreamSummary& s) { return s.stream_id == r.stream_id; });
    if (it == expected.end()) it = expected.insert(expected.end(), StreamSummary{r.stream_id, r.time_ns, 0});
    ++it->records;
  }
  ASSERT_EQ(expected.size(), 3u);
  const Hdf5TraceSource src(dir / "t.h5");
  ASSERT_TRUE(src.meta().streams_known);
  EXPECT_FALSE(src.meta().has_requests);
  ASSERT_EQ(src.meta().streams.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(src.meta().streams[i].stream_id, expected[i].stream_id) << i;
    EXPECT_EQ(src.meta().streams[i].first_time_ns, expected[i].first_time_ns) << i;
    EXPECT_EQ(src.meta().streams[i].records, expected[i].records) << i;
  }
  // With requests: said, so that the engine makes its pass for their facts.
  write_file(dir / "r.h5", meta_with_catalog(true), full_records());
  EXPECT_TRUE(Hdf5TraceSource(dir / "r.h5").meta().has_requests);
  // An empty trace lists nothing: a reader of it finds no streams to know.
  write_file(dir / "e.h5", TraceMeta{}, {});
  EXPECT_FALSE(Hdf5TraceSource(dir / "e.h5").meta().streams_known);
}

TEST(Hdf5Trace, DestroyingWithoutFinishLeavesNothing) {
  TempDir dir;
  test::write_text_file(dir / "keep.h5", "previous content");
  {
    Hdf5TraceWriter w(dir / "keep.h5", TraceMeta{});
    const auto records = test::random_trace(100, 5, 4);
    w.write(records);
    EXPECT_EQ(test::listing(dir.path()).size(), 2u);  // the target and the temp
  }
  EXPECT_EQ(test::listing(dir.path()), std::set<std::string>{"keep.h5"});
  EXPECT_EQ(file_bytes(dir / "keep.h5"), "previous content");
}

TEST(Hdf5Trace, WriteAfterFinishIsAnError) {
  TempDir dir;
  Hdf5TraceWriter w(dir / "t.h5", TraceMeta{});
  w.finish();
  const auto records = test::random_trace(1, 1, 1);
  EXPECT_THROW(w.write(records), Error);
}

// --- corrupt files: each names the file and what is wrong ---

class CorruptHdf5 : public ::testing::Test {
 protected:
  void SetUp() override {
    records_ = test::random_trace(200, 10, 5);
    write_file(path(), TraceMeta{}, records_);
  }
  std::filesystem::path path() const { return dir_ / "bad.h5"; }
  // Opens the file read-write for surgery.
  h5::Handle open_rw() const {
    return h5::Handle(H5Fopen(path().c_str(), H5F_ACC_RDWR, H5P_DEFAULT), H5Fclose);
  }
  TempDir dir_;
  std::vector<AccessRecord> records_;
};

TEST_F(CorruptHdf5, WrongSchemaVersion) {
  {
    auto f = open_rw();
    H5Adelete(f.get(), "schema_version");
    h5::write_attr_int(f.get(), "schema_version", H5T_STD_I32LE, 4);
  }
  EXPECT_INPUT_ERROR(Hdf5TraceSource{path()}, path().string(), "schema_version 4 is not supported");
}

TEST_F(CorruptHdf5, MissingSchemaVersion) {
  {
    auto f = open_rw();
    H5Adelete(f.get(), "schema_version");
  }
  EXPECT_INPUT_ERROR(Hdf5TraceSource{path()}, path().string(), "schema_version is missing");
}

TEST_F(CorruptHdf5, MissingCoreDataset) {
  {
    auto f = open_rw();
    H5Ldelete(f.get(), "records/bytes", H5P_DEFAULT);
  }
  EXPECT_INPUT_ERROR(Hdf5TraceSource{path()}, path().string(), "dataset /records/bytes is missing");
}

TEST_F(CorruptHdf5, MismatchedDatasetLength) {
  {
    auto f = open_rw();
    h5::Handle d(H5Dopen2(f.get(), "records/stream_id", H5P_DEFAULT), H5Dclose);
    h5::set_length(d.get(), 150);
  }
  EXPECT_INPUT_ERROR(Hdf5TraceSource{path()}, path().string(), "/records/stream_id has 150 elements",
                     "record_count is 200");
}

TEST_F(CorruptHdf5, NextUseFlagWithoutDataset) {
  {
    auto f = open_rw();
    H5Adelete(f.get(), "has_next_use");
    h5::write_attr_int(f.get(), "has_next_use", H5T_STD_U8LE, 1);
  }
  EXPECT_INPUT_ERROR(Hdf5TraceSource{path()}, "has_next_use is set", "next_use_index is missing");
}

TEST_F(CorruptHdf5, StreamsThatDisagreeWithTheRecordCount) {
  {
    auto f = open_rw();
    h5::Handle d(H5Dopen2(f.get(), "streams/records", H5P_DEFAULT), H5Dclose);
    std::uint64_t first = 0;
    h5::read_range(d.get(), H5T_NATIVE_UINT64, 0, 1, &first);
    first -= 1;
    h5::write_range(d.get(), H5T_NATIVE_UINT64, 0, 1, &first);
  }
  EXPECT_INPUT_ERROR(Hdf5TraceSource{path()}, path().string(), "/streams/records sum to 199", "record_count is 200");
}

TEST_F(CorruptHdf5, AStreamListedTwice) {
  {
    auto f = open_rw();
    h5::Handle d(H5Dopen2(f.get(), "streams/stream_id", H5P_DEFAULT), H5Dclose);
    ASSERT_EQ(h5::length(d.get(), "streams"), 2u);
    std::uint32_t ids[2] = {};
    h5::read_range(d.get(), H5T_NATIVE_UINT32, 0, 2, ids);
    h5::write_range(d.get(), H5T_NATIVE_UINT32, 1, 1, &ids[0]);
  }
  EXPECT_INPUT_ERROR(Hdf5TraceSource{path()}, "/streams/stream_id[1]", "listed twice");
}

TEST_F(CorruptHdf5, AnArrayWhereOneValueBelongs) {
  {
    auto f = open_rw();
    h5::Handle g(H5Gopen2(f.get(), "streams", H5P_DEFAULT), H5Gclose);
    H5Adelete(g.get(), "has_requests");
    const hsize_t three = 3;
    h5::Handle space(H5Screate_simple(1, &three, nullptr), H5Sclose);
    h5::Handle a(H5Acreate2(g.get(), "has_requests", H5T_STD_I64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
    const std::int64_t values[3] = {0, 1, 0};
    ASSERT_GE(H5Awrite(a.get(), H5T_NATIVE_INT64, values), 0);
  }
  EXPECT_INPUT_ERROR(Hdf5TraceSource{path()}, path().string(), "attribute has_requests holds 3 values, not one");
}

TEST_F(CorruptHdf5, StreamsWithoutTheirRequestsFlagOrAColumn) {
  {
    auto f = open_rw();
    h5::Handle g(H5Gopen2(f.get(), "streams", H5P_DEFAULT), H5Gclose);
    H5Adelete(g.get(), "has_requests");
  }
  EXPECT_INPUT_ERROR(Hdf5TraceSource{path()}, "has_requests is missing");
  {
    auto f = open_rw();
    H5Ldelete(f.get(), "streams/first_time_ns", H5P_DEFAULT);
  }
  EXPECT_INPUT_ERROR(Hdf5TraceSource{path()}, "/streams/first_time_ns is missing");
}

// Datasets of other dtypes (h5py writes float64 and int32 readily): read when
// every value converts exactly, else refused naming the dataset and row —
// never clipped (a negative size read as 0) or truncated (1.5 read as 1).
class OtherDtypeHdf5 : public CorruptHdf5 {
 protected:
  template <class T>
  void replace(const char* name, hid_t file_type, hid_t mem_type, std::vector<T> values) {
    auto f = open_rw();
    ASSERT_GE(H5Ldelete(f.get(), name, H5P_DEFAULT), 0);
    const hsize_t n[1] = {values.size()};
    h5::Handle space(H5Screate_simple(1, n, nullptr), H5Sclose);
    h5::Handle d(H5Dcreate2(f.get(), name, file_type, space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Dclose);
    ASSERT_GE(H5Dwrite(d.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()), 0);
  }
  template <class T, class F>
  std::vector<T> column(F field) const {
    std::vector<T> v;
    for (const AccessRecord& r : records_) v.push_back(static_cast<T>(field(r)));
    return v;
  }
};

TEST_F(OtherDtypeHdf5, ExactFloatIdsAndTimesAndNarrowSizesAreRead) {
  replace("records/block_id", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, column<double>([](const AccessRecord& r) { return r.block_id; }));
  replace("records/time_ns", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, column<double>([](const AccessRecord& r) { return r.time_ns; }));
  replace("records/bytes", H5T_STD_I32LE, H5T_NATIVE_INT32, column<std::int32_t>([](const AccessRecord& r) { return r.bytes; }));
  Hdf5TraceSource src(path());
  const auto back = test::read_all(src);
  ASSERT_EQ(back.size(), records_.size());
  for (std::size_t i = 0; i < back.size(); ++i) {
    EXPECT_EQ(back[i].block_id, records_[i].block_id) << i;
    EXPECT_EQ(back[i].time_ns, records_[i].time_ns) << i;
    EXPECT_EQ(back[i].bytes, records_[i].bytes) << i;
  }
}

TEST_F(OtherDtypeHdf5, AFractionalIdIsRefusedNamingTheRow) {
  auto ids = column<double>([](const AccessRecord& r) { return r.block_id; });
  ids[77] += 0.5;
  replace("records/block_id", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, ids);
  Hdf5TraceSource src(path());
  EXPECT_INPUT_ERROR(test::read_all(src), path().string(), "/records/block_id[77] = ", "not a whole number");
}

TEST_F(OtherDtypeHdf5, ANegativeSizeIsNamedNegative) {
  auto bytes = column<std::int64_t>([](const AccessRecord& r) { return r.bytes; });
  bytes[5] = -4096;
  replace("records/bytes", H5T_STD_I64LE, H5T_NATIVE_INT64, bytes);
  Hdf5TraceSource src(path());
  EXPECT_INPUT_ERROR(test::read_all(src), "/records/bytes[5] = -4096: negative");
}

TEST_F(OtherDtypeHdf5, AnIdBeyond64BitsIsRefused) {
  auto ids = column<double>([](const AccessRecord& r) { return r.block_id; });
  ids[3] = 1e20;
  replace("records/block_id", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, ids);
  Hdf5TraceSource src(path());
  EXPECT_INPUT_ERROR(test::read_all(src), "/records/block_id[3] = 1e+20: beyond the range of 64-bit integers");
}

TEST_F(OtherDtypeHdf5, StringIdsAreRefusedWithAWayOut) {
  {
    auto f = open_rw();
    ASSERT_GE(H5Ldelete(f.get(), "records/block_id", H5P_DEFAULT), 0);
    h5::write_strings(f.get(), "records/block_id", std::vector<std::string>(records_.size(), "key"));
  }
  Hdf5TraceSource src(path());
  EXPECT_INPUT_ERROR(test::read_all(src), "/records/block_id: holds strings, not numbers", "write each as an integer id");
}

TEST_F(CorruptHdf5, ZeroBytesAtARecord) {
  {
    auto f = open_rw();
    h5::Handle d(H5Dopen2(f.get(), "records/bytes", H5P_DEFAULT), H5Dclose);
    const std::uint64_t zero = 0;
    h5::write_range(d.get(), H5T_NATIVE_UINT64, 123, 1, &zero);
  }
  Hdf5TraceSource src(path(), 50);
  EXPECT_INPUT_ERROR(test::read_all(src), path().string(), "record 123", "bytes == 0");
  // Converting it fails midway and leaves neither output nor temp file.
  for (const char* out : {"out.h5", "out.csv"}) {
    auto sink = create_trace_sink(dir_ / out, src.meta());
    EXPECT_INPUT_ERROR(copy_trace(src, *sink, 16), "record 123");
    sink.reset();
    EXPECT_EQ(test::listing(dir_.path()), std::set<std::string>{"bad.h5"});
  }
}

TEST_F(CorruptHdf5, TimeGoingBackwardsInAStream) {
  // Record 150 gets a time before the previous record of its stream.
  const std::uint32_t stream = records_[150].stream_id;
  Nanoseconds previous = -1;
  for (std::size_t i = 0; i < 150; ++i) {
    if (records_[i].stream_id == stream) previous = records_[i].time_ns;
  }
  ASSERT_GT(previous, 0);
  {
    auto f = open_rw();
    h5::Handle d(H5Dopen2(f.get(), "records/time_ns", H5P_DEFAULT), H5Dclose);
    const std::int64_t t = previous - 1;
    h5::write_range(d.get(), H5T_NATIVE_INT64, 150, 1, &t);
  }
  Hdf5TraceSource src(path());
  EXPECT_INPUT_ERROR(test::read_all(src), "record 150", "time goes backwards in stream " + std::to_string(stream));
}

TEST(Hdf5TraceErrors, NotAnHdf5File) {
  TempDir dir;
  test::write_text_file(dir / "x.h5", "time,id\n");
  EXPECT_INPUT_ERROR(Hdf5TraceSource{dir / "x.h5"}, "x.h5", "not an HDF5 file");
  EXPECT_INPUT_ERROR(Hdf5TraceSource{dir / "missing.h5"}, "missing.h5", "no such file");
}

}  // namespace
}  // namespace flashsim
