// A scenario on the GPU: every policy at every sweep point replayed by
// hw/replay (one run at a time: one GPU), collected into the simulator's
// ScenarioResults so that results.h5 and summary.json have the simulator's
// schema (sim/results/results_writer.h), plus a /replay group of what only
// hardware has.
//
// results.h5 additions (beside the simulator's groups):
//   /replay            attributes: backing ("pinned"|"pageable"), kernel,
//                      no_cache, l2_mode, copy_streams, run_ahead, prefetcher
//                      ("scenario" when the runs use the scenario's own
//                      prefetchers), device (ordinal); the device's identity
//                      as hw/device_identity.h reads it when the suite
//                      starts: device_name, device_uuid, driver_version,
//                      cuda_driver_version, pci_bus_id, sm_clock_mhz,
//                      memory_clock_mhz, sm_clock_max_mhz,
//                      memory_clock_max_mhz, sm_clock_application_mhz,
//                      identity_source ("nvml"|"cudart"; clocks in MHz, 0 =
//                      not readable)
//   /replay/run_NNN/   attributes: allocator, decisions, decision_ns_total,
//                      decision_ns_mean/p50/p99/max (host policy cost),
//                      host_issue_seconds, checksum_mismatches,
//                      resident_checked, resident_mismatches, write_backs,
//                      decode_token_ns, recorded_decode_token_ns,
//                      tokens_per_second, host_store_bytes, nvml_status,
//                      access_log (file name); datasets token_start_ns,
//                      nvml_time_ns, nvml_memory_used_bytes,
//                      nvml_pcie_rx_bytes_per_s, nvml_pcie_tx_bytes_per_s,
//                      nvml_sm_clock_mhz, nvml_memory_clock_mhz, nvml_power_mw
// summary.json gains a "device" object (the identity, same keys without
// the device_ prefix on name/uuid: name, uuid, driver_version, ...,
// source) and a "replay" array with the same per-run attributes.
#pragma once
#include <filesystem>
#include <ostream>
#include <vector>

#include "hw/replay/replay.h"
#include "sim/results/run_result.h"
#include "sim/validate/hw_backend.h"
#include "sim/scenario/scenario_document.h"

namespace flashsim::hw {

struct ReplaySuite {
  ScenarioResults results;
  std::vector<ReplayRun> runs;  ///< same order as results.runs
  ReplayOptions options;
  DeviceIdentity device;        ///< read once, before the first run
};

/// Replays every run of `document` (the device's identity read first). When `log_dir` is not empty each run's
/// access log is written there as access_log_run_NNN.h5. Progress lines go
/// to `progress` (may be null). Throws InputError / Error as replay_trace.
ReplaySuite replay_scenario(const ScenarioDocument& document, const ReplayOptions& options,
                            const std::filesystem::path& log_dir, std::ostream* progress);

/// Writes `dir`/results.h5 and `dir`/summary.json atomically (temp files
/// renamed into place, results.h5 first). Throws Error naming the path.
void write_replay_results(const std::filesystem::path& dir, const ReplaySuite& suite);

/// The identity in two lines: name, UUID, PCI bus id; driver, CUDA driver
/// version, SM / memory clocks (current, max, application).
void print_device_identity(std::ostream& out, const DeviceIdentity& device);

/// One line per run: policy, capacity, hit ratio, misses, H2D bytes, stall,
/// p50/p99 latency, GPU time, decision ns/access, per-token times, checks.
void print_replay_table(std::ostream& out, const ReplaySuite& suite);

}  // namespace flashsim::hw
