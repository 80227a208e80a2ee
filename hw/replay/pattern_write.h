// The replay's write of a block (a KV append allocated in place,
// engine.cpp's write allocation): a kernel writes the block's pattern
// (block_pattern.h) into device memory, so the consume kernel's checksum
// and a later write-back carry the same bytes as the host store.
#pragma once
#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

namespace flashsim::hw {

/// Writes `bytes` (> 0) of block `id`'s pattern at `dst` (device memory,
/// 8-byte aligned) on `stream`. Returns the launch status (cudaGetLastError).
cudaError_t launch_write_pattern(void* dst, std::uint64_t id, std::size_t bytes, cudaStream_t stream);

}  // namespace flashsim::hw
