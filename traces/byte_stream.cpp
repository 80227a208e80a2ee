#include "traces/byte_stream.h"

#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "sim/core/errors.h"
#include "sim/core/memory_limit.h"
#include "traces/text_fields.h"

namespace flashsim {

namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

struct FileCloser {
  void operator()(std::FILE* f) const {
    if (f != nullptr) std::fclose(f);
  }
};

struct DctxFree {
  void operator()(ZSTD_DCtx* d) const { ZSTD_freeDCtx(d); }
};

// Appends code point `cp` (<= 0x10FFFF, not a surrogate) as UTF-8
// (the Unicode Standard, table 3-6); returns the bytes written (1 to 4).
std::size_t put_utf8(std::uint32_t cp, unsigned char* out) {
  if (cp < 0x80) {
    out[0] = static_cast<unsigned char>(cp);
    return 1;
  }
  if (cp < 0x800) {
    out[0] = static_cast<unsigned char>(0xC0 | (cp >> 6));
    out[1] = static_cast<unsigned char>(0x80 | (cp & 0x3F));
    return 2;
  }
  if (cp < 0x10000) {
    out[0] = static_cast<unsigned char>(0xE0 | (cp >> 12));
    out[1] = static_cast<unsigned char>(0x80 | ((cp >> 6) & 0x3F));
    out[2] = static_cast<unsigned char>(0x80 | (cp & 0x3F));
    return 3;
  }
  out[0] = static_cast<unsigned char>(0xF0 | (cp >> 18));
  out[1] = static_cast<unsigned char>(0x80 | ((cp >> 12) & 0x3F));
  out[2] = static_cast<unsigned char>(0x80 | ((cp >> 6) & 0x3F));
  out[3] = static_cast<unsigned char>(0x80 | (cp & 0x3F));
  return 4;
}

}  // namespace

Compression compression_of(const std::filesystem::path& path, StreamContent content) {
  const std::string name = trace_text::to_lower(path.filename().string());
  if (ends_with(name, ".zst") || ends_with(name, ".zst.22")) return Compression::zstd;
  std::unique_ptr<std::FILE, FileCloser> f(std::fopen(path.c_str(), "rb"));
  if (!f) return Compression::none;
  unsigned char head[4];
  const std::size_t n = std::fread(head, 1, 4, f.get());
  if (n == 4 && std::memcmp(head, kZstdMagic, 4) == 0) return Compression::zstd;
  const bool member = n == 4 && std::memcmp(head, kGzipMagic, 2) == 0 && head[2] == 8 && (head[3] & 0xE0) == 0;
  if (member && (ends_with(name, ".gz") || content == StreamContent::text)) return Compression::gzip;
  return Compression::none;
}

bool is_zstd_file(const std::filesystem::path& path) { return compression_of(path) == Compression::zstd; }

std::string name_without_compression(const std::filesystem::path& path) {
  std::string name = trace_text::to_lower(path.filename().string());
  for (const char* ext : {".zst.22", ".zst", ".gz"}) {
    if (ends_with(name, ext)) {
      name.resize(name.size() - std::strlen(ext));
      break;
    }
  }
  return name;
}

namespace {

// "1000", "0.5": a ratio cap as given.
std::string cap_text(double ratio) {
  char b[32];
  std::snprintf(b, sizeof b, "%g", ratio);
  return b;
}

}  // namespace

struct ByteStream::State {
  std::filesystem::path path;
  std::string where;
  std::unique_ptr<std::FILE, FileCloser> file;
  std::uint64_t file_bytes = 0;  // the file's own size
  Compression compression = Compression::none;
  StreamContent content = StreamContent::bytes;
  // Bytes handed out: [pos, end) of buf not yet taken.
  std::vector<unsigned char> buf;
  std::size_t pos = 0, end = 0;
  std::uint64_t buf_offset = 0;  // data offset of buf[0]
  std::uint64_t plain_read = 0;  // plain files: bytes read from the file
  // Compressed input and where it lies in the file.
  std::vector<unsigned char> in;
  std::uint64_t in_offset = 0;  // file offset of in[0]
  bool in_eof = false;
  // zstd
  std::unique_ptr<ZSTD_DCtx, DctxFree> dctx;
  ZSTD_inBuffer in_view{nullptr, 0, 0};
  bool frame_open = false;  // the last call that made progress left a frame unfinished
  // gzip
  z_stream zs{};
  bool zs_ready = false;
  bool member_open = false;
  std::uint64_t members = 0;  // gzip members begun
  std::uint64_t decoded = 0;  // decompressed bytes so far (messages, limits)
  DecompressionLimits limits;
  // Text: decompressed bytes staged for the byte-order mark and conversion.
  TextEncoding encoding = TextEncoding::as_is;
  bool detected = false;
  std::vector<unsigned char> raw;
  std::size_t raw_pos = 0, raw_end = 0;
  std::uint64_t raw_base = 0;  // decompressed offset of raw[0]
  bool raw_done = false;

  ~State() {
    if (zs_ready) inflateEnd(&zs);
  }

  std::size_t read_input() {
    in_offset += in_eof ? 0 : last_input;
    const std::size_t got = std::fread(in.data(), 1, in.size(), file.get());
    if (got == 0 && std::ferror(file.get())) {
      throw InputError(where + ": read failed at compressed byte " + std::to_string(in_offset));
    }
    last_input = got;
    in_eof = got == 0;
    return got;
  }
  std::size_t last_input = 0;  // bytes of the last read_input

  std::size_t decode_plain(unsigned char* dst, std::size_t cap) {
    const std::size_t got = std::fread(dst, 1, cap, file.get());
    if (got == 0 && std::ferror(file.get())) {
      throw InputError(where + ": read failed at byte " + std::to_string(plain_read));
    }
    plain_read += got;
    return got;
  }

  std::size_t decode_zstd(unsigned char* dst, std::size_t cap) {
    for (;;) {
      if (in_view.pos == in_view.size && !in_eof) in_view = ZSTD_inBuffer{in.data(), read_input(), 0};
      ZSTD_outBuffer out{dst, cap, 0};
      const std::size_t before = in_view.pos;
      const std::size_t ret = ZSTD_decompressStream(dctx.get(), &out, &in_view);
      if (ZSTD_isError(ret)) {
        throw InputError(where + ": corrupt zstd stream at compressed byte " + std::to_string(in_offset + in_view.pos) +
                         " (after " + std::to_string(decoded) + " decompressed bytes): " + ZSTD_getErrorName(ret));
      }
      // A hint of 0 means a frame just ended; only calls that moved data say
      // so (an idle call at a frame boundary asks for the next header).
      if (out.pos > 0 || in_view.pos > before) frame_open = ret != 0;
      if (out.pos > 0) return out.pos;
      if (in_eof && in_view.pos == in_view.size) {
        if (frame_open) {
          throw InputError(where + ": truncated zstd stream: the file ends at compressed byte " +
                           std::to_string(in_offset) + " inside a frame (after " + std::to_string(decoded) +
                           " decompressed bytes)");
        }
        return 0;
      }
    }
  }

  std::uint64_t gzip_file_offset() const {
    return in_offset + static_cast<std::uint64_t>(zs.next_in - static_cast<const Bytef*>(in.data()));
  }

  // Members one after another (RFC 1952 §2.2), as gzip(1) writes for
  // concatenated files.
  std::size_t decode_gzip(unsigned char* dst, std::size_t cap) {
    zs.next_out = dst;
    zs.avail_out = static_cast<uInt>(std::min<std::size_t>(cap, 1u << 30));
    const uInt room = zs.avail_out;
    while (zs.avail_out == room) {
      if (zs.avail_in == 0 && !in_eof) {
        const std::size_t got = read_input();
        zs.next_in = in.data();
        zs.avail_in = static_cast<uInt>(got);
      }
      if (zs.avail_in == 0 && in_eof) {
        if (member_open) {
          throw InputError(where + ": truncated gzip stream: the file ends at compressed byte " +
                           std::to_string(in_offset) + " inside member " + std::to_string(members) + " (after " +
                           std::to_string(decoded) + " decompressed bytes)");
        }
        break;
      }
      if (!member_open) {
        if (inflateReset(&zs) != Z_OK) throw Error(where + ": zlib could not reset its decoder");
        member_open = true;
        ++members;
      }
      const int ret = inflate(&zs, Z_NO_FLUSH);
      if (ret == Z_STREAM_END) {
        member_open = false;
      } else if (ret != Z_OK && ret != Z_BUF_ERROR) {
        if (members > 1 && zs.total_out == 0 && zs.total_in <= 2) {
          throw InputError(where + ": bytes after the gzip data at compressed byte " +
                           std::to_string(gzip_file_offset() - zs.total_in) +
                           " are not another gzip member (trailing data; remove it or give the file uncompressed)");
        }
        throw InputError(where + ": corrupt gzip stream at compressed byte " + std::to_string(gzip_file_offset()) +
                         " (after " + std::to_string(decoded + (room - zs.avail_out)) + " decompressed bytes): " +
                         (zs.msg != nullptr ? zs.msg : "zlib error " + std::to_string(ret)));
      }
    }
    return room - zs.avail_out;
  }

  std::size_t decode(unsigned char* dst, std::size_t cap) {
    std::size_t n = 0;
    switch (compression) {
      case Compression::none: n = decode_plain(dst, cap); break;
      case Compression::zstd: n = decode_zstd(dst, cap); break;
      case Compression::gzip: n = decode_gzip(dst, cap); break;
    }
    decoded += n;
    if (compression != Compression::none && n > 0) check_limits();
    return n;
  }

  std::uint64_t compressed_consumed() const {
    return compression == Compression::zstd ? in_offset + in_view.pos : gzip_file_offset();
  }

  void check_limits() const {
    const std::uint64_t in_bytes = std::max<std::uint64_t>(1, compressed_consumed());
    if (limits.max_bytes > 0 && decoded > limits.max_bytes) {
      throw InputError(where + ": decompresses to more than " + std::to_string(limits.max_bytes) + " bytes (" +
                       gib_text(static_cast<double>(limits.max_bytes)) + "; " + std::to_string(decoded) + " from " +
                       std::to_string(in_bytes) +
                       " compressed): over the cap FLASHSIM_MAX_DECOMPRESSED_BYTES (0 = none)");
    }
    if (limits.max_ratio > 0 && decoded >= limits.ratio_floor_bytes &&
        static_cast<double>(decoded) > limits.max_ratio * static_cast<double>(in_bytes)) {
      char ratio[32];
      std::snprintf(ratio, sizeof ratio, "%.0f", static_cast<double>(decoded) / static_cast<double>(in_bytes));
      throw InputError(where + ": decompresses " + ratio + ":1 (" + std::to_string(decoded) + " bytes from " +
                       std::to_string(in_bytes) + " compressed), above " + cap_text(limits.max_ratio) +
                       ":1: a decompression bomb, not a trace (recorded traces compress 5-12:1); if it is one, raise "
                       "FLASHSIM_MAX_DECOMPRESSION_RATIO (0 = none)");
    }
  }

  // Tops raw up to at least `want` bytes from raw_pos (fewer at the end).
  void stage(std::size_t want) {
    while (raw_end - raw_pos < want && !raw_done) {
      if (raw_pos > 0) {
        std::memmove(raw.data(), raw.data() + raw_pos, raw_end - raw_pos);
        raw_base += raw_pos;
        raw_end -= raw_pos;
        raw_pos = 0;
      }
      const std::size_t n = decode(raw.data() + raw_end, raw.size() - raw_end);
      raw_done = n == 0;
      raw_end += n;
    }
  }

  void detect_encoding() {
    detected = true;
    stage(64);
    const unsigned char* b = raw.data() + raw_pos;
    const std::size_t n = raw_end - raw_pos;
    // Compressed twice (a .gz of a .zst): the inner bytes are no text.
    if (compression != Compression::none &&
        ((n >= 4 && std::memcmp(b, kZstdMagic, 4) == 0) || (n >= 2 && std::memcmp(b, kGzipMagic, 2) == 0))) {
      throw InputError(where + ": the " + (compression == Compression::gzip ? "gzip" : "zstd") +
                       " data holds another compressed file (" +
                       (std::memcmp(b, kZstdMagic, std::min<std::size_t>(n, 4)) == 0 ? "zstd" : "gzip") +
                       " inside): decompress the outer layer first");
    }
    // UTF-16 without its mark: every other byte of ASCII text is NUL.
    if (n >= 8) {
      std::size_t even_nul = 0, odd_nul = 0;
      const std::size_t pairs = n / 2;
      for (std::size_t i = 0; i < pairs; ++i) {
        even_nul += b[2 * i] == 0;
        odd_nul += b[2 * i + 1] == 0;
      }
      const bool le = odd_nul == pairs && even_nul == 0, be = even_nul == pairs && odd_nul == 0;
      if (le || be) {
        const std::string order = le ? "UTF-16LE" : "UTF-16BE";
        throw InputError(where + ": looks like " + order + " text without a byte-order mark (every other byte is " +
                         "NUL); convert it (iconv -f " + order + " -t UTF-8 FILE) or save it with a byte-order mark");
      }
    }
    if (n >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF) {
      encoding = TextEncoding::utf8_bom;
      raw_pos += 3;
    } else if (n >= 2 && b[0] == 0xFF && b[1] == 0xFE) {
      encoding = TextEncoding::utf16le;
      raw_pos += 2;
    } else if (n >= 2 && b[0] == 0xFE && b[1] == 0xFF) {
      encoding = TextEncoding::utf16be;
      raw_pos += 2;
    }
  }

  std::uint32_t unit_at(std::size_t i) const {
    const unsigned char a = raw[i], b = raw[i + 1];
    return encoding == TextEncoding::utf16le ? (std::uint32_t{b} << 8) | a : (std::uint32_t{a} << 8) | b;
  }

  [[noreturn]] void bad_utf16(const std::string& why) const {
    throw InputError(where + ": not valid UTF-16 (the file starts with a UTF-16 byte-order mark) at byte " +
                     std::to_string(raw_base + raw_pos) + (compression != Compression::none ? " (decompressed)" : "") +
                     ": " + why);
  }

  // UTF-16 code units from raw to UTF-8 in buf (D91, D92): a surrogate pair
  // is one code point; a lone surrogate is an error, not a replacement.
  std::size_t convert_utf16() {
    std::size_t out = 0;
    while (out + 4 <= buf.size()) {
      stage(4);
      const std::size_t avail = raw_end - raw_pos;
      if (avail == 0) break;
      if (avail == 1) bad_utf16("the file ends inside a 2-byte code unit");
      std::uint32_t cp = unit_at(raw_pos);
      std::size_t used = 2;
      if (cp >= 0xD800 && cp <= 0xDBFF) {
        if (avail < 4) bad_utf16("a high surrogate at the end of the file");
        const std::uint32_t low = unit_at(raw_pos + 2);
        if (low < 0xDC00 || low > 0xDFFF) bad_utf16("a high surrogate not followed by a low one");
        cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
        used = 4;
      } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
        bad_utf16("a low surrogate without a high one before it");
      }
      out += put_utf8(cp, buf.data() + out);
      raw_pos += used;
    }
    return out;
  }

  std::size_t fill_text() {
    if (!detected) detect_encoding();
    if (encoding == TextEncoding::utf16le || encoding == TextEncoding::utf16be) return convert_utf16();
    if (raw_pos < raw_end) {  // what detection staged, then straight from the decoder
      const std::size_t n = std::min(raw_end - raw_pos, buf.size());
      std::memcpy(buf.data(), raw.data() + raw_pos, n);
      raw_pos += n;
      return n;
    }
    return raw_done ? 0 : decode(buf.data(), buf.size());
  }
};

namespace {

double env_number(const char* name, double fallback) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return fallback;
  char* end = nullptr;
  const double x = std::strtod(v, &end);
  if (end == v || *end != '\0' || !(x >= 0) || x > 1.8e19) {
    throw InputError(std::string(name) + "=" + v + ": expected a number >= 0 (0 = no cap)");
  }
  return x;
}

}  // namespace

DecompressionLimits DecompressionLimits::from_environment() {
  DecompressionLimits l;
  l.max_ratio = env_number("FLASHSIM_MAX_DECOMPRESSION_RATIO", l.max_ratio);
  l.max_bytes = static_cast<std::uint64_t>(env_number("FLASHSIM_MAX_DECOMPRESSED_BYTES", static_cast<double>(l.max_bytes)));
  return l;
}

void ByteStream::set_decompression_limits(const DecompressionLimits& limits) { state_->limits = limits; }

ByteStream::ByteStream(std::filesystem::path path, std::size_t buffer_bytes, StreamContent content)
    : state_(std::make_unique<State>()) {
  State& s = *state_;
  s.limits = DecompressionLimits::from_environment();
  s.path = std::move(path);
  s.where = s.path.string();
  s.content = content;
  std::error_code ec;
  const auto size = std::filesystem::file_size(s.path, ec);
  if (ec) throw InputError(s.where + ": cannot read: " + ec.message());
  s.file.reset(std::fopen(s.path.c_str(), "rb"));
  if (!s.file) throw InputError(s.where + ": cannot open for reading");
  s.compression = compression_of(s.path, content);
  s.file_bytes = size;
  s.buf.resize(std::max<std::size_t>(buffer_bytes, 64));
  if (content == StreamContent::text) s.raw.resize(s.buf.size());
  if (s.compression == Compression::zstd) {
    s.dctx.reset(ZSTD_createDCtx());
    if (!s.dctx) throw Error(s.where + ": out of memory for a zstd decoder");
    s.in.resize(ZSTD_DStreamInSize());
  } else if (s.compression == Compression::gzip) {
    if (inflateInit2(&s.zs, 16 + MAX_WBITS) != Z_OK) throw Error(s.where + ": out of memory for a gzip decoder");
    s.zs_ready = true;
    s.in.resize(std::size_t{1} << 17);
  }
  rewind();
}

ByteStream::~ByteStream() = default;

void ByteStream::rewind() {
  State& s = *state_;
  if (std::fseek(s.file.get(), 0, SEEK_SET) != 0) throw InputError(s.where + ": cannot seek to the start");
  s.pos = s.end = 0;
  s.buf_offset = 0;
  s.plain_read = 0;
  s.decoded = 0;
  s.in_offset = 0;
  s.last_input = 0;
  s.in_eof = false;
  if (s.compression == Compression::zstd) {
    ZSTD_DCtx_reset(s.dctx.get(), ZSTD_reset_session_only);
    s.in_view = ZSTD_inBuffer{s.in.data(), 0, 0};
    s.frame_open = false;
  } else if (s.compression == Compression::gzip) {
    s.zs.next_in = s.in.data();
    s.zs.avail_in = 0;
    s.member_open = false;
    s.members = 0;
  }
  s.encoding = TextEncoding::as_is;
  s.detected = false;
  s.raw_pos = s.raw_end = 0;
  s.raw_base = 0;
  s.raw_done = false;
}

bool ByteStream::refill() {
  State& s = *state_;
  s.buf_offset += s.end;
  s.pos = 0;
  s.end = s.content == StreamContent::text ? s.fill_text() : s.decode(s.buf.data(), s.buf.size());
  return s.end > 0;
}

std::size_t ByteStream::read(void* out, std::size_t n) {
  State& s = *state_;
  auto* dst = static_cast<unsigned char*>(out);
  std::size_t done = 0;
  while (done < n) {
    if (s.pos == s.end && !refill()) break;
    const std::size_t k = std::min(n - done, s.end - s.pos);
    std::memcpy(dst + done, s.buf.data() + s.pos, k);
    s.pos += k;
    done += k;
  }
  return done;
}

bool ByteStream::read_line(std::string& line, std::size_t max_bytes) {
  State& s = *state_;
  line.clear();
  bool any = false;
  const std::uint64_t start = position();
  for (;;) {
    if (s.pos == s.end && !refill()) break;
    any = true;
    const unsigned char* begin = s.buf.data() + s.pos;
    const auto* nl = static_cast<const unsigned char*>(std::memchr(begin, '\n', s.end - s.pos));
    if (nl == nullptr) {
      line.append(reinterpret_cast<const char*>(begin), s.end - s.pos);
      s.pos = s.end;
      if (line.size() > max_bytes) {
        throw InputError(s.where + ": a line longer than " + std::to_string(max_bytes) + " bytes at byte " +
                         std::to_string(start) + (s.compression != Compression::none ? " (decompressed)" : "") +
                         " (not a text trace?)");
      }
      continue;
    }
    line.append(reinterpret_cast<const char*>(begin), static_cast<std::size_t>(nl - begin));
    s.pos += static_cast<std::size_t>(nl - begin) + 1;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    return true;
  }
  if (!line.empty() && line.back() == '\r') line.pop_back();
  return any;
}

std::uint64_t ByteStream::position() const { return state_->buf_offset + state_->pos; }
std::optional<std::uint64_t> ByteStream::size_bytes() const {
  const State& s = *state_;
  if (s.compression != Compression::none || s.content == StreamContent::text) return std::nullopt;
  return s.file_bytes;
}
std::uint64_t ByteStream::file_position() const {
  const State& s = *state_;
  switch (s.compression) {
    case Compression::zstd: return s.in_offset + s.in_view.pos;
    case Compression::gzip: return s.gzip_file_offset();
    case Compression::none: break;
  }
  return s.content == StreamContent::text ? s.plain_read : position();
}
std::uint64_t ByteStream::file_size() const { return state_->file_bytes; }
Compression ByteStream::compression() const { return state_->compression; }
TextEncoding ByteStream::text_encoding() const { return state_->encoding; }
const std::string& ByteStream::where() const { return state_->where; }

}  // namespace flashsim
