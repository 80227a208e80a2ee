// A ByteStream (traces/byte_stream.h) as a std::streambuf, for readers
// written against std::istream: the csv importer and the kineto importer's
// JSON SAX parser read a plain, zstd- or gzip-compressed file alike, and
// UTF-16 text as UTF-8, streamed through the same bounded buffers, never
// the whole file.
#pragma once
#include <cstddef>
#include <filesystem>
#include <streambuf>
#include <vector>

#include "traces/byte_stream.h"

namespace flashsim {

class ByteStreamBuf final : public std::streambuf {
 public:
  /// Opens `path` as ByteStream does (decompressed as compression_of(path)
  /// says; `content` as ByteStream's), with a get area of `buffer_bytes`.
  /// Throws InputError (missing or unreadable file).
  explicit ByteStreamBuf(std::filesystem::path path, std::size_t buffer_bytes = std::size_t{1} << 16,
                         StreamContent content = StreamContent::bytes);

  /// The stream underneath (its position is ahead of this buffer's by the
  /// bytes not yet taken from the get area).
  const ByteStream& stream() const { return stream_; }

 protected:
  /// Throws what ByteStream::read throws (InputError naming the file and the
  /// compressed offset of a corrupt or truncated zstd or gzip stream): std::istream
  /// turns it into badbit unless exceptions(badbit) is set; sbumpc() callers
  /// (read_csv_record, nlohmann-json) see it as it is.
  int_type underflow() override;
  /// Input positions only. Telling (off 0 from cur) is free; seeking within
  /// the get area moves in it, forward skips bytes, backward rewinds the
  /// stream and skips from the start (a compressed file cannot seek): cheap
  /// for the csv importer's one backward seek, to the first data line.
  /// Seeking from the end works where ByteStream::size_bytes() is known.
  /// -1 on failure (past the end, or an unknown end).
  pos_type seekoff(off_type off, std::ios_base::seekdir dir, std::ios_base::openmode which) override;
  pos_type seekpos(pos_type pos, std::ios_base::openmode which) override;

 private:
  ByteStream stream_;
  std::vector<char> buffer_;
};

}  // namespace flashsim
