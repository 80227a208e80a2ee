#include "kernels/calibrate_kernels.h"

namespace flashsim::kernels {

__global__ void calibrate_empty_kernel() {}

const void* empty_kernel_function() { return reinterpret_cast<const void*>(&calibrate_empty_kernel); }

}  // namespace flashsim::kernels
