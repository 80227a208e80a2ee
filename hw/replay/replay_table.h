// What `flashsim replay` prints beside `flashsim run`'s tables: the device's
// identity and, per run, the replay's own statistics (the gpu_replay
// engine's `replay` and `device` components, hw/replay/gpu_replay_engine.cpp)
// read from a results folder's summary.json.
#pragma once
#include <filesystem>
#include <ostream>

#include "hw/device_identity.h"

namespace flashsim::hw {

/// The identity in two lines: name, UUID, PCI bus id; driver, CUDA driver
/// version, SM / memory clocks (current, max, application).
void print_device_identity(std::ostream& out, const DeviceIdentity& device);

/// One line per run of `dir`/summary.json: policy, capacity, decision ns per
/// access (in the driver, and isolated), mean decode-token time (replayed
/// and recorded), and the data checks ("ok(N)": N resident slots checked,
/// or MISMATCH). Throws InputError naming the file when it cannot be read
/// or a run has no replay components (not a gpu_replay result).
void print_replay_table(std::ostream& out, const std::filesystem::path& dir);

}  // namespace flashsim::hw
