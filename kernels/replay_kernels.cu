#include <cstring>

#include "kernels/replay_kernels.h"

namespace flashsim::kernels {
namespace {

constexpr int kThreads = 256;

__device__ __forceinline__ unsigned long long global_timer_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__device__ __forceinline__ unsigned long long load_cg(const unsigned long long* p) {
  unsigned long long v;
  asm volatile("ld.global.cg.u64 %0, [%1];" : "=l"(v) : "l"(p));
  return v;
}

__device__ __forceinline__ ulonglong2 load16(const ulonglong2* p, bool cached) {
  return cached ? __ldcg(p) : __ldcs(p);
}

__device__ __forceinline__ float bf16_lo(unsigned int pair) { return __uint_as_float(pair << 16); }
__device__ __forceinline__ float bf16_hi(unsigned int pair) { return __uint_as_float(pair & 0xffff0000u); }

// Dot product of 8 bf16 weights (two 64-bit words) with 8 bf16 inputs.
__device__ __forceinline__ float dot8(ulonglong2 w, uint4 x) {
  const unsigned int w0 = static_cast<unsigned int>(w.x), w1 = static_cast<unsigned int>(w.x >> 32);
  const unsigned int w2 = static_cast<unsigned int>(w.y), w3 = static_cast<unsigned int>(w.y >> 32);
  return bf16_lo(w0) * bf16_lo(x.x) + bf16_hi(w0) * bf16_hi(x.x) + bf16_lo(w1) * bf16_lo(x.y) +
         bf16_hi(w1) * bf16_hi(x.y) + bf16_lo(w2) * bf16_lo(x.z) + bf16_hi(w2) * bf16_hi(x.z) +
         bf16_lo(w3) * bf16_lo(x.w) + bf16_hi(w3) * bf16_hi(x.w);
}

__global__ void replay_consume_kernel(ConsumeArgs a) {
  __shared__ unsigned long long t0;
  if (threadIdx.x == 0) {
    if (a.not_before_ns != 0) {
      while (global_timer_ns() < a.not_before_ns) {
      }
    }
    t0 = global_timer_ns();
    if (a.start_ns) atomicMin(a.start_ns, t0);
  }
  __syncthreads();

  const auto* v = static_cast<const ulonglong2*>(a.data);
  const std::size_t n16 = a.bytes / 16;
  const std::size_t tid = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  const std::size_t nthreads = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  unsigned long long sum = 0;
  std::size_t first_plain = 0;  // first 16-byte chunk the plain read loop covers

  if (a.mode == ConsumeMode::gemv && a.gemv_x != nullptr) {
    constexpr std::size_t kChunksPerRow = kGemvColumns * 2 / 16;  // 512
    const std::size_t rows = n16 / kChunksPerRow;
    const std::size_t lane = threadIdx.x & 31u;
    const std::size_t warp = tid / 32, nwarps = nthreads / 32;
    const auto* x = reinterpret_cast<const uint4*>(a.gemv_x);
    float total = 0.0f;
    for (std::size_t r = warp; r < rows; r += nwarps) {
      const ulonglong2* row = v + r * kChunksPerRow;
      float acc = 0.0f;
      for (std::size_t c = lane; c < kChunksPerRow; c += 32) {
        const ulonglong2 w = load16(row + c, a.cached_loads);
        sum += w.x + w.y;
        acc += dot8(w, x[c]);
      }
      for (int off = 16; off > 0; off /= 2) acc += __shfl_down_sync(0xffffffffu, acc, off);
      if (lane == 0) total += acc;
    }
    if (lane == 0 && a.gemv_sink != nullptr && total != 0.0f) atomicAdd(a.gemv_sink, total);
    first_plain = rows * kChunksPerRow;
  }

  // Streaming loads (a block is read once per use), four in flight per
  // thread so that the memory system sees enough parallelism.
  std::size_t i = first_plain + tid;
  for (; i + 3 * nthreads < n16; i += 4 * nthreads) {
    const ulonglong2 w0 = load16(v + i, a.cached_loads), w1 = load16(v + i + nthreads, a.cached_loads);
    const ulonglong2 w2 = load16(v + i + 2 * nthreads, a.cached_loads), w3 = load16(v + i + 3 * nthreads, a.cached_loads);
    sum += (w0.x + w0.y) + (w1.x + w1.y) + (w2.x + w2.y) + (w3.x + w3.y);
  }
  for (; i < n16; i += nthreads) {
    const ulonglong2 w = load16(v + i, a.cached_loads);
    sum += w.x + w.y;
  }
  if (tid == 0) {  // the tail below 16 bytes, zero-padded into words
    const auto* p = static_cast<const unsigned char*>(a.data) + n16 * 16;
    const std::size_t rem = a.bytes - n16 * 16;
    for (std::size_t w = 0; w < rem; w += 8) {
      unsigned long long word = 0;
      for (std::size_t b = 0; b < 8 && w + b < rem; ++b) word |= static_cast<unsigned long long>(p[w + b]) << (8 * b);
      sum += word;
    }
  }
  for (int off = 16; off > 0; off /= 2) sum += __shfl_down_sync(0xffffffffu, sum, off);
  if ((threadIdx.x & 31u) == 0 && a.checksum != nullptr) atomicAdd(a.checksum, sum);

  __syncthreads();
  if (threadIdx.x == 0) {
    if (a.hold_ns != 0) {
      const unsigned long long until = t0 + a.hold_ns;
      while (global_timer_ns() < until) {
      }
    }
    if (a.end_ns) atomicMax(a.end_ns, global_timer_ns());
  }
}

__global__ void init_stamps_kernel(unsigned long long* start, unsigned long long* end, std::size_t n) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    start[i] = ~0ull;
    end[i] = 0;
  }
}

__global__ void probe16_kernel(const unsigned long long* data, unsigned long long* out) {
  out[0] = load_cg(data);
  out[1] = load_cg(data + 1);
}

__global__ void stamp_now_kernel(unsigned long long* out) { *out = global_timer_ns(); }

__global__ void build_chain_kernel(unsigned char* base, const std::uint64_t* offsets, std::size_t n) {
  for (std::size_t k = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; k < n;
       k += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const std::size_t next = k + 1 == n ? 0 : k + 1;
    *reinterpret_cast<unsigned long long*>(base + offsets[k]) = reinterpret_cast<unsigned long long>(base + offsets[next]);
  }
}

__global__ void chase_kernel(const unsigned long long* p, std::uint64_t warm, std::uint64_t steps,
                             unsigned long long* out) {
  for (std::uint64_t i = 0; i < warm; ++i) p = reinterpret_cast<const unsigned long long*>(load_cg(p));
  const long long c0 = clock64();
  const unsigned long long t0 = global_timer_ns();
  for (std::uint64_t i = 0; i < steps; ++i) p = reinterpret_cast<const unsigned long long*>(load_cg(p));
  const long long c1 = clock64();
  const unsigned long long t1 = global_timer_ns();
  out[0] = static_cast<unsigned long long>(c1 - c0);
  out[1] = t1 - t0;
  out[2] = reinterpret_cast<unsigned long long>(p);
}

int grid_for(std::size_t items, int cap) {
  const std::size_t wanted = (items + kThreads - 1) / kThreads;
  const std::size_t capped = wanted < static_cast<std::size_t>(cap) ? wanted : static_cast<std::size_t>(cap);
  return capped == 0 ? 1 : static_cast<int>(capped);
}

}  // namespace

std::uint64_t replay_checksum_host(const void* data, std::size_t bytes) {
  std::uint64_t sum = 0;
  const auto* p = static_cast<const unsigned char*>(data);
  std::size_t i = 0;
  for (; i + 8 <= bytes; i += 8) {
    std::uint64_t word = 0;
    std::memcpy(&word, p + i, 8);
    sum += word;
  }
  if (i < bytes) {
    std::uint64_t word = 0;
    std::memcpy(&word, p + i, bytes - i);  // little-endian host: zero-padded high bytes
    sum += word;
  }
  return sum;
}

cudaError_t launch_replay_consume(const ConsumeArgs& args, cudaStream_t stream) {
  if (args.bytes == 0 || args.data == nullptr) return cudaErrorInvalidValue;
  const std::size_t n16 = args.bytes / 16;
  const int cap = args.max_ctas > 0 ? args.max_ctas : 1;
  replay_consume_kernel<<<grid_for(n16 == 0 ? 1 : n16, cap), kThreads, 0, stream>>>(args);
  return cudaGetLastError();
}

cudaError_t launch_init_stamps(unsigned long long* start, unsigned long long* end, std::size_t n,
                               cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  init_stamps_kernel<<<grid_for(n, 1024), kThreads, 0, stream>>>(start, end, n);
  return cudaGetLastError();
}

cudaError_t launch_probe16(const void* data, unsigned long long* out, cudaStream_t stream) {
  probe16_kernel<<<1, 1, 0, stream>>>(static_cast<const unsigned long long*>(data), out);
  return cudaGetLastError();
}

cudaError_t launch_stamp_now(unsigned long long* out, cudaStream_t stream) {
  stamp_now_kernel<<<1, 1, 0, stream>>>(out);
  return cudaGetLastError();
}

cudaError_t launch_build_chain(void* base, const std::uint64_t* offsets_device, std::size_t n, cudaStream_t stream) {
  if (n == 0) return cudaErrorInvalidValue;
  build_chain_kernel<<<grid_for(n, 1024), kThreads, 0, stream>>>(static_cast<unsigned char*>(base), offsets_device, n);
  return cudaGetLastError();
}

cudaError_t launch_chase(const void* start, std::uint64_t warm_steps, std::uint64_t steps, unsigned long long* out,
                         cudaStream_t stream) {
  chase_kernel<<<1, 1, 0, stream>>>(static_cast<const unsigned long long*>(start), warm_steps, steps, out);
  return cudaGetLastError();
}

}  // namespace flashsim::kernels
