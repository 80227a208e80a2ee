// Real-world text inputs (issue 30): gzip-compressed csv/txt/kineto through
// ByteStream (multi-member, truncated, corrupt and trailing-data files named
// in the error), UTF-16 exports by their byte-order mark, and the `ids`
// option (numeric, hex, text, hash) of csv and txt. Fixtures are written
// here with zlib; nothing binary is committed.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <map>
#include <string>
#include <vector>

#include "sim/core/errors.h"
#include "sim/core/utf8.h"
#include "tests/support/temp_dir.h"
#include "tests/traces/trace_test_util.h"
#include "traces/block_ids.h"
#include "traces/byte_stream.h"
#include "traces/hdf5_trace.h"
#include "traces/trace_formats.h"

namespace flashsim {
namespace {

using test::TempDir;

std::string utf16(const std::string& ascii, bool little_endian, const std::vector<std::uint16_t>& extra = {});

// `text` as one gzip member (RFC 1952), as gzip(1) writes it.
std::string gzip_member(const std::string& text) {
  z_stream z{};
  EXPECT_EQ(deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out(deflateBound(&z, static_cast<uLong>(text.size())) + 32, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = static_cast<uInt>(text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

// 20,000 accesses: time 10·i, block (i·7919) mod 1009, bytes 100 + block.
std::string csv_text() {
  std::string text = "time_ns,block_id,bytes\n";
  for (int i = 0; i < 20'000; ++i) {
    const int block = (i * 7919) % 1009;
    text += std::to_string(10LL * i) + "," + std::to_string(block) + "," + std::to_string(100 + block) + "\n";
  }
  return text;
}

TEST(GzipInput, CsvGzInOneOrThreeMembersGivesThePlainFilesRecords) {
  TempDir dir;
  const std::string text = csv_text();
  test::write_text_file(dir / "t.csv", text);
  test::write_text_file(dir / "t.csv.gz", gzip_member(text));
  const std::size_t third = text.size() / 3;
  test::write_text_file(dir / "m.csv.gz", gzip_member(text.substr(0, third)) +
                                              gzip_member(text.substr(third, third)) +
                                              gzip_member(text.substr(2 * third)));
  EXPECT_EQ(detect_trace_format(dir / "t.csv.gz"), "csv");
  EXPECT_EQ(compression_of(dir / "t.csv.gz"), Compression::gzip);
  const auto expected = test::read_all(*open_trace(dir / "t.csv"));
  ASSERT_EQ(expected.size(), 20'000u);
  EXPECT_EQ(expected[12'345].block_id, 12'345u * 7919u % 1009u);
  for (const char* name : {"t.csv.gz", "m.csv.gz"}) {
    auto packed = open_trace(dir / name);
    test::expect_same_records(expected, test::read_all(*packed, 777));
    test::expect_same_records(expected, test::read_all(*packed, 4096));  // rewound: decompressed again
  }
}

TEST(GzipInput, ByteStreamReadsAGzipMemberThatDecompressesToNothing) {
  TempDir dir;
  test::write_text_file(dir / "e.txt.gz", gzip_member("") + gzip_member("7\n8\n"));
  ByteStream s(dir / "e.txt.gz", 64);
  std::string line;
  ASSERT_TRUE(s.read_line(line));
  EXPECT_EQ(line, "7");
  ASSERT_TRUE(s.read_line(line));
  EXPECT_EQ(line, "8");
  EXPECT_FALSE(s.read_line(line));
  EXPECT_TRUE(s.compressed());
  EXPECT_EQ(s.position(), 4u);
}

TEST(GzipInput, TruncatedCorruptOrTrailingBytesAreNamed) {
  TempDir dir;
  const std::string member = gzip_member(csv_text());
  test::write_text_file(dir / "cut.csv.gz", member.substr(0, member.size() / 2));
  EXPECT_INPUT_ERROR(test::read_all(*open_trace(dir / "cut.csv.gz")), "cut.csv.gz: truncated gzip stream",
                     "inside member 1");
  std::string corrupt = member;
  corrupt[corrupt.size() / 2] = static_cast<char>(corrupt[corrupt.size() / 2] ^ 0x55);
  corrupt[corrupt.size() / 2 + 1] = static_cast<char>(corrupt[corrupt.size() / 2 + 1] ^ 0x55);
  test::write_text_file(dir / "bad.csv.gz", corrupt);
  EXPECT_INPUT_ERROR(test::read_all(*open_trace(dir / "bad.csv.gz")), "bad.csv.gz: corrupt gzip stream at compressed byte");
  test::write_text_file(dir / "tail.csv.gz", member + "garbage after the data\n");
  EXPECT_INPUT_ERROR(test::read_all(*open_trace(dir / "tail.csv.gz")),
                     "tail.csv.gz: bytes after the gzip data at compressed byte " + std::to_string(member.size()),
                     "not another gzip member");
}

TEST(GzipInput, TxtGzAndAPlainFileNamedGzRead) {
  TempDir dir;
  test::write_text_file(dir / "ids.txt.gz", gzip_member("5\n0x10\n5\n"));
  auto r = test::read_all(*open_trace(dir / "ids.txt.gz"));
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[1].block_id, 16u);
  // A .gz name over plain bytes reads as it is (as zlib's gzread did for .json.gz).
  test::write_text_file(dir / "plain.txt.gz", "9\n");
  EXPECT_EQ(compression_of(dir / "plain.txt.gz"), Compression::none);
  r = test::read_all(*open_trace(dir / "plain.txt.gz"));
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].block_id, 9u);
}

TEST(GzipInput, AFormatThatCannotDecompressNamesGzipAndTheWayOut) {
  TempDir dir;
  test::write_text_file(dir / "c.raw.gz", gzip_member("x"));
  EXPECT_INPUT_ERROR(open_trace(dir / "c.raw.gz", "cupti"), "gzip-compressed", "gzip -dk");
}

TEST(GzipInput, AKinetoBombOfOneHugeStringIsAnErrorNamingTheFileNotBadAlloc) {
  TempDir dir;
  // 1 GiB of one JSON string, gzip-compressed as it is made (about 1 MB).
  const auto path = dir / "bomb.json.gz";
  gzFile f = gzopen(path.c_str(), "wb1");
  ASSERT_NE(f, nullptr);
  gzputs(f, R"({"traceEvents": [{"ph": "X", "name": ")");
  const std::string chunk(std::size_t{1} << 20, 'a');
  for (int i = 0; i < 1024; ++i) ASSERT_EQ(gzwrite(f, chunk.data(), static_cast<unsigned>(chunk.size())), int(chunk.size()));
  gzputs(f, "\"}]}");
  gzclose(f);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {  // under 768 MiB of address space the string cannot be held
    rlimit as{768u << 20, 768u << 20};
    if (::setrlimit(RLIMIT_AS, &as) != 0) ::_exit(10);
    try {
      open_trace(path);
    } catch (const InputError& e) {
      const std::string m = e.what();
      ::_exit(m.find("bomb.json.gz: out of memory parsing the JSON") != std::string::npos ? 0 : 11);
    } catch (...) {
      ::_exit(12);
    }
    ::_exit(13);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "10: setrlimit, 11: another message, 12: another exception, 13: no error";
}

TEST(GzipInput, ABinaryRecordThatBeginsLikeGzipIsReadPlainUnlessNamedGz) {
  TempDir dir;
  // oracleGeneral: u32 time | u64 id | u32 size | i64 next; time 35615 s =
  // 0x00008B1F begins 1F 8B 00 00 (helper-4's find: it was "corrupt gzip").
  std::string bytes;
  const auto put = [&](std::uint64_t v, int n) {
    for (int i = 0; i < n; ++i) bytes.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
  };
  for (std::uint64_t i = 0; i < 3; ++i) {
    put(35615 + i, 4);
    put(7 + i, 8);
    put(100, 4);
    put(~std::uint64_t{0}, 8);
  }
  test::write_text_file(dir / "t.oracleGeneral.bin", bytes);
  const auto r = test::read_all(*open_trace(dir / "t.oracleGeneral.bin"));
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[2].block_id, 9u);
  EXPECT_EQ(r[0].time_ns, 35615LL * 1'000'000'000);
  // Gzip content under a plain name: sniffed for text, not for binary.
  test::write_text_file(dir / "g.csv", gzip_member("block_id,bytes\n4,8\n"));
  EXPECT_EQ(compression_of(dir / "g.csv", StreamContent::text), Compression::gzip);
  EXPECT_EQ(compression_of(dir / "g.csv"), Compression::none);
  EXPECT_EQ(test::read_all(*open_trace(dir / "g.csv")).size(), 1u);
}

TEST(GzipInput, ACompressedCsvFindsItsCatalogAndACatalogMayBeUtf16) {
  TempDir dir;
  const std::string text = "block_id,bytes\n1,8\n2,8\n";
  test::write_text_file(dir / "t.csv.gz", gzip_member(text));
  test::write_text_file(dir / "t.catalog.csv", utf16("id,name,bytes\n1,w1,8\n2,w2,8\n", true));
  auto source = open_trace(dir / "t.csv.gz");
  ASSERT_EQ(source->meta().catalog.size(), 2u);  // was looked for as t.csv.catalog.csv
  EXPECT_EQ(source->meta().catalog[1].name, "w2");
}

TEST(GzipInput, OneEndlessLineOrADoubleCompressionIsRefusedNamingTheFile) {
  TempDir dir;
  test::write_text_file(dir / "long.txt.gz", gzip_member(std::string((1u << 20) + 100'000, '1')));
  EXPECT_INPUT_ERROR(test::read_all(*open_trace(dir / "long.txt.gz")), "long.txt.gz: a line longer than 1048576 bytes",
                     "at byte 0 (decompressed)");
  test::write_text_file(dir / "twice.csv.gz", gzip_member(gzip_member("block_id,bytes\n1,8\n")));
  EXPECT_INPUT_ERROR(open_trace(dir / "twice.csv.gz"), "twice.csv.gz: the gzip data holds another compressed file",
                     "decompress the outer layer first");
}

// UTF-16 text with its byte-order mark: `ascii` widened, plus `extra` code units.
std::string utf16(const std::string& ascii, bool little_endian, const std::vector<std::uint16_t>& extra) {
  std::string out = little_endian ? std::string("\xFF\xFE", 2) : std::string("\xFE\xFF", 2);
  const auto put = [&](std::uint16_t u) {
    const char lo = static_cast<char>(u & 0xFF), hi = static_cast<char>(u >> 8);
    out += little_endian ? std::string{lo, hi} : std::string{hi, lo};
  };
  for (const std::uint16_t u : extra) put(u);
  for (const char c : ascii) put(static_cast<unsigned char>(c));
  return out;
}

TEST(Utf16Input, CsvExportsInBothByteOrdersReadAsUtf8) {
  TempDir dir;
  const std::string text = "time_ns,block_id,bytes\r\n100,1,8\r\n200,2,16\r\n";
  for (const bool le : {true, false}) {
    const auto path = dir / (le ? "le.csv" : "be.csv");
    test::write_text_file(path, utf16(text, le));
    auto source = open_trace(path);
    for (int pass = 0; pass < 2; ++pass) {
      const auto r = test::read_all(*source);
      ASSERT_EQ(r.size(), 2u) << path;
      EXPECT_EQ(r[0].time_ns, 100);  // the header was found: the time column is used
      EXPECT_EQ(r[1].block_id, 2u);
      EXPECT_EQ(r[1].bytes, 16u);
    }
  }
  // Gzip over UTF-16: both layers.
  test::write_text_file(dir / "le.csv.gz", gzip_member(utf16(text, true)));
  EXPECT_EQ(test::read_all(*open_trace(dir / "le.csv.gz")).size(), 2u);
}

TEST(Utf16Input, SurrogatePairsBecomeOneCodePointAndLoneOnesAreRefused) {
  TempDir dir;
  // U+1F600 is D83D DE00; U+00E9 é is one unit: UTF-8 F0 9F 98 80 and C3 A9.
  test::write_text_file(dir / "pair.txt", utf16("\n", true, {0xD83D, 0xDE00, 0x00E9}));
  ByteStream s(dir / "pair.txt", 64, StreamContent::text);
  std::string line;
  ASSERT_TRUE(s.read_line(line));
  EXPECT_EQ(line, "\xF0\x9F\x98\x80\xC3\xA9");
  EXPECT_EQ(s.text_encoding(), TextEncoding::utf16le);
  test::write_text_file(dir / "lone.txt", utf16("\n", false, {0x0041, 0xDE00}));
  ByteStream lone(dir / "lone.txt", 64, StreamContent::text);
  EXPECT_INPUT_ERROR(lone.read_line(line), "lone.txt: not valid UTF-16", "at byte 4", "a low surrogate without a high one");
  std::string odd = utf16("5\n", true);
  odd += 'x';
  test::write_text_file(dir / "odd.txt", odd);
  EXPECT_INPUT_ERROR(test::read_all(*open_trace(dir / "odd.txt")), "odd.txt: not valid UTF-16",
                     "ends inside a 2-byte code unit");
  // Without a mark: named as UTF-16 (every other byte NUL), with the way out.
  std::string bare = utf16("block_id,bytes\n1,8\n", true).substr(2);
  test::write_text_file(dir / "bare.csv", bare);
  EXPECT_INPUT_ERROR(open_trace(dir / "bare.csv"), "bare.csv: looks like UTF-16LE text without a byte-order mark",
                     "iconv -f UTF-16LE -t UTF-8");
  // Read as bytes (a binary format), the mark is data.
  ByteStream raw(dir / "pair.txt", 64);
  char first[2] = {};
  ASSERT_EQ(raw.read(first, 2), 2u);
  EXPECT_EQ(static_cast<unsigned char>(first[0]), 0xFFu);
}

TEST(BlockIds, CsvIdsOfEachSyntax) {
  TempDir dir;
  test::write_text_file(dir / "hex.csv", "key,bytes\n7fa3c0,8\n0x10,8\nFFFFFFFFFFFFFFFF,8\n");
  auto r = test::read_all(*open_trace(dir / "hex.csv", "", {{"ids", "hex"}}));
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0].block_id, 0x7fa3c0u);
  EXPECT_EQ(r[1].block_id, 16u);
  EXPECT_EQ(r[2].block_id, ~std::uint64_t{0});
  // By default the hex id is refused, with the option that reads it.
  EXPECT_INPUT_ERROR(test::read_all(*open_trace(dir / "hex.csv")), "hex.csv:2: column 'key' (field block_id)",
                     "'7fa3c0' is not an unsigned integer id", "ids=hex reads it as hexadecimal", "--set workload.import.ids=text");

  test::write_text_file(dir / "keys.csv", "key,bytes\nuser:42,8\n\"a,b\",8\n user:42 ,8\n,8\n");
  auto keys = open_trace(dir / "keys.csv", "", {{"ids", "text"}});
  EXPECT_INPUT_ERROR(test::read_all(*keys), "keys.csv:5", "is empty");
  test::write_text_file(dir / "keys.csv", "key,bytes\nuser:42,8\n\"a,b\",8\n user:42 ,8\n");
  keys = open_trace(dir / "keys.csv", "", {{"ids", "text"}});
  for (int pass = 0; pass < 2; ++pass) {  // numbered alike on every pass
    r = test::read_all(*keys);
    ASSERT_EQ(r.size(), 3u);
    EXPECT_EQ(r[0].block_id, 1u);
    EXPECT_EQ(r[1].block_id, 2u);
    EXPECT_EQ(r[2].block_id, 1u);  // blanks around the key are not part of it
  }
  EXPECT_INPUT_ERROR(test::read_all(*open_trace(dir / "keys.csv")), "'user:42' is not an unsigned integer id",
                     "ids=text (exact numbering) or ids=hash", "-o ids=text with flashsim trace");
  EXPECT_INPUT_ERROR(open_trace(dir / "keys.csv", "", {{"ids", "key"}}), "ids", "key");
}

#if FLASHSIM_HAVE_XXHASH
TEST(BlockIds, HashIsXxh64OfTheTextWithSeedZero) {
  TempDir dir;
  // Test vectors of the xxHash specification's reference implementation:
  // XXH64("", 0) = 0xEF46DB3751D8E999, XXH64("abc", 0) = 0x44BC2CF5AD770999.
  test::write_text_file(dir / "h.csv", "key,bytes\nabc,8\n\"\",8\nabc,8\n");
  auto source = open_trace(dir / "h.csv", "", {{"ids", "hash"}});
  EXPECT_INPUT_ERROR(test::read_all(*source), "h.csv:3", "is empty");  // an empty key is a cut row, even hashed
  test::write_text_file(dir / "h.txt", "abc\n");
  const auto r = test::read_all(*open_trace(dir / "h.txt", "", {{"ids", "hash"}}));
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].block_id, 0x44BC2CF5AD770999ull);
  BlockIdReader reader(IdSyntax::hash);
  std::uint64_t id = 0;
  ASSERT_TRUE(reader.read("", id));
  EXPECT_EQ(id, 0xEF46DB3751D8E999ull);
}
#endif

TEST(BlockIds, ANulByteIsNamedAsNotText) {
  TempDir dir;
  // Before: "'1\x00' is not an unsigned integer id ...; ids=text reads any text".
  test::write_text_file(dir / "nul.csv", std::string("time_ns,block_id,bytes\n1,1\0,8\n", 30));
  EXPECT_INPUT_ERROR(test::read_all(*open_trace(dir / "nul.csv")), "nul.csv:2: a NUL byte at byte 3 of the line",
                     "not text");
  test::write_text_file(dir / "nul.txt", std::string("5\n6\0\n", 5));
  EXPECT_INPUT_ERROR(test::read_all(*open_trace(dir / "nul.txt", "", {{"ids", "text"}})), "nul.txt:2: a NUL byte");
}

TEST(BlockIds, TxtHexIdsAndTheirRefusal) {
  TempDir dir;
  test::write_text_file(dir / "a.txt", "deadbeef\n");
  EXPECT_INPUT_ERROR(test::read_all(*open_trace(dir / "a.txt")), "a.txt: line 1 (record 0)",
                     "'deadbeef' is not an unsigned integer id", "ids=hex reads it");
  const auto r = test::read_all(*open_trace(dir / "a.txt", "", {{"ids", "hex"}}));
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].block_id, 0xdeadbeefu);
  test::write_text_file(dir / "long.txt", "0x1234567890abcdef0\n");
  EXPECT_INPUT_ERROR(test::read_all(*open_trace(dir / "long.txt", "", {{"ids", "hex"}})),
                     "is not a hexadecimal id (1 to 16 digits");
}

}  // namespace
}  // namespace flashsim

namespace flashsim {
namespace {

TEST(Utf8Repair, BadBytesBecomeTheReplacementCharacterAndValidTextStays) {
  EXPECT_EQ(to_valid_utf8("plain é \xF0\x9F\x98\x80"), "plain é \xF0\x9F\x98\x80");
  EXPECT_EQ(to_valid_utf8("a\xFF" "b"), "a\xEF\xBF\xBD" "b");
  // A cut 3-byte sequence: each byte that starts no sequence is replaced.
  EXPECT_EQ(to_valid_utf8("\xE2\x82x"), "\xEF\xBF\xBD\xEF\xBF\xBDx");
  EXPECT_EQ(to_valid_utf8("\xED\xA0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // a surrogate, encoded
  EXPECT_TRUE(valid_utf8(to_valid_utf8("\xC0\xAF\x80\xFE")));
}

TEST(Utf8Repair, StringsWrittenToHdf5AreValidUtf8) {
  TempDir dir;
  const auto csv = dir / "bad\xFF.csv";
  test::write_text_file(csv, "time_ns,block_id,bytes\n1,1,8\n2,2,8\n");
  test::write_text_file(dir / "bad\xFF.catalog.csv", "id,name,bytes\n1,w\xFFx,8\n2,ok,8\n");
  auto source = open_trace(csv);
  ASSERT_EQ(source->meta().catalog.size(), 2u);
  EXPECT_EQ(source->meta().catalog[0].name, "w\xFFx");  // read as it is
  {
    auto sink = create_trace_sink(dir / "out.h5", source->meta());
    copy_trace(*source, *sink);
  }
  Hdf5TraceSource back(dir / "out.h5");
  EXPECT_EQ(back.meta().catalog[0].name, "w\xEF\xBF\xBDx");
  EXPECT_EQ(back.meta().catalog[1].name, "ok");
  EXPECT_TRUE(valid_utf8(back.meta().source)) << back.meta().source;
  EXPECT_NE(back.meta().source.find("bad\xEF\xBF\xBD.csv"), std::string::npos) << back.meta().source;
}

}  // namespace
}  // namespace flashsim

namespace flashsim {
namespace {

// 8 MiB of one repeated csv line in gzip: about 1000:1, as a bomb is.
std::filesystem::path repetitive_gzip(const test::TempDir& dir) {
  std::string text = "time_ns,block_id,bytes\n";
  while (text.size() < (8u << 20)) text += "0,0,1\n";
  const auto path = dir / "bomb.csv.gz";
  test::write_text_file(path, gzip_member(text));
  return path;
}

std::string read_all_error(const std::filesystem::path& path, const DecompressionLimits& limits) {
  ByteStream s(path);
  s.set_decompression_limits(limits);
  std::vector<char> buf(1 << 16);
  try {
    while (s.read(buf.data(), buf.size()) > 0) {
    }
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(DecompressionLimits, ARatioAboveTheCapStopsTheStreamNamingFileBytesAndVariable) {
  TempDir dir;
  const auto path = repetitive_gzip(dir);
  const double ratio = (8.0 * (1 << 20)) / static_cast<double>(std::filesystem::file_size(path));
  ASSERT_GT(ratio, 200);  // what the cap below must catch
  DecompressionLimits l;
  l.ratio_floor_bytes = 1 << 20;
  l.max_ratio = 100;
  const std::string e = read_all_error(path, l);
  EXPECT_NE(e.find("bomb.csv.gz: decompresses "), std::string::npos) << e;
  EXPECT_NE(e.find(":1 ("), std::string::npos) << e;
  EXPECT_NE(e.find("above 100:1"), std::string::npos) << e;
  EXPECT_NE(e.find("FLASHSIM_MAX_DECOMPRESSION_RATIO"), std::string::npos) << e;
  l.max_ratio = 0.5;  // shown as given, not rounded to 0
  EXPECT_NE(read_all_error(path, l).find("above 0.5:1"), std::string::npos);
  l.max_ratio = 0;  // no cap: read to the end
  EXPECT_EQ(read_all_error(path, l), "");
  l.max_ratio = ratio * 2;  // above what it reaches
  EXPECT_EQ(read_all_error(path, l), "");
}

TEST(DecompressionLimits, ASizeAboveTheCapStopsTheStream) {
  TempDir dir;
  const auto path = repetitive_gzip(dir);
  DecompressionLimits l;
  l.max_ratio = 0;
  l.max_bytes = 4u << 20;
  const std::string e = read_all_error(path, l);
  EXPECT_NE(e.find("bomb.csv.gz: decompresses to more than 4194304 bytes (0.00 GiB; "), std::string::npos) << e;
  EXPECT_NE(e.find("FLASHSIM_MAX_DECOMPRESSED_BYTES"), std::string::npos) << e;
  l.max_bytes = 16u << 20;
  EXPECT_EQ(read_all_error(path, l), "");
}

TEST(DecompressionLimits, ThePlainFileIsNotCappedAndTheDefaultsComeFromTheEnvironment) {
  TempDir dir;
  std::string text(4u << 20, 'x');
  test::write_text_file(dir / "plain.bin", text);
  DecompressionLimits l;
  l.ratio_floor_bytes = 1;
  l.max_ratio = 1;
  l.max_bytes = 1;
  EXPECT_EQ(read_all_error(dir / "plain.bin", l), "");
  const DecompressionLimits d = DecompressionLimits::from_environment();
  EXPECT_EQ(d.max_ratio, 1000);
  EXPECT_EQ(d.max_bytes, std::uint64_t{1} << 40);
  setenv("FLASHSIM_MAX_DECOMPRESSION_RATIO", "5e3", 1);
  EXPECT_EQ(DecompressionLimits::from_environment().max_ratio, 5000);
  setenv("FLASHSIM_MAX_DECOMPRESSION_RATIO", "lots", 1);
  EXPECT_INPUT_ERROR(DecompressionLimits::from_environment(), "FLASHSIM_MAX_DECOMPRESSION_RATIO=lots: expected a number");
  unsetenv("FLASHSIM_MAX_DECOMPRESSION_RATIO");
}

}  // namespace
}  // namespace flashsim
