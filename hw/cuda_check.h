// Every CUDA runtime call of hw/ goes through FLASHSIM_CUDA_CHECK: a failure
// throws flashsim::Error naming the call, the file:line and CUDA's message.
#pragma once
#include <cuda_runtime_api.h>

#include <string>

#include "sim/core/errors.h"

namespace flashsim::hw {

/// Throws Error("`what` at file:line: <cudaGetErrorString>") unless status is cudaSuccess.
inline void cuda_check(cudaError_t status, const char* what, const char* file, int line) {
  if (status == cudaSuccess) return;
  throw Error(std::string("CUDA: ") + what + " at " + file + ":" + std::to_string(line) + ": " +
              cudaGetErrorName(status) + ": " + cudaGetErrorString(status));
}

/// True when a CUDA device is usable (a driver and at least one GPU).
inline bool cuda_device_present() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return count > 0;
}

}  // namespace flashsim::hw

#define FLASHSIM_CUDA_CHECK(call) ::flashsim::hw::cuda_check((call), #call, __FILE__, __LINE__)
