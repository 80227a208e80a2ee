#include "traces/granularity.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/core/errors.h"

namespace flashsim {
namespace {

constexpr std::uint64_t kMaxPieces = std::uint64_t{1} << kPieceBits;
constexpr BlockId kMaxParent = BlockId{1} << (64 - kPieceBits);

void check_encodable(BlockId id, std::uint64_t pieces, const std::string& where) {
  if (id >= kMaxParent || pieces > kMaxPieces) {
    throw InputError(where + ": block " + std::to_string(id) + " in " + std::to_string(pieces) +
                     " pieces does not fit the piece-id encoding (ids < 2^" + std::to_string(64 - kPieceBits) +
                     ", pieces <= 2^" + std::to_string(kPieceBits) + "); use a larger granularity");
  }
}

}  // namespace

GranularityTraceSource::GranularityTraceSource(std::unique_ptr<ITraceSource> inner, ByteCount piece_bytes)
    : inner_(std::move(inner)), piece_bytes_(piece_bytes) {
  if (piece_bytes_ == 0) throw InputError("cache.granularity: piece size must be > 0");
  const TraceMeta& in = inner_->meta();
  meta_.schema_version = in.schema_version;
  meta_.source = in.source + " (split into " + std::to_string(piece_bytes_) + " B pieces)";
  meta_.record_count = 0;  // unknown until read
  meta_.has_next_use = false;
  for (const BlockCatalogEntry& e : in.catalog) {
    const std::uint64_t pieces = piece_count(e.bytes, piece_bytes_);
    check_encodable(e.id, pieces, "catalog of " + in.source);
    for (std::uint64_t k = 0; k < pieces; ++k) {
      BlockCatalogEntry p = e;
      p.id = piece_id(e.id, k);
      p.name = e.name + "#" + std::to_string(k);
      p.bytes = std::min(piece_bytes_, e.bytes - k * piece_bytes_);
      if (e.address_begin != kNoAddress) {
        p.address_begin = e.address_begin + k * piece_bytes_;
        p.address_end = p.address_begin + p.bytes;
      }
      meta_.catalog.push_back(std::move(p));
    }
  }
}

std::size_t GranularityTraceSource::read(std::span<AccessRecord> out) {
  std::size_t written = 0;
  while (written < out.size()) {
    if (buffer_pos_ == buffer_.size()) {
      buffer_.resize(std::max<std::size_t>(out.size(), 4096));
      const std::size_t n = inner_->read(buffer_);
      buffer_.resize(n);
      buffer_pos_ = 0;
      if (n == 0) break;
    }
    const AccessRecord& r = buffer_[buffer_pos_];
    const std::uint64_t pieces = piece_count(r.bytes, piece_bytes_);
    if (next_piece_ == 0) check_encodable(r.block_id, pieces, "record " + std::to_string(record_index_));
    while (next_piece_ < pieces && written < out.size()) {
      AccessRecord& p = out[written++];
      p = r;
      p.block_id = piece_id(r.block_id, next_piece_);
      p.bytes = std::min(piece_bytes_, r.bytes - next_piece_ * piece_bytes_);
      if (r.address != kNoAddress) p.address = r.address + next_piece_ * piece_bytes_;
      p.offset = r.offset + next_piece_ * piece_bytes_;
      p.compute_ns = (next_piece_ + 1 == pieces) ? r.compute_ns : 0;
      p.next_use_index = kNeverAccessedAgain;
      ++next_piece_;
    }
    if (next_piece_ == pieces) {
      next_piece_ = 0;
      ++buffer_pos_;
      ++record_index_;
    }
  }
  return written;
}

void GranularityTraceSource::rewind() {
  inner_->rewind();
  buffer_.clear();
  buffer_pos_ = 0;
  next_piece_ = 0;
  record_index_ = 0;
}

}  // namespace flashsim
