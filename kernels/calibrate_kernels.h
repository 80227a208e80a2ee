// Kernels of the calibration's execution-model probes (hw/calibrate): an
// empty kernel whose launch cost the host measures through cudaLaunchKernel.
#pragma once
#include <cuda_runtime_api.h>

namespace flashsim::kernels {

/// The host-side handle of `__global__ void empty_kernel()` (no parameters),
/// to pass to cudaLaunchKernel (args may be null). Throws nothing.
const void* empty_kernel_function();

}  // namespace flashsim::kernels
