// The hardware side of `flashsim validate` / `flashsim calibrate --fit`
// (sim/validate/hw_backend.h): registered at static initialisation, so the
// flashsim executable built with CUDA replays suite entries on the GPU.
#include "hw/cuda_check.h"
#include "hw/device_identity.h"
#include "hw/replay/replay_suite.h"
#include "sim/core/errors.h"
#include "sim/validate/hw_backend.h"

namespace flashsim::hw {
namespace {

class GpuReplayBackend final : public IHwBackend {
 public:
  bool device_present() const override {
    try {
      return cuda_device_present();
    } catch (...) {
      return false;
    }
  }

  DeviceIdentity identity(int ordinal) const override { return read_device_identity(ordinal); }

  HwReplayOutcome replay(const ScenarioDocument& document, const HwReplayKnobs& knobs) const override {
    if (knobs.backing != "pinned" && knobs.backing != "pageable") {
      throw InputError("hardware replay: backing '" + knobs.backing + "': expected pinned or pageable");
    }
    if (knobs.copy_streams < 1 || knobs.copy_streams > 64) throw InputError("hardware replay: copy_streams: expected 1 to 64");
    if (knobs.run_ahead < 1 || knobs.run_ahead > 4096) throw InputError("hardware replay: run_ahead: expected 1 to 4096");
    ReplayOptions o;
    o.backing = knobs.backing == "pageable" ? HostMemory::pageable : HostMemory::pinned;
    o.no_cache = knobs.no_cache;
    o.copy_streams = knobs.copy_streams;
    o.run_ahead = knobs.run_ahead;
    o.device = knobs.device;
    o.nvml = true;
    ReplaySuite suite = replay_scenario(document, o, /*log_dir=*/{}, /*progress=*/nullptr);
    HwReplayOutcome out;
    out.results = std::move(suite.results);
    out.device = std::move(suite.device);
    return out;
  }
};

[[maybe_unused]] const bool registered = [] {
  static const GpuReplayBackend backend;
  register_hw_backend(&backend);
  return true;
}();

}  // namespace
}  // namespace flashsim::hw
