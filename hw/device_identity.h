// Which GPU a replay ran on, as the driver reports it: the provenance a
// recorded baseline carries (sim/validate/baseline.h). The record is plain
// C++ (validation reads it on machines without CUDA); reading it from a
// device (read_device_identity) is in CUDA builds only.
#pragma once
#include <string>

namespace flashsim {

/// What identifies the GPU a baseline was recorded on, as the driver reports
/// it (NVML where available, CUDA runtime otherwise). Clocks in MHz, read
/// when the replay starts; 0 = not available.
struct DeviceIdentity {
  std::string name;                 ///< "NVIDIA H200"
  std::string uuid;                 ///< "GPU-xxxxxxxx-xxxx-..." (nvidia-smi form)
  std::string driver_version;       ///< NVML nvmlSystemGetDriverVersion, e.g. "570.133.20"
  int cuda_driver_version = 0;      ///< cudaDriverGetVersion, e.g. 13000
  std::string pci_bus_id;           ///< "0000:19:00.0"
  unsigned sm_clock_mhz = 0;        ///< current SM clock
  unsigned memory_clock_mhz = 0;    ///< current memory clock
  unsigned sm_clock_max_mhz = 0;    ///< maximum SM clock
  unsigned memory_clock_max_mhz = 0;
  unsigned sm_clock_application_mhz = 0;  ///< application (target) SM clock
  std::string source;               ///< "nvml" or "cudart" (what could be read)
};

}  // namespace flashsim

namespace flashsim::hw {

/// The identity of CUDA device `ordinal`. From NVML (nvml/nvml_library.h,
/// the device looked up by PCI bus id): name, UUID (nvmlDeviceGetUUID),
/// driver version (nvmlSystemGetDriverVersion), current / maximum SM and
/// memory clocks (nvmlDeviceGetClockInfo, nvmlDeviceGetMaxClockInfo) and the
/// application SM clock (nvmlDeviceGetApplicationsClock); source "nvml".
/// Without NVML (or for a field it cannot read): the CUDA runtime's name,
/// UUID (cudaDeviceProp::uuid, formatted as nvidia-smi does: gpu_uuid.h)
/// and peak clocks (cudaDevAttrClockRate / cudaDevAttrMemoryClockRate, kHz
/// / 1000); current and application clocks stay 0, driver_version empty;
/// source "cudart". Always from the runtime: cuda_driver_version
/// (cudaDriverGetVersion) and pci_bus_id (cudaDeviceGetPCIBusId,
/// "0000:19:00.0"). Throws Error naming the call when the device cannot be
/// queried (no such ordinal, no driver).
DeviceIdentity read_device_identity(int ordinal);

}  // namespace flashsim::hw
