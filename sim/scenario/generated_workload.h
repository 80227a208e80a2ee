// The generator form of a scenario's workload (docs/workloads.md):
//
//   workload:
//     generator: serving          # WorkloadRegistry name (default serving)
//     model: mixtral-8x7b         # a config.json path, or a name in scenarios/models/
//     preset: short               # ... and the generator's other parameters
//     granularity: 2MiB
//     issue: closed               # as for traces
//
// instead of `trace:`. The seed defaults to the scenario's, the roofline
// rates come from the hardware profile's `compute:` section.
#pragma once
#include <cstdint>
#include <filesystem>

#include "sim/engine/hardware_profile.h"
#include "sim/scenario/config_tree.h"
#include "sim/scenario/scenario.h"

namespace flashsim {

/// True when `node` is a map with `generator` or `model` and no `trace`.
bool is_generated_workload(const ConfigNode& node);

/// Resolves the generator form: checks every key against the generator's
/// declared parameters and builds the generator once, so that a bad model,
/// routing file or option fails here, at the workload's position. Fills
/// `resolved` with every parameter (the seed as a number).
WorkloadSpec resolve_generated_workload(const ConfigNode& node, const std::filesystem::path& base_dir,
                                        std::uint64_t scenario_seed, const ComputeSpec& compute, ConfigNode& resolved);

/// The context generators get in this build: model names are looked up in
/// the source tree's scenarios/models/ and in the models compiled into the
/// binary (embedded models/NAME.json).
WorkloadContext scenario_workload_context(const std::filesystem::path& base_dir, std::uint64_t seed,
                                          const ComputeSpec& compute);

}  // namespace flashsim
