// The seam between the CUDA-free validation code (sim/validate) and the GPU
// replay (hw/replay): `flashsim validate` and `flashsim calibrate --fit`
// run on builds without CUDA, so the hardware side registers itself here
// at static initialisation (hw/cli/validate_backend.cpp, compiled into the
// flashsim executable only when CUDA is present). No backend registered or
// no device visible: validate reads recorded baselines instead.
#pragma once
#include <cstdint>
#include <string>

#include "hw/device_identity.h"
#include "sim/results/run_result.h"
#include "sim/scenario/scenario_document.h"

namespace flashsim {

/// How one validation entry is replayed (the subset of `flashsim replay`'s
/// options a suite entry may set; hw/replay/replay.h documents each).
struct HwReplayKnobs {
  std::string backing = "pinned";   ///< "pinned" | "pageable"
  bool no_cache = false;
  unsigned copy_streams = 1;
  unsigned run_ahead = 8;
  int device = 0;
  bool operator==(const HwReplayKnobs&) const = default;
};

/// "{backing: pinned, run_ahead: 8, copy_streams: 1[, no_cache]}" (the device is not part of it).
std::string to_string(const HwReplayKnobs& knobs);

/// One replay of a scenario document on the GPU, in the simulator's schema.
struct HwReplayOutcome {
  ScenarioResults results;          ///< one RunResult per policy × sweep point
  DeviceIdentity device;
};

class IHwBackend {
 public:
  virtual ~IHwBackend() = default;
  /// True when a CUDA device is visible (never throws).
  virtual bool device_present() const = 0;
  /// The identity of device `ordinal`. Throws Error when it cannot be read.
  virtual DeviceIdentity identity(int ordinal) const = 0;
  /// Replays every run of `document` once (policies' own prefetchers
  /// included). Throws InputError for a configuration the replay cannot run,
  /// Error for CUDA failures.
  virtual HwReplayOutcome replay(const ScenarioDocument& document, const HwReplayKnobs& knobs) const = 0;
};

/// Registers the backend (called once, at static initialisation, by hw/).
/// A second registration throws Error.
void register_hw_backend(const IHwBackend* backend);

/// The registered backend, or nullptr on a build without CUDA.
const IHwBackend* hw_backend();

}  // namespace flashsim
