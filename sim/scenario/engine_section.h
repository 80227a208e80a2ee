// The scenario's `engine:` section and the one check that every optional key
// a scenario writes is read by its engine (the engines declare what they use:
// EngineTraits::uses, sim/engine/engine_registry.h):
//
//   engine: {impl: program, host_memory: pinned, skip_steps: 2}
//   engine: cache_only            # the old spelling: still read, with a note
//
// Keys that moved under their engine (workload.host_memory and
// workload.skip_steps, now engine: {impl: program, ...}) are still read from
// their old place, with a note.
#pragma once
#include <string>
#include <vector>

#include "sim/engine/engine_registry.h"
#include "sim/scenario/component_parse.h"
#include "sim/scenario/config_tree.h"

namespace flashsim {

/// The optional scenario keys an engine may declare it uses, in a stable
/// order: hardware, workload.issue, workload.gap, decision_clock, prefetch,
/// policies.prefetch, policies.admission, policies.as_recorded (a policy
/// `as_recorded`), bandwidth.segment_shares, bandwidth.reservation,
/// serving.kv_resident, serving.occupancy_window, outputs.window,
/// cache.granularity, cache.allocator, cache.pin, cache.size_change,
/// cache.ignore_sizes.
const std::vector<std::string>& scenario_feature_keys();

/// Resolves `engine:` of scenario `tree` (absent: event) against
/// EngineRegistry, with the old spellings (a bare name; workload.host_memory
/// and workload.skip_steps) folded in and noted once (sim/core/warnings.h).
/// Throws InputError / UnknownNameError at the text: an unknown engine or
/// parameter, an old key given beside its new place, or an old key of an
/// engine that has no such parameter.
ResolvedComponent resolve_engine_section(const ConfigNode& tree);

/// Throws InputError at the first optional key of `tree` (see
/// scenario_feature_keys) that `engine` does not use: "FILE:LINE:COL: key
/// 'bandwidth': engine 'cache_only' does not use it (used by: event)".
/// `generated_workload`: the workload generator reads `hardware` itself
/// (its roofline rates), whatever the engine. Throws Error when an engine
/// declares a key that is not in the vocabulary (a registration defect).
void check_engine_uses(const ConfigNode& tree, const std::string& engine, bool generated_workload);

/// Removes from a resolved scenario tree the optional keys `engine` does not
/// use, so that the resolved text (results' /scenario) shows what the run
/// read and loads again (check_engine_uses passes on it).
void drop_unused_keys(ConfigNode& resolved, const std::string& engine, bool generated_workload);

/// Whether `tree`'s policies are all the policy as_recorded (at least one):
/// no run has a fast tier, so cache.capacity may be left out.
bool only_as_recorded_policies(const ConfigNode& tree);

}  // namespace flashsim
