// Whether this module runs the GPU replay (`engine: {impl: gpu_replay}`).
#pragma once

namespace flashsim::python {

/// True when the gpu_replay engine is registered in this module (built with
/// the CUDA replay, hw/).
bool have_replay();

}  // namespace flashsim::python
