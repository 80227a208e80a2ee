// Block granularity: the unit the fast tier caches need not be the unit the
// trace records. A GranularityTraceSource splits every block into pieces of
// a fixed size (256 B, 4 KiB, 2 MiB ...), so a 23 MB weight copy becomes 11
// accesses of 2 MiB pieces plus one of the remainder, and a 4 KiB norm stays
// one piece.
#pragma once
#include <memory>
#include <vector>

#include "traces/trace_source.h"

namespace flashsim {

/// Pieces a block of `bytes` splits into at `piece_bytes` (> 0) a piece; a
/// 0-byte block is one piece.
inline std::uint64_t piece_count(ByteCount bytes, ByteCount piece_bytes) {
  return bytes == 0 ? 1 : (bytes + piece_bytes - 1) / piece_bytes;
}

/// Piece ids: the parent's id shifted left by kPieceBits, plus the piece
/// number. Parent ids must be < 2^(64 - kPieceBits) and pieces per block
/// < 2^kPieceBits (a 2 MiB piece covers blocks up to 2 PiB).
inline constexpr int kPieceBits = 20;

/// Piece `piece` of block `parent`.
constexpr BlockId piece_id(BlockId parent, std::uint64_t piece) { return (parent << kPieceBits) | piece; }

class GranularityTraceSource final : public ITraceSource {
 public:
  /// Splits the records of `inner` into pieces of `piece_bytes` (> 0). Each
  /// piece access keeps the record's time, stream, request, token, phase and
  /// operator; `address` and `offset` advance by the piece's position; the
  /// record's compute_ns goes to its last piece (the consumer runs once the
  /// whole block is there). Next use is dropped (has_next_use = false;
  /// drivers recompute it). The catalog is split the same way (names get
  /// "#k", layer and kind are kept), so pinning by layer or kind still works;
  /// pinning by id names piece ids. Throws InputError when a block id or
  /// piece count does not fit the piece-id encoding (names the record index).
  GranularityTraceSource(std::unique_ptr<ITraceSource> inner, ByteCount piece_bytes);

  const TraceMeta& meta() const override { return meta_; }
  std::size_t read(std::span<AccessRecord> out) override;
  void rewind() override;

 private:
  std::unique_ptr<ITraceSource> inner_;
  ByteCount piece_bytes_;
  TraceMeta meta_;
  std::vector<AccessRecord> buffer_;  // records of inner_ not yet fully split
  std::size_t buffer_pos_ = 0;
  std::uint64_t next_piece_ = 0;      // next piece of buffer_[buffer_pos_]
  std::uint64_t record_index_ = 0;    // index in inner_ of buffer_[buffer_pos_]
};

}  // namespace flashsim
