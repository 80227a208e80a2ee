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

}  // namespace flashsim
