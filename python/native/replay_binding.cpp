// flashsim.replay is flashsim.run with the gpu_replay engine, in this
// process, so that policies and prefetchers registered from Python drive
// the GPU replay; the engine registers itself when the module is built with
// CUDA (hw/replay/gpu_replay_engine.cpp).
#include "python/native/replay_binding.h"

#include "sim/engine/engine_registry.h"

namespace flashsim::python {

bool have_replay() { return EngineRegistry::instance().has("gpu_replay"); }

}  // namespace flashsim::python
