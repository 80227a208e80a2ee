// Hardware profiles from YAML (scenarios/hardware/*.yaml) and the
// scenario's `hardware:` section: either `profile: REF` plus overrides, or
// the profile written inline. Every key is checked against the declared
// ParamSpecs of LinkSpec, TierSpec, TlbSpec, L2Spec and ContentionSpec
// (sim/engine/hardware_profile.h).
//
// A profile file has the keys: name, source, profile (inherit another
// profile and override it), miss_penalty, tiers (list, fast tier first; each
// {name, capacity, hit_latency, policy, link: {latency, bandwidth, sharing}}),
// tlb {...}, l2 {...}, contention {...}, compute {peak_flops, hbm_bandwidth}.
#pragma once
#include <filesystem>
#include <string>
#include <string_view>

#include "sim/engine/hardware_profile.h"
#include "sim/scenario/config_tree.h"

namespace flashsim {

/// The profile a scenario gets without a `hardware:` section.
inline constexpr std::string_view kDefaultHardwareProfile = "seed-defaults";

/// Finds and parses profile `ref`, flattening its own `profile:` chain.
/// Lookup order: `base_dir`/REF, `base_dir`/REF.yaml, the source tree's
/// scenarios/hardware/REF[.yaml] (when the binary's source tree exists),
/// then the profiles embedded in the binary. "builtin:NAME" looks only at
/// the embedded ones. Throws InputError at `pos` when it is found nowhere
/// (listing the built-in names) or the chain is deeper than 8.
ConfigNode load_hardware_profile_tree(std::string_view ref, const std::filesystem::path& base_dir, const SourcePos& pos);

/// Resolves a `hardware:` node (nullptr: the default profile) into a
/// HardwareProfile; `resolved` receives the section in inline form with
/// every default filled in. Throws InputError / UnitError /
/// UnknownNameError naming file:line:column and the dotted key.
HardwareProfile resolve_hardware(const ConfigNode* node, const std::filesystem::path& base_dir, ConfigNode& resolved);

/// Loads and resolves profile `ref` on its own (same lookup as above).
HardwareProfile load_hardware_profile(std::string_view ref, const std::filesystem::path& base_dir = {});

}  // namespace flashsim
