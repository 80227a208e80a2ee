#include <cuda_runtime.h>

#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "hw/device_info.h"
#include "kernels/consume.h"

namespace flashsim::hw {
namespace {

void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(status));
}

int attribute(cudaDeviceAttr attr, int device) {
  int value = 0;
  check(cudaDeviceGetAttribute(&value, attr, device), "cudaDeviceGetAttribute");
  return value;
}

}  // namespace

std::vector<DeviceInfo> list_devices() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    (void)cudaGetLastError();  // no driver or no device: report none
    return {};
  }
  std::vector<DeviceInfo> out;
  for (int d = 0; d < count; ++d) {
    cudaDeviceProp prop{};
    check(cudaGetDeviceProperties(&prop, d), "cudaGetDeviceProperties");
    DeviceInfo info;
    info.ordinal = d;
    info.name = prop.name;
    info.compute_major = prop.major;
    info.compute_minor = prop.minor;
    info.sm_count = prop.multiProcessorCount;
    info.global_memory_bytes = prop.totalGlobalMem;
    info.l2_bytes = static_cast<std::uint64_t>(prop.l2CacheSize);
    info.persisting_l2_max_bytes = static_cast<std::uint64_t>(attribute(cudaDevAttrMaxPersistingL2CacheSize, d));
    info.access_policy_max_window_bytes = static_cast<std::uint64_t>(attribute(cudaDevAttrMaxAccessPolicyWindowSize, d));
    info.pci_bus_id = prop.pciBusID;
    out.push_back(info);
  }
  return out;
}

bool consume_self_test(int ordinal, std::size_t bytes) {
  check(cudaSetDevice(ordinal), "cudaSetDevice");
  std::vector<std::uint64_t> host(bytes / 8);
  std::iota(host.begin(), host.end(), std::uint64_t{0x9e3779b97f4a7c15ull});
  void* device = nullptr;
  unsigned long long* sink = nullptr;
  check(cudaMalloc(&device, bytes), "cudaMalloc");
  check(cudaMalloc(&sink, sizeof(*sink)), "cudaMalloc");
  check(cudaMemcpy(device, host.data(), bytes, cudaMemcpyHostToDevice), "cudaMemcpy H2D");
  check(cudaMemset(sink, 0, sizeof(*sink)), "cudaMemset");
  check(kernels::launch_consume(device, bytes, sink, nullptr), "launch_consume");
  unsigned long long result = 0;
  check(cudaMemcpy(&result, sink, sizeof(result), cudaMemcpyDeviceToHost), "cudaMemcpy D2H");
  cudaFree(device);
  cudaFree(sink);
  return result == kernels::consume_checksum_host(host.data(), bytes);
}

}  // namespace flashsim::hw
