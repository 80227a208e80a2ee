// The hardware side of `flashsim validate` / `flashsim calibrate --fit`
// (sim/validate/hw_backend.h): registered at static initialisation, so the
// flashsim executable built with CUDA replays suite entries on the GPU.
#include "hw/cuda_check.h"
#include "hw/device_identity.h"
#include "sim/run/scenario_runner.h"
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
    // The entry's scenario on the gpu_replay engine (its parameters check the knobs' ranges).
    const std::string engine = engine_set_text("gpu_replay", {{"backing", knobs.backing},
                                                              {"no_cache", knobs.no_cache ? "true" : "false"},
                                                              {"copy_streams", std::to_string(knobs.copy_streams)},
                                                              {"run_ahead", std::to_string(knobs.run_ahead)},
                                                              {"device", std::to_string(knobs.device)},
                                                              {"access_log", "false"}});
    const ScenarioDocument on_gpu = ScenarioDocument::from_text(document.input_text(), document.display_name(),
                                                                document.base_dir(), {parse_override(engine)});
    RunnerOptions options;
    options.jobs = 1;
    HwReplayOutcome out;
    out.device = read_device_identity(knobs.device);
    out.results = run_scenario(on_gpu, options);
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
