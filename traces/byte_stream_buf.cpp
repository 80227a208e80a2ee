#include "traces/byte_stream_buf.h"

#include <algorithm>

namespace flashsim {

ByteStreamBuf::ByteStreamBuf(std::filesystem::path path, std::size_t buffer_bytes, StreamContent content)
    : stream_(std::move(path), std::size_t{1} << 20, content), buffer_(std::max<std::size_t>(buffer_bytes, 64)) {
  setg(buffer_.data(), buffer_.data(), buffer_.data());
}

ByteStreamBuf::int_type ByteStreamBuf::underflow() {
  if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
  const std::size_t n = stream_.read(buffer_.data(), buffer_.size());
  setg(buffer_.data(), buffer_.data(), buffer_.data() + n);
  return n == 0 ? traits_type::eof() : traits_type::to_int_type(*gptr());
}

ByteStreamBuf::pos_type ByteStreamBuf::seekoff(off_type off, std::ios_base::seekdir dir,
                                               std::ios_base::openmode which) {
  const auto here = static_cast<off_type>(stream_.position()) - static_cast<off_type>(egptr() - gptr());
  if (dir == std::ios_base::cur && off == 0) return pos_type(here);
  off_type target = off;
  if (dir == std::ios_base::cur) {
    target = here + off;
  } else if (dir == std::ios_base::end) {
    const auto size = stream_.size_bytes();
    if (!size) return pos_type(off_type(-1));
    target = static_cast<off_type>(*size) + off;
  }
  return seekpos(pos_type(target), which);
}

ByteStreamBuf::pos_type ByteStreamBuf::seekpos(pos_type pos, std::ios_base::openmode which) {
  const off_type target = pos;
  if (!(which & std::ios_base::in) || target < 0) return pos_type(off_type(-1));
  // Within the bytes held: move there.
  const auto held_end = static_cast<off_type>(stream_.position());
  const off_type held_begin = held_end - static_cast<off_type>(egptr() - eback());
  if (target >= held_begin && target <= held_end) {
    setg(eback(), eback() + (target - held_begin), egptr());
    return pos;
  }
  if (target < held_begin) stream_.rewind();
  setg(buffer_.data(), buffer_.data(), buffer_.data());
  // Forward: skip bytes (read and drop: a zstd stream cannot seek).
  auto skip = static_cast<std::uint64_t>(target) - stream_.position();
  while (skip > 0) {
    const std::size_t n = stream_.read(buffer_.data(), static_cast<std::size_t>(std::min<std::uint64_t>(skip, buffer_.size())));
    if (n == 0) return pos_type(off_type(-1));
    skip -= n;
  }
  return pos;
}

}  // namespace flashsim
