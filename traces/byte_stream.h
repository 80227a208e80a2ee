// The bytes of an input file, plain, zstd- or gzip-compressed, read front to
// back through a bounded buffer. Every streamed importer (oraclegeneral,
// txt, vscsi, twr, lcs, csv, kineto) reads through this, so a `.zst` or
// `.gz` input works for each of them and decompression is written once:
// libzstd's ZSTD_decompressStream and zlib's inflate fill one buffer at a
// time, never the whole file. A text reader may also ask for its text in
// UTF-8 whatever the file's byte-order mark says (spreadsheet exports).
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
/// The first two bytes of a gzip member (RFC 1952 §2.3.1: ID1 ID2).
inline constexpr unsigned char kGzipMagic[2] = {0x1F, 0x8B};

/// How a file's bytes are compressed.
enum class Compression { none, zstd, gzip };

/// What a reader wants from the bytes: as they are, or text in UTF-8.
enum class StreamContent {
  bytes,
  /// A UTF-8 byte-order mark (EF BB BF) is dropped; a UTF-16 one (FF FE
  /// little-endian, FE FF big-endian) makes the rest UTF-16, converted to
  /// UTF-8 as it is read (the Unicode Standard §3.9, D91 and D92). Without
  /// a mark the bytes are handed out as they are, unless they look like
  /// UTF-16 (every other byte NUL), which is an error saying so.
  text,
};

/// zstd when `path` ends in .zst (any case) or starts with the zstd frame
/// magic; gzip when it starts with a gzip member header (magic, method 8,
/// no reserved flag: RFC 1952 §2.3.1) and either ends in .gz or is read as
/// text (text never starts with byte 0x1F; a binary record may: an
/// oracleGeneral time of 35615 s begins 1F 8B); else none (a `.gz` name over
/// plain bytes is read as it is, as zlib's gzread did). An unreadable file
/// answers by name alone. Never throws.
Compression compression_of(const std::filesystem::path& path, StreamContent content = StreamContent::bytes);

/// True when compression_of(path) is zstd.
bool is_zstd_file(const std::filesystem::path& path);

/// `path`'s file name without a trailing ".zst" (and libCacheSim's
/// ".zst.22") or ".gz", in lower case: what names the format inside the
/// compression ("a.csv.gz" → "a.csv").
std::string name_without_compression(const std::filesystem::path& path);

/// Bounds on what a compressed file may decompress to. Streamed readers
/// hold a buffer, not the data, so these bound time and a bomb's reach
/// (a reader that keeps what it parses, Kineto's, keeps less than this):
/// - `max_ratio`: decompressed / compressed bytes, checked once
///   `ratio_floor_bytes` have come out. gzip cannot pass about 1032:1
///   (deflate's longest match, RFC 1951 §3.2.5: 258 bytes from 2 bits; 1 GiB
///   of zeros at gzip -9 is 1030:1); the recorded traces in ../shared/traces
///   compress 5–12:1 at zstd -19 or gzip -9 (docs/traces.md, "Compressed input").
/// - `max_bytes`: decompressed bytes in all.
/// Defaults: 1000:1 after 1 GiB, 1 TiB; FLASHSIM_MAX_DECOMPRESSION_RATIO
/// and FLASHSIM_MAX_DECOMPRESSED_BYTES (a number, or 0 = no cap) change them.
struct DecompressionLimits {
  double max_ratio = 1000;
  std::uint64_t ratio_floor_bytes = std::uint64_t{1} << 30;
  std::uint64_t max_bytes = std::uint64_t{1} << 40;
  /// The defaults with the environment's overrides. Throws InputError naming
  /// the variable when one is not a number >= 0.
  static DecompressionLimits from_environment();
};

/// The text encoding a StreamContent::text stream found (for messages).
enum class TextEncoding { as_is, utf8_bom, utf16le, utf16be };

class ByteStream {
 public:
  /// Opens `path`, decompressed as compression_of(path, content) says. `buffer_bytes`
  /// bounds the decompressed bytes held (plus libzstd's window, at most
  /// 8 MiB for the default levels, or zlib's 32 KiB). Throws InputError
  /// (missing or unreadable file).
  explicit ByteStream(std::filesystem::path path, std::size_t buffer_bytes = std::size_t{1} << 20,
                      StreamContent content = StreamContent::bytes);
  ~ByteStream();
  ByteStream(const ByteStream&) = delete;
  ByteStream& operator=(const ByteStream&) = delete;

  /// Copies the next `n` bytes to `out`; returns how many came, less than
  /// `n` only at the end of the data. Throws InputError naming the file and
  /// the compressed byte offset for a corrupt zstd or gzip stream, for one
  /// that ends inside a frame or member (a truncated file), and for bytes
  /// after the last gzip member that start no other; for text, naming the
  /// byte offset of a lone UTF-16 surrogate or of a file ending inside a
  /// UTF-16 code unit.
  std::size_t read(void* out, std::size_t n);

  /// The next line without its "\n" (and a "\r" before it) into `line`;
  /// false at the end of the data. A last line without "\n" counts. Throws
  /// as read(), and InputError naming the file and the line's offset for a
  /// line over `max_bytes` (no text trace has one; a decompression bomb of
  /// one line would fill memory).
  bool read_line(std::string& line, std::size_t max_bytes = std::size_t{1} << 20);

  /// Back to the first byte.
  void rewind();

  /// Replaces the limits (default DecompressionLimits::from_environment());
  /// read() then throws InputError naming the file, the bytes out and in,
  /// and the variable to raise when a compressed file passes one.
  void set_decompression_limits(const DecompressionLimits& limits);

  /// Bytes handed out so far (the offset of the next byte), counted after
  /// decompression and, for text, after the byte-order mark and conversion.
  std::uint64_t position() const;
  /// The size of the data when known before reading it: the file size of a
  /// plain file read as bytes; none when compressed or read as text (a
  /// stream need not declare its size; a mark or a conversion changes it).
  std::optional<std::uint64_t> size_bytes() const;
  /// Bytes of the file itself consumed so far (compressed bytes of a .zst
  /// or .gz; for a plain file position()) and the file's size: how far a
  /// pass is through the file, for progress.
  std::uint64_t file_position() const;
  std::uint64_t file_size() const;
  Compression compression() const;
  bool compressed() const { return compression() != Compression::none; }
  /// What the first read found (as_is before it, and for StreamContent::bytes).
  TextEncoding text_encoding() const;
  /// The path as text, for messages.
  const std::string& where() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
  bool refill();  // false at the end of the data
};

}  // namespace flashsim
