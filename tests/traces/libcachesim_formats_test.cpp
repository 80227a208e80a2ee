// libCacheSim's other trace formats (txt, vscsi, twr, lcs) and zstd input:
// hand-made files with the exact byte layout of libCacheSim's readers
// (traceReader/), hand-computed records, every malformed input named, and
// the shared cloudPhysics sample written in each format read back equal.
#include <zstd.h>

#include <cstring>
#include <fstream>
#include <limits>

#include "sim/core/errors.h"
#include "tests/support/shared_data.h"
#include "tests/support/temp_dir.h"
#include "tests/traces/trace_test_util.h"
#include "traces/byte_stream.h"
#include "traces/hdf5_trace.h"
#include "traces/trace_formats.h"

namespace flashsim {
namespace {

using test::TempDir;

// Little-endian byte builder.
struct Bytes {
  std::vector<unsigned char> b;
  template <class T>
  Bytes& put(T v) {
    const auto at = b.size();
    b.resize(at + sizeof(T));
    std::memcpy(b.data() + at, &v, sizeof(T));
    return *this;
  }
  Bytes& append(const Bytes& o) {
    b.insert(b.end(), o.b.begin(), o.b.end());
    return *this;
  }
};

void write_file(const std::filesystem::path& p, const std::vector<unsigned char>& bytes) {
  std::ofstream out(p, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

void write_text(const std::filesystem::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary);
  out << text;
}

// One zstd frame of `data` (level 3), with a content checksum when asked.
std::vector<unsigned char> zstd_compress(const std::vector<unsigned char>& data, bool checksum = false) {
  std::vector<unsigned char> out(ZSTD_compressBound(data.size()));
  ZSTD_CCtx* c = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, 3);
  ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, checksum ? 1 : 0);
  const std::size_t n = ZSTD_compress2(c, out.data(), out.size(), data.data(), data.size());
  ZSTD_freeCCtx(c);
  EXPECT_FALSE(ZSTD_isError(n)) << ZSTD_getErrorName(n);
  out.resize(n);
  return out;
}

std::vector<unsigned char> read_bytes(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// --- vscsi -----------------------------------------------------------------

// Version 1, 32 bytes: u32 sn | u32 len | u32 nSG | u16 cmd | u16 ver | u64 lbn | u64 ts.
Bytes vscsi1(std::uint32_t len, std::uint16_t cmd, std::uint64_t lbn, std::uint64_t ts_us, std::uint16_t ver = 0x0100) {
  Bytes r;
  r.put<std::uint32_t>(7).put(len).put<std::uint32_t>(1).put(cmd).put(ver).put(lbn).put(ts_us);
  return r;
}

// Version 2, 40 bytes: u16 cmd | u16 ver | u32 sn | u32 len | u32 nSG | u64 lbn | u64 ts | u64 rt.
Bytes vscsi2(std::uint32_t len, std::uint16_t cmd, std::uint64_t lbn, std::uint64_t ts_us) {
  Bytes r;
  r.put(cmd).put<std::uint16_t>(0x0200).put<std::uint32_t>(9).put(len).put<std::uint32_t>(1).put(lbn).put(ts_us).put<std::uint64_t>(55);
  return r;
}

TEST(LibCacheSimFormats, VscsiVersion1MapsFields) {
  TempDir dir;
  Bytes f;
  f.append(vscsi1(512, 0x2a, 1000, 1'500'000)).append(vscsi1(4096, 0x28, 2000, 2'000'001));
  f.append(vscsi1(8, 0x00, 1000, 2'000'001));
  ASSERT_EQ(f.b.size(), 96u);
  write_file(dir / "t.vscsi", f.b);
  auto src = open_trace(dir / "t.vscsi");  // format from the name
  EXPECT_EQ(src->meta().record_count, 3u);
  EXPECT_FALSE(src->meta().has_next_use);
  const auto r = test::read_all(*src, 2);
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0].time_ns, 1'500'000'000);
  EXPECT_EQ(r[0].block_id, 1000u);
  EXPECT_EQ(r[0].bytes, 512u);
  EXPECT_EQ(r[0].op, AccessOp::write);  // WRITE(10)
  EXPECT_EQ(r[1].time_ns, 2'000'001'000);
  EXPECT_EQ(r[1].block_id, 2000u);
  EXPECT_EQ(r[1].bytes, 4096u);
  EXPECT_EQ(r[1].op, AccessOp::read);  // READ(10)
  EXPECT_EQ(r[2].op, AccessOp::read);  // any other command
  EXPECT_EQ(r[2].next_use_index, kNeverAccessedAgain);
}

TEST(LibCacheSimFormats, VscsiVersion2MapsFields) {
  TempDir dir;
  Bytes f;
  f.append(vscsi2(1024, 0x8a, 77, 10)).append(vscsi2(512, 0x88, 78, 11));
  write_file(dir / "t.vscsi", f.b);
  auto src = open_trace(dir / "t.vscsi", "vscsi");
  EXPECT_EQ(src->meta().record_count, 2u);
  EXPECT_NE(src->meta().source.find("vscsi2"), std::string::npos);
  const auto r = test::read_all(*src);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].time_ns, 10'000);
  EXPECT_EQ(r[0].block_id, 77u);
  EXPECT_EQ(r[0].bytes, 1024u);
  EXPECT_EQ(r[0].op, AccessOp::write);  // WRITE(16)
  EXPECT_EQ(r[1].time_ns, 11'000);
  EXPECT_EQ(r[1].op, AccessOp::read);  // READ(16)
}

TEST(LibCacheSimFormats, VscsiMalformedInputIsNamed) {
  TempDir dir;
  // Neither version field says 1 or 2.
  Bytes bad;
  bad.append(vscsi1(512, 0x28, 1, 1, 0x0300)).append(vscsi1(512, 0x28, 2, 2, 0x0300));
  write_file(dir / "bad.vscsi", bad.b);
  EXPECT_INPUT_ERROR(open_trace(dir / "bad.vscsi"), (dir / "bad.vscsi").string(), "not a vscsi trace");
  // Shorter than one record.
  write_file(dir / "short.vscsi", std::vector<unsigned char>(20, 0));
  EXPECT_INPUT_ERROR(open_trace(dir / "short.vscsi"), "only 20 bytes");
  // Two whole records and 5 bytes of a third.
  Bytes cut;
  cut.append(vscsi1(512, 0x28, 1, 1)).append(vscsi1(512, 0x28, 2, 2));
  cut.b.resize(cut.b.size() + 5);
  write_file(dir / "cut.vscsi", cut.b);
  EXPECT_INPUT_ERROR(open_trace(dir / "cut.vscsi"), "truncated vscsi trace", "record 2 is incomplete",
                     "5 of 32 bytes");
  // A record whose version field changes; then one of len 0.
  Bytes mixed;
  mixed.append(vscsi1(512, 0x28, 1, 1)).append(vscsi1(512, 0x28, 2, 2)).append(vscsi1(512, 0x28, 3, 3, 0x0200));
  write_file(dir / "mixed.vscsi", mixed.b);
  auto m = open_trace(dir / "mixed.vscsi");
  EXPECT_INPUT_ERROR(test::read_all(*m), "record 2", "version field 2 in a version-1 vscsi trace");
  Bytes zero;
  zero.append(vscsi1(512, 0x28, 1, 1)).append(vscsi1(0, 0x00, 2, 2)).append(vscsi1(512, 0x28, 3, 3));
  write_file(dir / "zero.vscsi", zero.b);
  auto z = open_trace(dir / "zero.vscsi");
  EXPECT_INPUT_ERROR(test::read_all(*z), (dir / "zero.vscsi").string(), "record 1", "len == 0");
  auto skipped = open_trace(dir / "zero.vscsi", "", {{"skip_zero_size", "1"}});
  EXPECT_EQ(skipped->meta().record_count, 0u);  // unknown once records may be dropped
  const auto kept = test::read_all(*skipped);
  ASSERT_EQ(kept.size(), 2u);
  EXPECT_EQ(kept[1].block_id, 3u);
}

// --- twr -------------------------------------------------------------------

// 20 bytes: u32 time | u64 id | u32 key_size:10 (bits 22-31), value_size:22 | u32 op:8 (bits 24-31), ttl:24.
Bytes twr(std::uint32_t t, std::uint64_t id, std::uint32_t key, std::uint32_t value, std::uint32_t op,
          std::uint32_t ttl) {
  Bytes r;
  r.put(t).put(id).put<std::uint32_t>((key << 22) | value).put<std::uint32_t>((op << 24) | ttl);
  return r;
}

TEST(LibCacheSimFormats, TwrMapsSizesAndOps) {
  TempDir dir;
  Bytes f;
  f.append(twr(3, 0xABCDEF, 10, 100, 1, 3600))   // get: 110 bytes
      .append(twr(3, 42, 1023, 4194303, 3, 0))   // set, the largest key and value sizes
      .append(twr(4, 0xABCDEF, 10, 100, 9, 0));  // delete
  ASSERT_EQ(f.b.size(), 60u);
  write_file(dir / "t.twr", f.b);
  auto src = open_trace(dir / "t.twr");
  EXPECT_EQ(src->meta().record_count, 3u);
  const auto r = test::read_all(*src);
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0].time_ns, 3'000'000'000);
  EXPECT_EQ(r[0].block_id, 0xABCDEFu);
  EXPECT_EQ(r[0].bytes, 110u);
  EXPECT_EQ(r[0].op, AccessOp::read);
  EXPECT_EQ(r[1].bytes, 1023u + 4194303u);
  EXPECT_EQ(r[1].op, AccessOp::write);
  EXPECT_EQ(r[2].time_ns, 4'000'000'000);
  EXPECT_EQ(r[2].op, AccessOp::write);
}

TEST(LibCacheSimFormats, TwrMalformedInputIsNamed) {
  TempDir dir;
  Bytes f;
  f.append(twr(1, 1, 4, 4, 1, 0)).append(twr(1, 2, 4, 4, 200, 0));
  write_file(dir / "op.twr", f.b);
  auto src = open_trace(dir / "op.twr");
  EXPECT_INPUT_ERROR(test::read_all(*src), "record 1", "op 200 is not a libCacheSim operation");
  Bytes z;
  z.append(twr(1, 1, 4, 4, 1, 0)).append(twr(1, 2, 0, 0, 1, 0)).append(twr(2, 3, 8, 0, 2, 0));
  write_file(dir / "zero.twr", z.b);
  auto zero = open_trace(dir / "zero.twr");
  EXPECT_INPUT_ERROR(test::read_all(*zero), "record 1", "size 0");
  // libCacheSim's rule: get/gets of value size 0 are dropped (record 2 too, though its key has 8 bytes).
  auto skipped = open_trace(dir / "zero.twr", "twr", {{"skip_zero_size", "1"}});
  const auto kept = test::read_all(*skipped);
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_EQ(kept[0].block_id, 1u);
  f.b.resize(f.b.size() - 1);
  write_file(dir / "cut.twr", f.b);
  EXPECT_INPUT_ERROR(open_trace(dir / "cut.twr"), "39 bytes is not a multiple of 20", "record 1 is incomplete",
                     "19 of 20 bytes");
}

// --- lcs -------------------------------------------------------------------

constexpr std::uint64_t kLcsMagic = 0x123456789abcdef0ull;

// The 8192-byte header: magic | version | stat (stat.version, n_req, …) | … | end magic.
Bytes lcs_header(std::uint64_t version, std::int64_t n_req, std::uint64_t end_magic = kLcsMagic) {
  Bytes h;
  h.b.assign(8192, 0);
  std::memcpy(h.b.data(), &kLcsMagic, 8);
  std::memcpy(h.b.data() + 8, &version, 8);
  const std::int64_t stat_version = 1;
  std::memcpy(h.b.data() + 16, &stat_version, 8);
  std::memcpy(h.b.data() + 24, &n_req, 8);
  std::memcpy(h.b.data() + 8184, &end_magic, 8);
  return h;
}

Bytes lcs_v1(std::uint32_t t, std::uint64_t id, std::uint32_t size, std::int64_t next) {
  Bytes r;
  r.put(t).put(id).put(size).put(next);
  return r;
}
Bytes lcs_v2(std::uint32_t t, std::uint64_t id, std::uint32_t size, std::uint32_t op, std::uint32_t tenant,
             std::int64_t next) {
  Bytes r;
  r.put(t).put(id).put(size).put<std::uint32_t>(op | (tenant << 8)).put(next);
  return r;
}
Bytes lcs_v3(std::uint32_t t, std::uint64_t id, std::int64_t size, std::uint32_t op, std::uint32_t ttl,
             std::int64_t next, int features) {
  Bytes r;
  r.put(t).put(id).put(size).put<std::uint32_t>(op | (5u << 8)).put(ttl).put(next);
  for (int i = 0; i < features; ++i) r.put<std::uint32_t>(0xF0F0F0F0u + static_cast<std::uint32_t>(i));
  return r;
}

TEST(LibCacheSimFormats, LcsVersion1IsOracleGeneralWithAHeader) {
  TempDir dir;
  // A B A C B: A's next after request 0 is request 2 (vtime 3), B's after 1 is 4 (vtime 5).
  Bytes f = lcs_header(1, 5);
  f.append(lcs_v1(10, 0xA, 100, 3)).append(lcs_v1(10, 0xB, 200, 5)).append(lcs_v1(11, 0xA, 100, -1));
  f.append(lcs_v1(12, 0xC, 300, -1)).append(lcs_v1(12, 0xB, 200, std::numeric_limits<std::int64_t>::max()));
  ASSERT_EQ(f.b.size(), 8192u + 5 * 24);
  write_file(dir / "t.lcs", f.b);
  auto src = open_trace(dir / "t.lcs");
  EXPECT_TRUE(src->meta().has_next_use);
  EXPECT_EQ(src->meta().record_count, 5u);
  const auto r = test::read_all(*src, 2);
  ASSERT_EQ(r.size(), 5u);
  EXPECT_EQ(r[0].time_ns, 10'000'000'000);
  EXPECT_EQ(r[3].block_id, 0xCu);
  EXPECT_EQ(r[3].bytes, 300u);
  EXPECT_EQ(r[0].next_use_index, 2u);
  EXPECT_EQ(r[1].next_use_index, 4u);
  EXPECT_EQ(r[2].next_use_index, kNeverAccessedAgain);
  EXPECT_EQ(r[4].next_use_index, kNeverAccessedAgain);
  EXPECT_EQ(r[0].op, AccessOp::read);
}

TEST(LibCacheSimFormats, LcsVersion2ReadsOpAndDropsTenant) {
  TempDir dir;
  Bytes f = lcs_header(2, 3);
  f.append(lcs_v2(5, 0xA, 100, 13, 7, 3)).append(lcs_v2(6, 0xB, 200, 1, 0xFFFFFF, -1));
  f.append(lcs_v2(6, 0xA, 100, 12, 7, -1));
  ASSERT_EQ(f.b.size(), 8192u + 3 * 28);
  write_file(dir / "t.lcs", f.b);
  const auto r = test::read_all(*open_trace(dir / "t.lcs"));
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0].op, AccessOp::write);  // OP_WRITE (13)
  EXPECT_EQ(r[1].op, AccessOp::read);   // OP_GET (1)
  EXPECT_EQ(r[2].op, AccessOp::read);   // OP_READ (12)
  EXPECT_EQ(r[0].next_use_index, 2u);
  EXPECT_EQ(r[1].block_id, 0xBu);
  EXPECT_EQ(r[1].bytes, 200u);
  EXPECT_EQ(r[1].stream_id, 0u);  // tenant is not a stream
  EXPECT_EQ(r[2].time_ns, 6'000'000'000);
}

TEST(LibCacheSimFormats, LcsVersions3To8ReadTheV3BaseAtEachStride) {
  // Record bytes by version: v3 36, then 1, 2, 4, 8, 16 features of 4 bytes.
  const int features[] = {0, 0, 0, 0, 1, 2, 4, 8, 16};
  const std::size_t stride[] = {0, 24, 28, 36, 40, 44, 52, 68, 100};
  for (int v = 3; v <= 8; ++v) {
    SCOPED_TRACE("lcs v" + std::to_string(v));
    TempDir dir;
    Bytes f = lcs_header(static_cast<std::uint64_t>(v), 2);
    f.append(lcs_v3(1, 0x11, 5'000'000'000, 3, 60, 2, features[v]));  // set of a 5 GB object (i64 size)
    f.append(lcs_v3(2, 0x11, 5'000'000'000, 1, 60, -1, features[v]));
    ASSERT_EQ(f.b.size(), 8192u + 2 * stride[v]);
    write_file(dir / "t.lcs.bin", f.b);
    const auto r = test::read_all(*open_trace(dir / "t.lcs.bin"));
    ASSERT_EQ(r.size(), 2u);
    EXPECT_EQ(r[0].block_id, 0x11u);
    EXPECT_EQ(r[0].bytes, 5'000'000'000u);
    EXPECT_EQ(r[0].op, AccessOp::write);
    EXPECT_EQ(r[0].next_use_index, 1u);
    EXPECT_EQ(r[1].time_ns, 2'000'000'000);
    EXPECT_EQ(r[1].bytes, 5'000'000'000u);
    EXPECT_EQ(r[1].op, AccessOp::read);
    EXPECT_EQ(r[1].next_use_index, kNeverAccessedAgain);
  }
}

TEST(LibCacheSimFormats, LcsMalformedInputIsNamed) {
  TempDir dir;
  const auto p = dir / "x.lcs";
  Bytes f = lcs_header(1, 2);
  f.append(lcs_v1(1, 1, 8, -1)).append(lcs_v1(1, 2, 8, -1));
  // Bad start magic.
  Bytes bad = f;
  bad.b[0] ^= 0xFF;
  write_file(p, bad.b);
  EXPECT_INPUT_ERROR(open_trace(p), p.string(), "not an lcs trace", "start magic");
  // Bad end magic.
  Bytes bad_end = lcs_header(1, 2, 42);
  write_file(p, bad_end.b);
  EXPECT_INPUT_ERROR(open_trace(p), "end magic", "0x2a");
  // A version libCacheSim does not define.
  write_file(p, lcs_header(9, 0).b);
  EXPECT_INPUT_ERROR(open_trace(p), "lcs version 9 is not one libCacheSim defines");
  write_file(p, lcs_header(0, 0).b);
  EXPECT_INPUT_ERROR(open_trace(p), "lcs version 0");
  // The older layout: 1 KiB header with a struct format string after the magic.
  Bytes old;
  old.b.assign(1024, 0);
  std::memcpy(old.b.data(), &kLcsMagic, 8);
  std::memcpy(old.b.data() + 8, "<IQIq", 5);
  write_file(p, old.b);
  EXPECT_INPUT_ERROR(open_trace(p), "older lcs layout", "'<IQIq'");
  // Short header.
  Bytes short_header = lcs_header(1, 0);
  short_header.b.resize(4000);
  write_file(p, short_header.b);
  EXPECT_INPUT_ERROR(open_trace(p), "short lcs header: 4000 bytes");
  // Truncated record; header count disagreeing with the file.
  Bytes cut = f;
  cut.b.resize(cut.b.size() - 3);
  write_file(p, cut.b);
  EXPECT_INPUT_ERROR(open_trace(p), "truncated lcs trace", "45 bytes after the 8192-byte header", "record 1",
                     "21 of 24 bytes");
  Bytes more = lcs_header(1, 3);
  more.append(lcs_v1(1, 1, 8, -1)).append(lcs_v1(1, 2, 8, -1));
  write_file(p, more.b);
  EXPECT_INPUT_ERROR(open_trace(p), "header says 3 requests but the file holds 2");
  // Size 0, and a negative v3 size.
  Bytes zero = lcs_header(1, 2);
  zero.append(lcs_v1(1, 1, 8, -1)).append(lcs_v1(1, 2, 0, -1));
  write_file(p, zero.b);
  auto z = open_trace(p);
  EXPECT_INPUT_ERROR(test::read_all(*z), p.string(), "record 1", "obj_size 0");
  auto skipped = open_trace(p, "lcs", {{"skip_zero_size", "1"}});
  EXPECT_FALSE(skipped->meta().has_next_use);
  EXPECT_EQ(test::read_all(*skipped).size(), 1u);
  Bytes negative = lcs_header(3, 1);
  negative.append(lcs_v3(1, 1, -5, 1, 0, -1, 0));
  write_file(p, negative.b);
  auto n = open_trace(p);
  EXPECT_INPUT_ERROR(test::read_all(*n), "record 0", "obj_size -5 < 0");
  // A next vtime not after its own request.
  Bytes back = lcs_header(1, 2);
  back.append(lcs_v1(1, 1, 8, 2)).append(lcs_v1(1, 2, 8, 1));
  write_file(p, back.b);
  auto b = open_trace(p);
  EXPECT_INPUT_ERROR(test::read_all(*b), "record 1", "next_access_vtime 1 is not after this request");
}

TEST(LibCacheSimFormats, LcsRoundTripsThroughHdf5) {
  TempDir dir;
  Bytes f = lcs_header(2, 3);
  f.append(lcs_v2(5, 0xA, 100, 13, 0, 3)).append(lcs_v2(6, 0xB, 200, 1, 0, -1)).append(lcs_v2(6, 0xA, 100, 1, 0, -1));
  write_file(dir / "t.lcs", f.b);
  auto src = open_trace(dir / "t.lcs");
  const auto direct = test::read_all(*src);
  {
    auto sink = create_trace_sink(dir / "t.h5", src->meta());
    EXPECT_EQ(copy_trace(*src, *sink), 3u);
  }
  Hdf5TraceSource h(dir / "t.h5");
  EXPECT_TRUE(h.meta().has_next_use);
  test::expect_same_records(direct, test::read_all(h));
}

// --- txt -------------------------------------------------------------------

TEST(LibCacheSimFormats, TxtReadsOneIdPerLine) {
  TempDir dir;
  // Empty lines skipped, CRLF and blanks dropped, 0x-hex, a last line without "\n".
  write_text(dir / "t.txt", "5\n\n0x10\r\n 7 \n010\n5");
  auto src = open_trace(dir / "t.txt");
  EXPECT_EQ(src->meta().record_count, 0u);
  const auto r = test::read_all(*src, 3);
  ASSERT_EQ(r.size(), 5u);
  const std::uint64_t ids[] = {5, 16, 7, 10, 5};
  for (std::size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(r[i].block_id, ids[i]) << i;
    EXPECT_EQ(r[i].bytes, 1u);
    EXPECT_EQ(r[i].time_ns, 0);
    EXPECT_EQ(r[i].op, AccessOp::read);
  }
  // A second pass gives the same records.
  test::expect_same_records(r, test::read_all(*src, 2));
}

TEST(LibCacheSimFormats, TxtTextIdsAndObjectBytes) {
  TempDir dir;
  write_text(dir / "t.txt", "apple\nbanana pie\napple\ncherry\nbanana pie\n");
  auto src = open_trace(dir / "t.txt", "txt", {{"ids", "text"}, {"object_bytes", "4KiB"}});
  const auto r = test::read_all(*src);
  ASSERT_EQ(r.size(), 5u);
  const std::uint64_t ids[] = {1, 2, 1, 3, 2};  // first-seen order, from 1
  for (std::size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(r[i].block_id, ids[i]) << i;
    EXPECT_EQ(r[i].bytes, 4096u);
  }
  test::expect_same_records(r, test::read_all(*src));  // numbering restarts on rewind
}

TEST(LibCacheSimFormats, TxtBadLineIsNamed) {
  TempDir dir;
  write_text(dir / "t.txt", "1\n\n2\n3 4096\n");
  auto src = open_trace(dir / "t.txt");
  EXPECT_INPUT_ERROR(test::read_all(*src), (dir / "t.txt").string(), "line 4 (record 2)", "'3 4096'",
                     "not an unsigned integer");
  write_text(dir / "neg.txt", "-1\n");
  auto neg = open_trace(dir / "neg.txt");
  EXPECT_INPUT_ERROR(test::read_all(*neg), "line 1 (record 0)");
}

// --- zstd ------------------------------------------------------------------

// An oracleGeneral file of n requests over 97 objects, with correct vtimes.
std::vector<unsigned char> oracle_bytes(std::size_t n) {
  Bytes f;
  std::vector<std::int64_t> next(n, -1);
  std::vector<std::size_t> last(97, SIZE_MAX);
  for (std::size_t i = n; i-- > 0;) {
    const std::size_t id = (i * 31) % 97;
    if (last[id] != SIZE_MAX) next[i] = static_cast<std::int64_t>(last[id]) + 1;
    last[id] = i;
  }
  for (std::size_t i = 0; i < n; ++i) {
    f.put<std::uint32_t>(static_cast<std::uint32_t>(i / 10))
        .put<std::uint64_t>((i * 31) % 97)
        .put<std::uint32_t>(static_cast<std::uint32_t>(512 + (i * 31) % 97))
        .put(next[i]);
  }
  return f.b;
}

TEST(LibCacheSimFormats, ZstdInputReadsTheSameRecords) {
  TempDir dir;
  // 60,000 records (1.44 MB): more than one output buffer and many compressed reads.
  const auto plain = oracle_bytes(60'000);
  write_file(dir / "t.oracleGeneral.bin", plain);
  write_file(dir / "t.oracleGeneral.bin.zst", zstd_compress(plain));
  auto a = open_trace(dir / "t.oracleGeneral.bin");
  auto b = open_trace(dir / "t.oracleGeneral.bin.zst");
  EXPECT_EQ(a->meta().record_count, 60'000u);
  EXPECT_EQ(b->meta().record_count, 0u);  // a stream does not say its size
  EXPECT_TRUE(b->meta().has_next_use);
  const auto ra = test::read_all(*a, 7000);
  ASSERT_EQ(ra.size(), 60'000u);
  test::expect_same_records(ra, test::read_all(*b, 7000));
  test::expect_same_records(ra, test::read_all(*b, 333));  // after a rewind
  // Found by its magic bytes too, under a name without .zst.
  write_file(dir / "magic.oracleGeneral", zstd_compress(plain));
  test::expect_same_records(ra, test::read_all(*open_trace(dir / "magic.oracleGeneral")));
}

TEST(LibCacheSimFormats, ZstdWorksUnderEveryStreamedFormat) {
  TempDir dir;
  // Two concatenated frames are one stream.
  Bytes v;
  v.append(vscsi2(1024, 0x2a, 77, 10)).append(vscsi2(512, 0x28, 78, 11));
  auto frames = zstd_compress(v.b);
  const auto second = zstd_compress(vscsi2(4096, 0x28, 79, 12).b);
  frames.insert(frames.end(), second.begin(), second.end());
  write_file(dir / "t.vscsi.zst", frames);
  const auto rv = test::read_all(*open_trace(dir / "t.vscsi.zst"));
  ASSERT_EQ(rv.size(), 3u);
  EXPECT_EQ(rv[2].block_id, 79u);
  EXPECT_EQ(rv[2].bytes, 4096u);

  write_file(dir / "t.txt.zst", zstd_compress({'1', '\n', '2', '\n', '1', '\n'}));
  const auto rt = test::read_all(*open_trace(dir / "t.txt.zst"));
  ASSERT_EQ(rt.size(), 3u);
  EXPECT_EQ(rt[1].block_id, 2u);

  Bytes l = lcs_header(1, 2);
  l.append(lcs_v1(1, 1, 8, 2)).append(lcs_v1(1, 1, 8, -1));
  write_file(dir / "t.lcs.zst", zstd_compress(l.b));
  auto lcs = open_trace(dir / "t.lcs.zst");
  EXPECT_EQ(lcs->meta().record_count, 2u);  // the header's n_req
  const auto rl = test::read_all(*lcs);
  ASSERT_EQ(rl.size(), 2u);
  EXPECT_EQ(rl[0].next_use_index, 1u);
  // A header promising more requests than the stream holds fails at its end.
  Bytes more = lcs_header(1, 3);
  more.append(lcs_v1(1, 1, 8, -1));
  write_file(dir / "more.lcs.zst", zstd_compress(more.b));
  auto m = open_trace(dir / "more.lcs.zst");
  EXPECT_INPUT_ERROR(test::read_all(*m), "record 1", "header says 3 requests");

  write_file(dir / "t.twr.zst", zstd_compress(twr(1, 9, 4, 4, 1, 0).b));
  const auto rw = test::read_all(*open_trace(dir / "t.twr.zst"));
  ASSERT_EQ(rw.size(), 1u);
  EXPECT_EQ(rw[0].bytes, 8u);

  // A record cut inside the compressed data is named like a plain one.
  Bytes cut = twr(1, 9, 4, 4, 1, 0);
  cut.b.resize(30);
  write_file(dir / "cut.twr.zst", zstd_compress(cut.b));
  auto c = open_trace(dir / "cut.twr.zst");
  EXPECT_INPUT_ERROR(test::read_all(*c), "record 1", "incomplete record (10 of 20 bytes)");
}

TEST(LibCacheSimFormats, TruncatedZstdNamesTheOffset) {
  TempDir dir;
  const auto z = zstd_compress(oracle_bytes(2000));
  auto cut = z;
  cut.resize(z.size() - 7);
  const auto p = dir / "cut.oracleGeneral.zst";
  write_file(p, cut);
  auto src = open_trace(p);
  EXPECT_INPUT_ERROR(test::read_all(*src), p.string(), "truncated zstd stream",
                     "ends at compressed byte " + std::to_string(cut.size()) + " inside a frame");
}

TEST(LibCacheSimFormats, CorruptZstdNamesTheOffset) {
  TempDir dir;
  auto z = zstd_compress(oracle_bytes(2000), true);
  for (std::size_t i = z.size() / 3; i < z.size() / 3 + 8; ++i) z[i] ^= 0x5A;
  const auto p = dir / "bad.oracleGeneral.zst";
  write_file(p, z);
  auto src = open_trace(p);
  EXPECT_INPUT_ERROR(test::read_all(*src), p.string(), "corrupt zstd stream at compressed byte");
  // Not zstd at all, though named so.
  write_file(dir / "no.txt.zst", {'1', '\n', '2', '\n'});
  auto no = open_trace(dir / "no.txt.zst");
  EXPECT_INPUT_ERROR(test::read_all(*no), "corrupt zstd stream at compressed byte 4", "Unknown frame descriptor");
}

TEST(LibCacheSimFormats, ByteStreamLinesAndBytesAcrossSmallBuffers) {
  TempDir dir;
  std::string text;
  for (int i = 0; i < 500; ++i) text += std::to_string(i * 7919) + (i % 3 == 0 ? "\r\n" : "\n");
  const std::vector<unsigned char> data(text.begin(), text.end());
  write_file(dir / "a.txt.zst", zstd_compress(data));
  ByteStream s(dir / "a.txt.zst", 64);  // lines span many 64-byte refills
  EXPECT_TRUE(s.compressed());
  EXPECT_FALSE(s.size_bytes().has_value());
  std::string line;
  for (int i = 0; i < 500; ++i) {
    ASSERT_TRUE(s.read_line(line)) << i;
    EXPECT_EQ(line, std::to_string(i * 7919)) << i;
  }
  EXPECT_FALSE(s.read_line(line));
  EXPECT_EQ(s.position(), data.size());
  s.rewind();
  std::vector<unsigned char> back(data.size() + 10);
  EXPECT_EQ(s.read(back.data(), back.size()), data.size());
  back.resize(data.size());
  EXPECT_EQ(back, data);
}

TEST(LibCacheSimFormats, FormatsThatDoNotStreamRefuseZstd) {
  TempDir dir;
  write_file(dir / "t.csv.zst", zstd_compress({'a', '\n'}));
  // csv, kineto and hdf5 read .zst too (tests/traces/zstd_input_test.cpp); a raw CUPTI capture does not.
  write_file(dir / "t.raw.zst", zstd_compress({'a', '\n'}));
  EXPECT_INPUT_ERROR(open_trace(dir / "t.raw.zst", "cupti"), "zstd-compressed, and the cupti reader does not decompress",
                     "zstd -d");
  EXPECT_EQ(detect_trace_format(dir / "t.csv.zst"), "csv");
  EXPECT_EQ(detect_trace_format("x.VSCSI.zst"), "vscsi");
  EXPECT_EQ(detect_trace_format("x.twr.bin.zst.22"), "twr");
  EXPECT_EQ(detect_trace_format("x.lcs"), "lcs");
  EXPECT_EQ(detect_trace_format("x.txt"), "txt");
  // An lcs file is known by its magic whatever its name.
  write_file(dir / "noext", lcs_header(1, 0).b);
  EXPECT_EQ(detect_trace_format(dir / "noext"), "lcs");
}

// --- the shared cloudPhysics sample in every format ---------------------------

TEST(LibCacheSimFormats, CloudPhysicsSampleReadsTheSameInEveryFormat) {
  FLASHSIM_REQUIRE_SHARED(bin, "traces/libcachesim/cloudPhysicsIO.oracleGeneral.bin");
  const auto og = test::read_all(*open_trace(bin), 5000);
  ASSERT_EQ(og.size(), 113872u);
  const auto raw = read_bytes(bin);
  ASSERT_EQ(raw.size(), 113872u * 24);
  // Write each format from the oracleGeneral fields (vscsi's ts in µs).
  Bytes v, t, l = lcs_header(1, 113872);
  std::string txt;
  for (std::size_t i = 0; i < og.size(); ++i) {
    const unsigned char* p = raw.data() + i * 24;
    std::uint32_t time, size;
    std::uint64_t id;
    std::memcpy(&time, p, 4);
    std::memcpy(&id, p + 4, 8);
    std::memcpy(&size, p + 12, 4);
    v.append(vscsi2(size, 0x28, id, std::uint64_t(time) * 1'000'000));
    t.append(twr(time, id, 0, size, 1, 0));
    l.b.insert(l.b.end(), p, p + 24);
    txt += std::to_string(id) + "\n";
  }
  TempDir dir;
  write_file(dir / "cp.vscsi", v.b);
  write_file(dir / "cp.twr", t.b);
  write_file(dir / "cp.lcs.zst", zstd_compress(l.b));
  write_text(dir / "cp.txt", txt);
  write_file(dir / "cp.oracleGeneral.zst", zstd_compress(raw));
  for (const char* name : {"cp.vscsi", "cp.twr", "cp.lcs.zst", "cp.txt", "cp.oracleGeneral.zst"}) {
    SCOPED_TRACE(name);
    const auto r = test::read_all(*open_trace(dir / name), 4096);
    ASSERT_EQ(r.size(), og.size());
    const bool txt_format = std::string(name) == "cp.txt";
    const bool next = std::string(name) == "cp.lcs.zst" || std::string(name) == "cp.oracleGeneral.zst";
    for (std::size_t i = 0; i < r.size(); ++i) {
      ASSERT_EQ(r[i].block_id, og[i].block_id) << i;
      ASSERT_EQ(r[i].bytes, txt_format ? 1u : og[i].bytes) << i;
      ASSERT_EQ(r[i].time_ns, txt_format ? 0 : og[i].time_ns) << i;
      if (next) {
        ASSERT_EQ(r[i].next_use_index, og[i].next_use_index) << i;
      }
    }
  }
}

}  // namespace
}  // namespace flashsim
