// Which GPU a replay ran on, as the driver reports it: the provenance a
// recorded baseline carries (sim/validate/hw_backend.h, DeviceIdentity).
#pragma once
#include "sim/validate/hw_backend.h"

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
