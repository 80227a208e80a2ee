#include "sim/validate/hw_backend.h"

#include "sim/core/errors.h"

namespace flashsim {
namespace {
const IHwBackend*& slot() {
  static const IHwBackend* backend = nullptr;
  return backend;
}
}  // namespace

void register_hw_backend(const IHwBackend* backend) {
  if (slot() != nullptr) throw Error("register_hw_backend: a hardware backend is already registered");
  slot() = backend;
}

const IHwBackend* hw_backend() { return slot(); }

std::string to_string(const HwReplayKnobs& k) {
  return "{backing: " + k.backing + ", run_ahead: " + std::to_string(k.run_ahead) + ", copy_streams: " + std::to_string(k.copy_streams) +
         (k.no_cache ? ", no_cache" : "") + "}";
}

}  // namespace flashsim
