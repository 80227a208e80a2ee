// The backing tier of the GPU replay: one host buffer holding every block
// (pinned with cudaHostAlloc, or pageable as common frameworks leave it),
// each block at a 256-byte aligned offset, filled with a pattern unique to
// the block and the word so that a checksum tells which block a slot holds.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "hw/replay/block_pattern.h"
#include "sim/core/units.h"

namespace flashsim::hw {

enum class HostMemory { pinned, pageable };

class HostStore {
 public:
  /// Lays out blocks of `bytes[k]` (k = dense block index, ids[k] its id),
  /// allocates the buffer and fills every block's pattern (threads in
  /// parallel). Throws Error when the allocation fails (names the size).
  HostStore(const std::vector<BlockId>& ids, const std::vector<ByteCount>& bytes, HostMemory memory);
  ~HostStore();
  HostStore(const HostStore&) = delete;
  HostStore& operator=(const HostStore&) = delete;

  const unsigned char* block(std::size_t index) const { return base_ + offsets_[index]; }
  /// The block's bytes as the destination of a write-back (D2H of a dirty block).
  unsigned char* writable_block(std::size_t index) { return base_ + offsets_[index]; }
  ByteCount block_bytes(std::size_t index) const { return bytes_[index]; }
  ByteCount block_offset(std::size_t index) const { return offsets_[index]; }
  const unsigned char* data() const { return base_; }
  ByteCount total_bytes() const { return total_; }
  HostMemory memory() const { return memory_; }

 private:
  unsigned char* base_ = nullptr;
  std::vector<ByteCount> offsets_;
  std::vector<ByteCount> bytes_;
  ByteCount total_ = 0;
  HostMemory memory_;
};

}  // namespace flashsim::hw
