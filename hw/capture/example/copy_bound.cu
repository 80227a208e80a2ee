// A program of known behaviour for `flashsim diagnose` (tests/gpu/
// diagnose_gpu_test.cpp): each step (an NVTX mark "flashsim.step") copies
// CHUNKS chunks of CHUNK_MIB MiB host-to-device on one stream, each followed
// by a kernel that reads the chunk once (a few microseconds of HBM reads),
// and synchronises. With pinned host memory the copies run at the link's
// ceiling and the GPU waits on them almost all the time: the table's
// bandwidth_war row; with pageable memory they are slower (driver staging)
// and pinning is the lever.
// Usage: flashsim_copy_bound STEPS CHUNKS CHUNK_MIB pinned|pageable
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <vector>

#include "hw/cuda_check.h"

#define CHECK(call) FLASHSIM_CUDA_CHECK(call)  // throws flashsim::Error naming the call

__global__ void consume(const float4* data, size_t n, float* out) {
  float s = 0;
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += size_t{gridDim.x} * blockDim.x) {
    const float4 v = data[i];
    s += v.x + v.y + v.z + v.w;
  }
  if (s == 1234.5f) *out = s;  // keeps the loads; practically never taken
}

int run(int argc, char** argv) {
  if (argc != 5 || (std::strcmp(argv[4], "pinned") != 0 && std::strcmp(argv[4], "pageable") != 0)) {
    std::fprintf(stderr, "usage: %s STEPS CHUNKS CHUNK_MIB pinned|pageable\n", argv[0]);
    return 2;
  }
  const int steps = std::atoi(argv[1]), chunks = std::atoi(argv[2]);
  const size_t bytes = static_cast<size_t>(std::atoi(argv[3])) << 20;
  if (steps < 1 || chunks < 1 || bytes == 0) {
    std::fprintf(stderr, "STEPS, CHUNKS and CHUNK_MIB must be >= 1\n");
    return 2;
  }
  const bool pinned = std::strcmp(argv[4], "pinned") == 0;
  std::vector<char*> host(chunks, nullptr);
  for (auto& h : host) {
    if (pinned) {
      CHECK(cudaMallocHost(&h, bytes));
    } else {
      h = static_cast<char*>(std::malloc(bytes));
      if (h == nullptr) return 1;
    }
    std::memset(h, 1, bytes);
  }
  char* device = nullptr;
  float* out = nullptr;
  CHECK(cudaMalloc(&device, bytes));
  CHECK(cudaMalloc(&out, sizeof(float)));
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  for (int s = 0; s < steps; ++s) {
    nvtxMarkA("flashsim.step");
    for (int c = 0; c < chunks; ++c) {
      CHECK(cudaMemcpyAsync(device, host[c], bytes, cudaMemcpyHostToDevice, stream));
      consume<<<264, 256, 0, stream>>>(reinterpret_cast<const float4*>(device), bytes / sizeof(float4), out);
      CHECK(cudaGetLastError());
    }
    CHECK(cudaStreamSynchronize(stream));
  }
  nvtxMarkA("flashsim.step");  // closes the last step
  CHECK(cudaStreamDestroy(stream));
  CHECK(cudaFree(device));
  CHECK(cudaFree(out));
  for (auto& h : host) {
    if (pinned) {
      CHECK(cudaFreeHost(h));
    } else {
      std::free(h);
    }
  }
  return 0;
}

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "flashsim_copy_bound: %s\n", e.what());
    return 1;
  }
}
