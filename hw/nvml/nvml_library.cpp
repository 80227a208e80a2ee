#include "hw/nvml/nvml_library.h"

#include <cuda_runtime_api.h>
#include <dlfcn.h>

namespace flashsim::hw::nvml {
namespace {

template <class F>
void resolve(void* lib, const char* name, F& out) {
  out = reinterpret_cast<F>(dlsym(lib, name));
}

}  // namespace

Library::Library() {
  library_ = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (library_ == nullptr) {
    error_ = "libnvidia-ml.so.1 not found";
    return;
  }
  resolve(library_, "nvmlInit_v2", api_.init);
  resolve(library_, "nvmlShutdown", api_.shutdown);
  resolve(library_, "nvmlDeviceGetHandleByIndex_v2", api_.handle_by_index);
  resolve(library_, "nvmlDeviceGetHandleByPciBusId_v2", api_.handle_by_pci_bus_id);
  resolve(library_, "nvmlDeviceGetMemoryInfo", api_.memory_info);
  resolve(library_, "nvmlDeviceGetPcieThroughput", api_.pcie_throughput);
  resolve(library_, "nvmlDeviceGetClockInfo", api_.clock_info);
  resolve(library_, "nvmlDeviceGetMaxClockInfo", api_.max_clock_info);
  resolve(library_, "nvmlDeviceGetApplicationsClock", api_.applications_clock);
  resolve(library_, "nvmlDeviceGetPowerUsage", api_.power_usage);
  resolve(library_, "nvmlDeviceGetName", api_.name);
  resolve(library_, "nvmlDeviceGetUUID", api_.uuid);
  resolve(library_, "nvmlSystemGetDriverVersion", api_.driver_version);
  if (api_.init == nullptr || api_.shutdown == nullptr || api_.handle_by_index == nullptr) {
    error_ = "libnvidia-ml.so.1 lacks nvmlInit_v2, nvmlShutdown or nvmlDeviceGetHandleByIndex_v2";
    return;
  }
  if (api_.init() != kSuccess) {
    error_ = "nvmlInit_v2 failed";
    return;
  }
  initialised_ = true;
}

Library::~Library() {
  if (initialised_) api_.shutdown();
  if (library_ != nullptr) dlclose(library_);
}

Device Library::device_for_cuda_ordinal(int ordinal) {
  if (!initialised_) return nullptr;
  Device device = nullptr;
  char bus_id[32] = {};
  if (api_.handle_by_pci_bus_id != nullptr &&
      cudaDeviceGetPCIBusId(bus_id, static_cast<int>(sizeof(bus_id)), ordinal) == cudaSuccess &&
      api_.handle_by_pci_bus_id(bus_id, &device) == kSuccess) {
    return device;
  }
  (void)cudaGetLastError();
  if (api_.handle_by_index(static_cast<unsigned>(ordinal), &device) == kSuccess) return device;
  error_ = "nvmlDeviceGetHandleByPciBusId_v2 and nvmlDeviceGetHandleByIndex_v2 failed for device " +
           std::to_string(ordinal);
  return nullptr;
}

}  // namespace flashsim::hw::nvml
