#include "hw/replay/host_store.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include "hw/cuda_check.h"

namespace flashsim::hw {

HostStore::HostStore(const std::vector<BlockId>& ids, const std::vector<ByteCount>& bytes, HostMemory memory)
    : bytes_(bytes), memory_(memory) {
  offsets_.resize(bytes.size());
  for (std::size_t k = 0; k < bytes.size(); ++k) {
    offsets_[k] = total_;
    total_ += (bytes[k] + 255) / 256 * 256;
  }
  const std::size_t alloc = std::max<ByteCount>(total_, 256);
  if (memory == HostMemory::pinned) {
    void* p = nullptr;
    const cudaError_t s = cudaHostAlloc(&p, alloc, cudaHostAllocDefault);
    if (s != cudaSuccess) {
      (void)cudaGetLastError();
      throw Error("replay: cannot allocate " + std::to_string(alloc) + " B of pinned host memory: " +
                  cudaGetErrorString(s));
    }
    base_ = static_cast<unsigned char*>(p);
  } else {
    base_ = static_cast<unsigned char*>(std::aligned_alloc(4096, (alloc + 4095) / 4096 * 4096));
    if (base_ == nullptr) throw Error("replay: cannot allocate " + std::to_string(alloc) + " B of host memory");
  }
  // Fill in parallel: blocks are split over threads by index.
  const unsigned threads = std::max(1u, std::min(16u, std::thread::hardware_concurrency()));
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      for (std::size_t k = t; k < bytes_.size(); k += threads) {
        unsigned char* p = base_ + offsets_[k];
        const std::uint64_t words = (bytes_[k] + 7) / 8;
        for (std::uint64_t w = 0; w < words; ++w) {
          const std::uint64_t v = pattern_word(ids[k], w);
          const std::size_t n = std::min<std::uint64_t>(8, bytes_[k] - w * 8);
          std::memcpy(p + w * 8, &v, n);
        }
      }
    });
  }
  for (auto& th : pool) th.join();
}

HostStore::~HostStore() {
  if (memory_ == HostMemory::pinned) {
    (void)cudaFreeHost(base_);
  } else {
    std::free(base_);
  }
}

}  // namespace flashsim::hw
