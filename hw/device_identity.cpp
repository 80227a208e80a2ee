#include "hw/device_identity.h"

#include <cuda_runtime_api.h>

#include <array>
#include <cstring>

#include "hw/cuda_check.h"
#include "hw/gpu_uuid.h"
#include "hw/nvml/nvml_library.h"

namespace flashsim::hw {
namespace {

// Reads one NVML string (the buffer NUL-terminated by NVML); empty on failure.
template <class F>
std::string nvml_string(F call, unsigned buffer_bytes) {
  std::string buffer(buffer_bytes, '\0');
  if (call(buffer.data(), buffer_bytes) != nvml::kSuccess) return {};
  buffer.resize(std::strlen(buffer.c_str()));
  return buffer;
}

// As FLASHSIM_CUDA_CHECK, clearing the runtime's last error first: a bad
// ordinal must not make the next kernel launch's cudaGetLastError fail.
void check(cudaError_t status, const char* what, int line) {
  if (status == cudaSuccess) return;
  (void)cudaGetLastError();
  cuda_check(status, what, __FILE__, line);
}

unsigned nvml_clock(nvml::Return (*fn)(nvml::Device, int, unsigned*), nvml::Device device, int type) {
  unsigned mhz = 0;
  if (fn == nullptr || fn(device, type, &mhz) != nvml::kSuccess) return 0;
  return mhz;
}

}  // namespace

DeviceIdentity read_device_identity(int ordinal) {
  DeviceIdentity id;
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, ordinal), "cudaGetDeviceProperties", __LINE__);
  id.name = prop.name;
  std::array<unsigned char, 16> uuid_bytes{};
  std::memcpy(uuid_bytes.data(), prop.uuid.bytes, uuid_bytes.size());
  id.uuid = format_gpu_uuid(uuid_bytes);
  check(cudaDriverGetVersion(&id.cuda_driver_version), "cudaDriverGetVersion", __LINE__);
  char bus_id[32] = {};
  check(cudaDeviceGetPCIBusId(bus_id, static_cast<int>(sizeof(bus_id)), ordinal), "cudaDeviceGetPCIBusId", __LINE__);
  id.pci_bus_id = bus_id;
  int khz = 0;
  if (cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, ordinal) == cudaSuccess) id.sm_clock_max_mhz = static_cast<unsigned>(khz / 1000);
  if (cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, ordinal) == cudaSuccess) {
    id.memory_clock_max_mhz = static_cast<unsigned>(khz / 1000);
  }
  (void)cudaGetLastError();
  id.source = "cudart";

  nvml::Library library;
  const nvml::Device device = library.device_for_cuda_ordinal(ordinal);
  if (device == nullptr) return id;
  const nvml::Api& api = library.api();
  id.source = "nvml";
  if (api.name != nullptr) {
    const std::string name = nvml_string([&](char* b, unsigned n) { return api.name(device, b, n); }, nvml::kNameBufferBytes);
    if (!name.empty()) id.name = name;
  }
  if (api.uuid != nullptr) {
    const std::string uuid = nvml_string([&](char* b, unsigned n) { return api.uuid(device, b, n); }, nvml::kUuidBufferBytes);
    if (!uuid.empty()) id.uuid = uuid;
  }
  if (api.driver_version != nullptr) {
    id.driver_version = nvml_string([&](char* b, unsigned n) { return api.driver_version(b, n); },
                                    nvml::kDriverVersionBufferBytes);
  }
  id.sm_clock_mhz = nvml_clock(api.clock_info, device, nvml::kClockSm);
  id.memory_clock_mhz = nvml_clock(api.clock_info, device, nvml::kClockMem);
  if (const unsigned v = nvml_clock(api.max_clock_info, device, nvml::kClockSm)) id.sm_clock_max_mhz = v;
  if (const unsigned v = nvml_clock(api.max_clock_info, device, nvml::kClockMem)) id.memory_clock_max_mhz = v;
  id.sm_clock_application_mhz = nvml_clock(api.applications_clock, device, nvml::kClockSm);
  return id;
}

}  // namespace flashsim::hw
