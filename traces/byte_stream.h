// The bytes of an input file, plain or zstd-compressed, read front to back
// through a bounded buffer. Every streamed importer (oraclegeneral, txt,
// vscsi, twr, lcs) reads through this, so a `.zst` input works for each of
// them and decompression is written once: libzstd's ZSTD_decompressStream
// inflates one buffer at a time, never the whole file.
#pragma once
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

namespace flashsim {

/// The first four bytes of a zstd frame (RFC 8878: 0xFD2FB528, little-endian).
inline constexpr unsigned char kZstdMagic[4] = {0x28, 0xB5, 0x2F, 0xFD};

/// True when `path` ends in .zst (any case) or starts with the zstd frame
/// magic. Unreadable files answer by name alone. Never throws.
bool is_zstd_file(const std::filesystem::path& path);

/// `path`'s file name without a trailing ".zst" (and libCacheSim's ".zst.22"),
/// in lower case: what names the format inside the compression.
std::string name_without_zstd(const std::filesystem::path& path);

class ByteStream {
 public:
  /// Opens `path`, compressed when is_zstd_file(path). `buffer_bytes` bounds
  /// the decompressed bytes held (plus libzstd's window, at most 8 MiB for
  /// the default levels). Throws InputError (missing or unreadable file).
  explicit ByteStream(std::filesystem::path path, std::size_t buffer_bytes = std::size_t{1} << 20);
  ~ByteStream();
  ByteStream(const ByteStream&) = delete;
  ByteStream& operator=(const ByteStream&) = delete;

  /// Copies the next `n` bytes to `out`; returns how many came, less than
  /// `n` only at the end of the data. Throws InputError naming the file and
  /// the compressed byte offset for a corrupt zstd stream, and for one that
  /// ends inside a frame (a truncated .zst).
  std::size_t read(void* out, std::size_t n);

  /// The next line without its "\n" (and a "\r" before it) into `line`;
  /// false at the end of the data. A last line without "\n" counts. Throws
  /// as read().
  bool read_line(std::string& line);

  /// Back to the first byte.
  void rewind();

  /// Decompressed bytes handed out so far (the offset of the next byte).
  std::uint64_t position() const;
  /// The size of the data when known before reading it: the file size of a
  /// plain file; none for zstd (a stream need not declare its size).
  std::optional<std::uint64_t> size_bytes() const;
  /// Bytes of the file itself consumed so far (compressed bytes of a .zst;
  /// for a plain file position()) and the file's size: how far a pass is
  /// through the file, for progress.
  std::uint64_t file_position() const;
  std::uint64_t file_size() const;
  bool compressed() const;
  /// The path as text, for messages.
  const std::string& where() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
  bool refill();  // false at the end of the data
};

}  // namespace flashsim
