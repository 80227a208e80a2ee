// zstd-compressed csv, kineto and hdf5 input: the same records as the plain
// file (csv and kineto streamed through ByteStream, hdf5 through a temp copy
// in TMPDIR that is gone afterwards, also after an error), and corrupt or
// truncated .zst files named in the error. Fixtures are compressed here with
// libzstd, nothing binary is committed.
#include <zstd.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "sim/core/errors.h"
#include "tests/support/temp_dir.h"
#include "tests/traces/trace_test_util.h"
#include "traces/hdf5_trace.h"
#include "traces/importers/kineto.h"
#include "traces/trace_formats.h"

namespace flashsim {
namespace {

using test::TempDir;

// `text` as `frames` zstd frames one after the other (level 3): one stream.
std::string zstd_frames(const std::string& text, int frames = 1) {
  std::string out;
  ZSTD_CCtx* c = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, 3);
  const std::size_t step = text.size() / static_cast<std::size_t>(frames) + 1;
  for (std::size_t at = 0; at < text.size(); at += step) {
    const std::size_t n = std::min(step, text.size() - at);
    std::string frame(ZSTD_compressBound(n), '\0');
    const std::size_t got = ZSTD_compress2(c, frame.data(), frame.size(), text.data() + at, n);
    EXPECT_FALSE(ZSTD_isError(got)) << ZSTD_getErrorName(got);
    out += frame.substr(0, got);
  }
  ZSTD_freeCCtx(c);
  return out;
}

std::string read_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// 100,000 accesses (2.6 MB of text: several of ByteStream's 1 MiB buffers):
// time_ns = 10·i, block (i·7919) mod 1009, bytes 100 + block, every 5th a write.
std::string big_csv() {
  std::string text = "time_ns,block_id,bytes,op\n";
  for (int i = 0; i < 100'000; ++i) {
    const int block = (i * 7919) % 1009;
    text += std::to_string(10LL * i) + "," + std::to_string(block) + "," + std::to_string(100 + block) + "," +
            (i % 5 == 0 ? "w" : "r") + "\n";
  }
  return text;
}

TEST(ZstdInput, CsvAndItsZstdGiveTheSameRecords) {
  TempDir dir;
  const std::string text = big_csv();
  test::write_text_file(dir / "t.csv", text);
  test::write_text_file(dir / "t.csv.zst", zstd_frames(text, 3));
  auto plain = open_trace(dir / "t.csv");
  auto packed = open_trace(dir / "t.csv.zst");
  const auto expected = test::read_all(*plain);
  ASSERT_EQ(expected.size(), 100'000u);
  // Record 77,777: block 77777·7919 mod 1009 = 265, a read (77,777 mod 5 = 2).
  EXPECT_EQ(expected[77'777].time_ns, 777'770);
  EXPECT_EQ(expected[77'777].block_id, 265u);
  EXPECT_EQ(expected[77'777].bytes, 365u);
  EXPECT_EQ(expected[77'777].op, AccessOp::read);
  EXPECT_EQ(expected[5].op, AccessOp::write);
  test::expect_same_records(expected, test::read_all(*packed, 4096));
  // A second pass rewinds the compressed stream (seek back to the first data line).
  test::expect_same_records(expected, test::read_all(*packed, 333));
  EXPECT_EQ(packed->meta().record_count, 100'000u);
}

TEST(ZstdInput, CsvWithoutHeaderAfterCommentsRewindsToItsFirstRecord) {
  TempDir dir;
  const std::string text = "# a comment\n\n# another\n5,7,64\n6,8,32\n7,7,64\n";
  test::write_text_file(dir / "n.csv.zst", zstd_frames(text));
  const std::map<std::string, std::string> options{{"header", "no"}, {"time", "0"}, {"block_id", "1"}, {"bytes", "2"}};
  auto src = open_trace(dir / "n.csv.zst", "", options);
  for (int pass = 0; pass < 2; ++pass) {
    const auto r = test::read_all(*src);
    ASSERT_EQ(r.size(), 3u) << "pass " << pass;
    EXPECT_EQ(r[0].time_ns, 5);
    EXPECT_EQ(r[1].block_id, 8u);
    EXPECT_EQ(r[2].bytes, 64u);
  }
  // A bad cell is named by file and line inside the compressed file too.
  test::write_text_file(dir / "bad.csv.zst", zstd_frames("time_ns,block_id,bytes\n1,2,3\n2,x,3\n"));
  EXPECT_INPUT_ERROR(test::read_all(*open_trace(dir / "bad.csv.zst")), "bad.csv.zst:3", "field block_id", "'x'");
}

// Three forward passes of a 4-weight model: embedding 1000 B, two 64 B
// layers, LM head 1000 B, then the logits read back (DtoH), 10 µs apart.
std::string kineto_json() {
  std::string events;
  const struct {
    const char* name;
    int bytes;
  } pass[] = {{"Memcpy HtoD (Pageable -> Device)", 1000},
              {"Memcpy HtoD (Pageable -> Device)", 64},
              {"Memcpy HtoD (Pageable -> Device)", 64},
              {"Memcpy HtoD (Pageable -> Device)", 1000},
              {"Memcpy DtoH (Device -> Pinned)", 4}};
  int i = 0;
  for (int p = 0; p < 3; ++p) {
    for (const auto& c : pass) {
      if (!events.empty()) events += ",\n";
      events += R"({"ph": "X", "cat": "gpu_memcpy", "name": ")" + std::string(c.name) +
                R"(", "pid": 0, "tid": 7, "ts": )" + std::to_string(100 + 10 * i++) +
                R"(, "dur": 2, "args": {"stream": 7, "bytes": )" + std::to_string(c.bytes) + "}}";
    }
  }
  return R"({"schemaVersion": 1, "traceEvents": [)" "\n" + events + "\n]}";
}

TEST(ZstdInput, KinetoJsonAndItsZstdGiveTheSameRecords) {
  TempDir dir;
  const std::string json = kineto_json();
  test::write_text_file(dir / "k.json", json);
  test::write_text_file(dir / "k.json.zst", zstd_frames(json, 2));
  EXPECT_EQ(detect_trace_format(dir / "k.json.zst"), "kineto");
  auto plain = open_trace(dir / "k.json");
  auto packed = open_trace(dir / "k.json.zst");
  const auto expected = test::read_all(*plain);
  ASSERT_EQ(expected.size(), 12u);  // 3 passes × 4 weights
  EXPECT_EQ(expected[5].block_id, 1u);
  EXPECT_EQ(expected[5].bytes, 64u);
  EXPECT_EQ(expected[5].token_index, 1);
  EXPECT_EQ(expected[5].time_ns, 60'000);  // ts 160 µs − the first weight copy's 100 µs
  test::expect_same_records(expected, test::read_all(*packed));
  const auto& r = dynamic_cast<const KinetoTraceSource&>(*packed).report();
  EXPECT_EQ(r.memcpy_events, 15u);
  EXPECT_EQ(r.passes, 3u);
  EXPECT_EQ(r.dtoh_copies, 3u);
}

// TMPDIR pointed at a folder of the test's, restored afterwards.
class ScopedTmpdir {
 public:
  explicit ScopedTmpdir(const std::filesystem::path& dir) {
    if (const char* old = std::getenv("TMPDIR")) old_ = old;
    setenv("TMPDIR", dir.c_str(), 1);
  }
  ~ScopedTmpdir() {
    if (old_.empty()) unsetenv("TMPDIR");
    else setenv("TMPDIR", old_.c_str(), 1);
  }

 private:
  std::string old_;
};

TEST(ZstdInput, Hdf5ZstdIsReadFromATempCopyThatIsRemoved) {
  TempDir dir;
  const auto records = test::random_trace(20'000, 300, 11);
  {
    TraceMeta meta;
    meta.source = "test:random";
    Hdf5TraceWriter w(dir / "r.h5", meta);
    w.write(records);
    w.finish();
  }
  test::write_text_file(dir / "r.h5.zst", zstd_frames(read_bytes(dir / "r.h5")));
  std::filesystem::create_directory(dir / "tmp");
  ScopedTmpdir tmpdir(dir / "tmp");
  {
    testing::internal::CaptureStderr();
    auto src = open_trace(dir / "r.h5.zst");
    const std::string said = testing::internal::GetCapturedStderr();
    EXPECT_NE(said.find("r.h5.zst: HDF5 needs random access"), std::string::npos) << said;
    EXPECT_NE(said.find((dir / "tmp").string() + "/flashsim-zstd-"), std::string::npos) << said;
    EXPECT_EQ(test::listing(dir / "tmp").size(), 1u);  // the copy's folder, while the source lives
    EXPECT_EQ(src->meta().source, "test:random");
    EXPECT_EQ(src->meta().record_count, 20'000u);
    test::expect_same_records(records, test::read_all(*src, 4096));
    test::expect_same_records(records, test::read_all(*src, 999));
  }
  EXPECT_TRUE(test::listing(dir / "tmp").empty());
  // A truncated copy: the error names the .zst file, and nothing is left behind.
  const std::string whole = zstd_frames(read_bytes(dir / "r.h5"));
  test::write_text_file(dir / "bad.h5.zst", whole.substr(0, whole.size() / 2));
  testing::internal::CaptureStderr();
  try {
    open_trace(dir / "bad.h5.zst");
    ADD_FAILURE() << "a corrupt .h5.zst opened";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find((dir / "bad.h5.zst").string() + ": truncated zstd stream"), std::string::npos)
        << e.what();
  }
  testing::internal::GetCapturedStderr();
  EXPECT_TRUE(test::listing(dir / "tmp").empty());
}

TEST(ZstdInput, TruncatedOrCorruptZstdIsAnInputErrorNamingTheFile) {
  TempDir dir;
  const std::string csv = zstd_frames(big_csv());
  test::write_text_file(dir / "cut.csv.zst", csv.substr(0, csv.size() / 2));
  const auto cut = (dir / "cut.csv.zst").string();
  EXPECT_INPUT_ERROR(test::read_all(*open_trace(cut)), cut + ": truncated zstd stream");
  // A second frame whose magic is damaged: found after the first frame's
  // records were read (a corrupt byte inside a frame's literals could pass
  // unnoticed without a checksum; a frame header cannot).
  const std::string first = zstd_frames(big_csv());
  std::string second = zstd_frames("1,2,3\n");
  second[0] = static_cast<char>(second[0] ^ 0xff);
  test::write_text_file(dir / "bad.csv.zst", first + second);
  const auto bad = (dir / "bad.csv.zst").string();
  EXPECT_INPUT_ERROR(test::read_all(*open_trace(bad)), bad + ": corrupt zstd stream at compressed byte",
                     "after " + std::to_string(big_csv().size()) + " decompressed bytes");
  const std::string json = zstd_frames(kineto_json());
  test::write_text_file(dir / "cut.json.zst", json.substr(0, json.size() - 9));
  const auto kcut = (dir / "cut.json.zst").string();
  EXPECT_INPUT_ERROR(open_trace(kcut), kcut + ": truncated zstd stream");
#ifdef FLASHSIM_HAVE_SQLITE3
  // nsys (SQLite) still cannot read one, and says how to decompress.
  EXPECT_INPUT_ERROR(open_trace(cut, "nsys"), cut + ": zstd-compressed", "zstd -d " + cut);
#endif
}

}  // namespace
}  // namespace flashsim
