// libnvidia-ml.so.1 loaded at run time (dlopen), shared by the NVML sampler
// (nvml_sampler.h) and the device identity (hw/device_identity.h): the
// development machine has neither nvml.h nor the library, and a missing
// NVML must never stop a replay, so callers check available() and fall
// back to the CUDA runtime.
//
// The few NVML declarations used are written out here with their documented
// values (NVML API reference, r580): nvmlReturn_t (NVML_SUCCESS = 0),
// nvmlClockType_t (GRAPHICS 0, SM 1, MEM 2, VIDEO 3), nvmlPcieUtilCounter_t
// (TX 0, RX 1) and the buffer sizes of the string queries.
#pragma once
#include <string>

namespace flashsim::hw::nvml {

using Return = int;
using Device = void*;
struct Memory {
  unsigned long long total, free, used;
};
inline constexpr Return kSuccess = 0;
inline constexpr int kClockSm = 1, kClockMem = 2;  // nvmlClockType_t
inline constexpr int kPcieTx = 0, kPcieRx = 1;     // nvmlPcieUtilCounter_t
inline constexpr unsigned kUuidBufferBytes = 96;           // NVML_DEVICE_UUID_V2_BUFFER_SIZE
inline constexpr unsigned kNameBufferBytes = 96;           // NVML_DEVICE_NAME_V2_BUFFER_SIZE
inline constexpr unsigned kDriverVersionBufferBytes = 80;  // NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE

/// The entry points used; a null pointer is a symbol the library lacks.
struct Api {
  Return (*init)() = nullptr;                                  // nvmlInit_v2
  Return (*shutdown)() = nullptr;                              // nvmlShutdown
  Return (*handle_by_index)(unsigned, Device*) = nullptr;      // nvmlDeviceGetHandleByIndex_v2
  Return (*handle_by_pci_bus_id)(const char*, Device*) = nullptr;  // nvmlDeviceGetHandleByPciBusId_v2
  Return (*memory_info)(Device, Memory*) = nullptr;            // nvmlDeviceGetMemoryInfo
  Return (*pcie_throughput)(Device, int, unsigned*) = nullptr; // nvmlDeviceGetPcieThroughput (KB/s)
  Return (*clock_info)(Device, int, unsigned*) = nullptr;      // nvmlDeviceGetClockInfo (current, MHz)
  Return (*max_clock_info)(Device, int, unsigned*) = nullptr;  // nvmlDeviceGetMaxClockInfo (MHz)
  Return (*applications_clock)(Device, int, unsigned*) = nullptr;  // nvmlDeviceGetApplicationsClock (MHz)
  Return (*power_usage)(Device, unsigned*) = nullptr;          // nvmlDeviceGetPowerUsage (mW)
  Return (*name)(Device, char*, unsigned) = nullptr;           // nvmlDeviceGetName
  Return (*uuid)(Device, char*, unsigned) = nullptr;           // nvmlDeviceGetUUID
  Return (*driver_version)(char*, unsigned) = nullptr;         // nvmlSystemGetDriverVersion
};

/// One loaded and initialised NVML (nvmlInit_v2 / nvmlShutdown are
/// reference counted by NVML, so several instances may coexist).
class Library {
 public:
  /// dlopen + nvmlInit_v2; never throws (available()/error() say how it went).
  Library();
  ~Library();  ///< nvmlShutdown, dlclose
  Library(const Library&) = delete;
  Library& operator=(const Library&) = delete;

  bool available() const { return initialised_; }
  const std::string& error() const { return error_; }
  const Api& api() const { return api_; }

  /// NVML's handle of CUDA device `ordinal`: looked up by the device's PCI
  /// bus id (cudaDeviceGetPCIBusId), since NVML's and CUDA's orderings
  /// differ under CUDA_VISIBLE_DEVICES or CUDA_DEVICE_ORDER; by index when
  /// that fails. nullptr (and error() set) when neither works.
  Device device_for_cuda_ordinal(int ordinal);

 private:
  void* library_ = nullptr;
  bool initialised_ = false;
  std::string error_;
  Api api_;
};

}  // namespace flashsim::hw::nvml
