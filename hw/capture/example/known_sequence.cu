// A CUDA program with a known sequence of copies, kernels and a memset, for
// tests/gpu/capture_gpu_test.cpp, which captures it and checks the trace
// against this sequence exactly. Usage: flashsim_known_sequence MANIFEST
// (writes "name address bytes" of each buffer to MANIFEST).
//
// On one non-blocking stream, in order:
//   3 passes of: H2D hP→dA (4 MiB, pinned, runtime API); kernel scale<<<8,256>>>;
//                H2D hQ→dB (1 MiB, pageable, runtime API); kernel scale<<<4,128>>>
//   H2D hR+1MiB→dB (512 KiB, registered host memory, driver API cuMemcpyHtoDAsync)
//   D2H dB→hQ (1 MiB, pageable)
//   memset dB (1 MiB)
//   D2D dB→dA+1MiB (1 MiB)
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#define CHECK(call)                                                                     \
  do {                                                                                  \
    const cudaError_t e_ = (call);                                                      \
    if (e_ != cudaSuccess) {                                                            \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
      std::exit(1);                                                                     \
    }                                                                                   \
  } while (0)

__global__ void scale(float* data, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) data[i] *= 1.0001f;
}

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s MANIFEST\n", argv[0]);
    return 2;
  }
  constexpr size_t kMiB = 1 << 20;
  float *dA = nullptr, *dB = nullptr, *hP = nullptr;
  CHECK(cudaMalloc(&dA, 4 * kMiB));
  CHECK(cudaMalloc(&dB, 1 * kMiB));
  CHECK(cudaMallocHost(&hP, 4 * kMiB));
  auto* hQ = static_cast<float*>(std::malloc(1 * kMiB));
  auto* hR = static_cast<char*>(std::aligned_alloc(4096, 2 * kMiB));
  if (hQ == nullptr || hR == nullptr) return 1;
  for (size_t i = 0; i < kMiB; ++i) hP[i] = 1.0f + static_cast<float>(i % 7);
  for (size_t i = 0; i < kMiB / 4; ++i) hQ[i] = 2.0f;
  std::memset(hR, 1, 2 * kMiB);
  CHECK(cudaHostRegister(hR, 2 * kMiB, cudaHostRegisterDefault));
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

  for (int pass = 0; pass < 3; ++pass) {
    CHECK(cudaMemcpyAsync(dA, hP, 4 * kMiB, cudaMemcpyHostToDevice, s));
    scale<<<8, 256, 0, s>>>(dA, static_cast<int>(kMiB));
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpyAsync(dB, hQ, 1 * kMiB, cudaMemcpyHostToDevice, s));
    scale<<<4, 128, 0, s>>>(dB, static_cast<int>(kMiB / 4));
    CHECK(cudaGetLastError());
  }
  if (cuMemcpyHtoDAsync(reinterpret_cast<CUdeviceptr>(dB), hR + kMiB, kMiB / 2, s) != CUDA_SUCCESS) {
    std::fprintf(stderr, "cuMemcpyHtoDAsync failed\n");
    return 1;
  }
  CHECK(cudaMemcpyAsync(hQ, dB, 1 * kMiB, cudaMemcpyDeviceToHost, s));
  CHECK(cudaMemsetAsync(dB, 0, 1 * kMiB, s));
  CHECK(cudaMemcpyAsync(reinterpret_cast<char*>(dA) + kMiB, dB, 1 * kMiB, cudaMemcpyDeviceToDevice, s));
  CHECK(cudaStreamSynchronize(s));

  std::FILE* m = std::fopen(argv[1], "w");
  if (m == nullptr) return 1;
  std::fprintf(m, "dA %p %zu\ndB %p %zu\nhP %p %zu\nhQ %p %zu\nhR %p %zu\n", static_cast<void*>(dA), 4 * kMiB,
               static_cast<void*>(dB), 1 * kMiB, static_cast<void*>(hP), 4 * kMiB, static_cast<void*>(hQ), 1 * kMiB,
               static_cast<void*>(hR), 2 * kMiB);
  std::fclose(m);

  CHECK(cudaStreamDestroy(s));
  CHECK(cudaHostUnregister(hR));
  CHECK(cudaFreeHost(hP));
  CHECK(cudaFree(dB));
  CHECK(cudaFree(dA));
  std::free(hR);
  std::free(hQ);
  return 0;
}
