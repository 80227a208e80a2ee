#include "traces/byte_stream.h"

#include <zstd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>

#include "sim/core/errors.h"
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

}  // namespace

bool is_zstd_file(const std::filesystem::path& path) {
  const std::string name = trace_text::to_lower(path.filename().string());
  if (ends_with(name, ".zst") || ends_with(name, ".zst.22")) return true;
  std::unique_ptr<std::FILE, FileCloser> f(std::fopen(path.c_str(), "rb"));
  if (!f) return false;
  unsigned char head[4];
  return std::fread(head, 1, 4, f.get()) == 4 && std::memcmp(head, kZstdMagic, 4) == 0;
}

std::string name_without_zstd(const std::filesystem::path& path) {
  std::string name = trace_text::to_lower(path.filename().string());
  for (const char* ext : {".zst.22", ".zst"}) {
    if (ends_with(name, ext)) {
      name.resize(name.size() - std::strlen(ext));
      break;
    }
  }
  return name;
}

struct ByteStream::State {
  std::filesystem::path path;
  std::string where;
  std::unique_ptr<std::FILE, FileCloser> file;
  std::optional<std::uint64_t> file_size;  // none for zstd: the data's size
  std::uint64_t file_bytes = 0;             // the file's own size
  bool zstd = false;
  // Decompressed (or plain) bytes: [pos, end) not yet handed out.
  std::vector<unsigned char> buf;
  std::size_t pos = 0, end = 0;
  std::uint64_t buf_offset = 0;  // data offset of buf[0]
  // zstd only: compressed input and where it lies in the file.
  std::unique_ptr<ZSTD_DCtx, DctxFree> dctx;
  std::vector<unsigned char> in;
  ZSTD_inBuffer in_view{nullptr, 0, 0};
  std::uint64_t in_offset = 0;  // file offset of in[0]
  bool in_eof = false;
  bool frame_open = false;  // the last call that made progress left a frame unfinished
};

ByteStream::ByteStream(std::filesystem::path path, std::size_t buffer_bytes) : state_(std::make_unique<State>()) {
  State& s = *state_;
  s.path = std::move(path);
  s.where = s.path.string();
  std::error_code ec;
  const auto size = std::filesystem::file_size(s.path, ec);
  if (ec) throw InputError(s.where + ": cannot read: " + ec.message());
  s.file.reset(std::fopen(s.path.c_str(), "rb"));
  if (!s.file) throw InputError(s.where + ": cannot open for reading");
  s.zstd = is_zstd_file(s.path);
  s.file_bytes = size;
  s.buf.resize(std::max<std::size_t>(buffer_bytes, 64));
  if (s.zstd) {
    s.dctx.reset(ZSTD_createDCtx());
    if (!s.dctx) throw Error(s.where + ": out of memory for a zstd decoder");
    s.in.resize(ZSTD_DStreamInSize());
  } else {
    s.file_size = size;
  }
  rewind();
}

ByteStream::~ByteStream() = default;

void ByteStream::rewind() {
  State& s = *state_;
  if (std::fseek(s.file.get(), 0, SEEK_SET) != 0) throw InputError(s.where + ": cannot seek to the start");
  s.pos = s.end = 0;
  s.buf_offset = 0;
  if (s.zstd) {
    ZSTD_DCtx_reset(s.dctx.get(), ZSTD_reset_session_only);
    s.in_view = ZSTD_inBuffer{s.in.data(), 0, 0};
    s.in_offset = 0;
    s.in_eof = false;
    s.frame_open = false;
  }
}

bool ByteStream::refill() {
  State& s = *state_;
  s.buf_offset += s.end;
  s.pos = s.end = 0;
  if (!s.zstd) {
    s.end = std::fread(s.buf.data(), 1, s.buf.size(), s.file.get());
    if (s.end == 0 && std::ferror(s.file.get())) {
      throw InputError(s.where + ": read failed at byte " + std::to_string(s.buf_offset));
    }
    return s.end > 0;
  }
  for (;;) {
    if (s.in_view.pos == s.in_view.size && !s.in_eof) {
      s.in_offset += s.in_view.size;
      const std::size_t got = std::fread(s.in.data(), 1, s.in.size(), s.file.get());
      if (got == 0 && std::ferror(s.file.get())) {
        throw InputError(s.where + ": read failed at compressed byte " + std::to_string(s.in_offset));
      }
      s.in_view = ZSTD_inBuffer{s.in.data(), got, 0};
      s.in_eof = got == 0;
    }
    ZSTD_outBuffer out{s.buf.data(), s.buf.size(), 0};
    const std::size_t before = s.in_view.pos;
    const std::size_t ret = ZSTD_decompressStream(s.dctx.get(), &out, &s.in_view);
    if (ZSTD_isError(ret)) {
      throw InputError(s.where + ": corrupt zstd stream at compressed byte " +
                       std::to_string(s.in_offset + s.in_view.pos) + " (after " +
                       std::to_string(s.buf_offset) + " decompressed bytes): " + ZSTD_getErrorName(ret));
    }
    // A hint of 0 means a frame just ended; only calls that moved data say
    // so (an idle call at a frame boundary asks for the next header).
    if (out.pos > 0 || s.in_view.pos > before) s.frame_open = ret != 0;
    if (out.pos > 0) {
      s.end = out.pos;
      return true;
    }
    if (s.in_eof && s.in_view.pos == s.in_view.size) {
      if (s.frame_open) {
        throw InputError(s.where + ": truncated zstd stream: the file ends at compressed byte " +
                         std::to_string(s.in_offset) + " inside a frame (after " + std::to_string(s.buf_offset) +
                         " decompressed bytes)");
      }
      return false;
    }
  }
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

bool ByteStream::read_line(std::string& line) {
  State& s = *state_;
  line.clear();
  bool any = false;
  for (;;) {
    if (s.pos == s.end && !refill()) break;
    any = true;
    const unsigned char* begin = s.buf.data() + s.pos;
    const auto* nl = static_cast<const unsigned char*>(std::memchr(begin, '\n', s.end - s.pos));
    if (nl == nullptr) {
      line.append(reinterpret_cast<const char*>(begin), s.end - s.pos);
      s.pos = s.end;
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
std::optional<std::uint64_t> ByteStream::size_bytes() const { return state_->file_size; }
std::uint64_t ByteStream::file_position() const {
  const State& s = *state_;
  return s.zstd ? s.in_offset + s.in_view.pos : position();
}
std::uint64_t ByteStream::file_size() const { return state_->file_bytes; }
bool ByteStream::compressed() const { return state_->zstd; }
const std::string& ByteStream::where() const { return state_->where; }

}  // namespace flashsim
