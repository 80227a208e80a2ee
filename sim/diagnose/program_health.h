// What a captured program's recorded GPU timeline says about its fast tier,
// per step (from one step marker's host time to the next; the whole program
// when it has no marker): the bytes each copy direction moved and the time
// its copies took, how busy the kernels kept the GPU, and how long the GPU
// ran copies with no kernel running (the stall the article's "weight load
// time" costs). PCIe use is bytes/s over the calibrated ceiling of the
// direction (the profile's execution.h2d_bandwidth / d2h_bandwidth, else the
// host link's bandwidth; hw/H200.md, docs/hardware.md).
#pragma once
#include <cstdint>
#include <vector>

#include "sim/core/units.h"
#include "sim/engine/hardware_profile.h"
#include "traces/program.h"

namespace flashsim::diagnose {

/// One step's recorded timeline. Copies and kernels are attributed by their
/// recorded GPU interval's overlap with the step's window.
struct StepHealth {
  Nanoseconds start_ns = 0, duration_ns = 0;  ///< host time of the marker, to the next one
  ByteCount h2d_bytes = 0, d2h_bytes = 0;      ///< copies that started in the step
  Nanoseconds h2d_busy_ns = 0, d2h_busy_ns = 0;  ///< union of the direction's copy intervals in the window
  Nanoseconds kernel_busy_ns = 0;               ///< union of kernel intervals in the window
  Nanoseconds copy_stall_ns = 0;                ///< copies running and no kernel (H2D or D2H)
  double h2d_utilisation = 0, d2h_utilisation = 0;  ///< bytes / duration / ceiling
  double stall_share = 0;                           ///< copy_stall_ns / duration_ns
};

struct ProgramHealth {
  std::vector<StepHealth> steps;  ///< after the skipped ones
  std::size_t skipped_steps = 0;
  bool whole_program = false;  ///< no step marker: one step spanning the GPU timeline
  BytesPerSecond h2d_ceiling = 0, d2h_ceiling = 0;
  // Medians over `steps`.
  double median_step_ms = 0, median_weight_load_ms = 0, median_d2h_ms = 0;
  double median_h2d_utilisation = 0, median_d2h_utilisation = 0, median_stall_share = 0;
  double median_kernel_share = 0;  ///< kernel busy / step
  /// Bytes over busy time of each direction's copies, summed over `steps`:
  /// how fast the copies ran while they ran (pageable staging shows here as
  /// a small share of the ceiling, with the link far from busy).
  double h2d_while_copying_bytes_per_s = 0, d2h_while_copying_bytes_per_s = 0;
  /// The busier direction's median use (the table's "PCIe bandwidth").
  double pcie_utilisation() const { return median_h2d_utilisation > median_d2h_utilisation ? median_h2d_utilisation : median_d2h_utilisation; }
};

/// Measures `program` against `hardware`'s ceilings, leaving out the first
/// `skip_steps` steps (warm-up). Throws InputError when the program has no
/// GPU work, or when skipping leaves no step (naming both counts).
ProgramHealth measure_program_health(const Program& program, const HardwareProfile& hardware, std::size_t skip_steps);

}  // namespace flashsim::diagnose
