#include "hw/replay/block_pattern.h"
#include "hw/replay/pattern_write.h"

namespace flashsim::hw {
namespace {

constexpr int kThreads = 256;
constexpr std::size_t kMaxBlocks = 132 * 8;

__global__ void write_pattern_kernel(unsigned char* dst, std::uint64_t id, std::size_t bytes) {
  const std::size_t words = bytes / 8;
  auto* out = reinterpret_cast<std::uint64_t*>(dst);
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t w = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; w < words; w += stride) {
    out[w] = pattern_word(id, w);
  }
  // The tail (< 8 bytes): the low bytes of the next word, little-endian as the host's memcpy.
  if (blockIdx.x == 0 && threadIdx.x == 0 && bytes % 8 != 0) {
    const std::uint64_t v = pattern_word(id, words);
    for (std::size_t k = 0; k < bytes % 8; ++k) dst[words * 8 + k] = static_cast<unsigned char>(v >> (8 * k));
  }
}

}  // namespace

cudaError_t launch_write_pattern(void* dst, std::uint64_t id, std::size_t bytes, cudaStream_t stream) {
  if (dst == nullptr || bytes == 0) return cudaErrorInvalidValue;
  const std::size_t words = bytes / 8 + 1;
  std::size_t blocks = (words + kThreads - 1) / kThreads;
  if (blocks > kMaxBlocks) blocks = kMaxBlocks;
  write_pattern_kernel<<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(static_cast<unsigned char*>(dst), id,
                                                                              bytes);
  return cudaGetLastError();
}

}  // namespace flashsim::hw
