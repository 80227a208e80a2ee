// A scenario: the hardware, the workload (a trace), the fast-tier cache, the
// policies to compare, and the outputs — everything one `flashsim run`
// needs. The schema is documented in docs/scenarios.md; this header holds
// the resolved form (every default filled in) that the runner consumes.
#pragma once
#include <cstdint>
#include <filesystem>
#include <optional>
#include <map>
#include <string>
#include <vector>

#include "sim/core/decision_clock.h"
#include "sim/engine/engine.h"
#include "sim/engine/engine_registry.h"
#include "sim/engine/hardware_profile.h"
#include "sim/scenario/config_tree.h"
#include "sim/workload/i_workload_generator.h"

namespace flashsim {

struct WorkloadSpec {
  std::string trace;                  ///< as resolved: absolute path, or "builtin:NAME"
  bool builtin = false;               ///< trace names a file embedded in the binary
  std::string builtin_name;           ///< NAME of "builtin:NAME"
  std::string builtin_file;           ///< the embedded file's name, e.g. "llama-2048x22.csv"
  std::filesystem::path path;         ///< file path (when !builtin)
  std::string format;                 ///< TraceFormatRegistry name: hdf5, csv, oraclegeneral, kineto
  IssueMode issue = IssueMode::closed;
  Nanoseconds gap_ns = 0;             ///< closed loop: compute between accesses when the trace has none
  std::map<std::string, std::string> import_options;  ///< the format's options, resolved (defaults included)
  // --- generated workloads: `workload: {generator: serving, model: ..., preset: ..., ...}`
  // (docs/workloads.md); then trace = "generator:NAME", format = "generated".
  bool generated = false;
  std::string generator;                                ///< WorkloadRegistry name
  std::map<std::string, std::string> generator_params;  ///< resolved (defaults included; seed made explicit)
  WorkloadContext generator_context;                    ///< seed, roofline rates, base folder, model folders
};

/// Fast-tier capacity: absolute, or a fraction of the trace's footprint
/// (sum of the sizes of its distinct blocks), known only after a pass over it.
struct CapacitySpec {
  std::string text;          ///< as written: "2GiB", "50%"
  bool is_fraction = false;
  double fraction = 0.0;     ///< in (0, 1] ("50%" -> 0.5) when is_fraction
  ByteCount bytes = 0;       ///< when !is_fraction

  /// Capacity for a trace of `footprint_bytes` (floor of fraction × footprint).
  ByteCount resolve(ByteCount footprint_bytes) const;
  /// Parses "2GiB" or "50%" (a share in (0%, 100%]). Throws UnitError (not a
  /// size or a number) or InputError (out of range, 0 bytes); the messages
  /// name the text, not the key (callers add it).
  static CapacitySpec parse(std::string_view text);
};

struct CacheSpec {
  CapacitySpec capacity;
  ByteCount granularity_bytes = 0;         ///< split blocks into pieces of this size; 0 = whole blocks
  ComponentChoice allocator{"bytes", {}};  ///< resolved params (defaults included)
  PinSpec pinned;
  SizeChange size_change = SizeChange::refetch;  ///< cache.size_change
  bool ignore_sizes = false;                     ///< cache.ignore_sizes (capacity in blocks)
  /// Where cache.capacity was written at a point whose policies are all
  /// as_recorded (it reads no capacity); resolve_points refuses it when
  /// every point of the sweep is so (a sweep may mix such points with others).
  std::optional<SourcePos> unused_capacity;
};

/// One policy to run: registered name, parameters as resolved (defaults
/// included) and those the user wrote (for labels).
struct PolicyChoice {
  ComponentChoice choice;
  std::map<std::string, std::string> user_params;
  /// The entry's own `prefetch:` list, replacing the scenario's when has_prefetch.
  bool has_prefetch = false;
  std::vector<ComponentChoice> prefetchers;
  std::vector<std::map<std::string, std::string>> prefetcher_user_params;  ///< as written, per prefetcher
  /// The entry's `admission:` ("always" when absent: every miss cached).
  ComponentChoice admission{"always", {}};
  std::map<std::string, std::string> admission_user_params;
  /// "lru" or "mlru(age_window=100ms,variant=literal)": the user-given params
  /// only; an entry's own prefetchers follow as "+NAME" or "+NAME(params)"
  /// ("lru+lookahead", "lru+expert_speculative(accuracy=0.6)"),
  /// its admission as "+admit:NAME(params)" ("lru+admit:adaptsize").
  std::string label() const;
};

struct OutputsSpec {
  std::string dir;            ///< results folder, relative to the working directory
  Nanoseconds window_ns = 0;  ///< time-series window (0 = one window)
};

struct Scenario {
  std::string name;
  std::string description;
  std::string source;                  ///< where the scenario came from (file path or "<builtin:default>")
  /// `engine:`: an EngineRegistry name and its parameters, resolved
  /// (sim/engine/engine_registry.h, sim/scenario/engine_section.h).
  ComponentChoice engine{"event", {}};
  HardwareProfile hardware;
  WorkloadSpec workload;
  CacheSpec cache;
  std::vector<PolicyChoice> policies;  ///< at least one; each runs as a separate result
  DecisionClock decision_clock = DecisionClock::trace;
  std::uint64_t seed = 1;
  OutputsSpec outputs;
  // --- event-engine options (sim/scenario/engine_options.h) ---
  std::vector<ComponentChoice> prefetchers;           ///< `prefetch:`, for policies without their own
  std::map<std::string, double> segment_shares;       ///< `bandwidth.segment_shares`
  ReservationSpec reservation;                        ///< `bandwidth.reservation`
  bool kv_resident = false;                           ///< `serving.kv_resident`
  Nanoseconds occupancy_sample_ns = 100'000'000;      ///< `serving.occupancy_window`
  ConfigNode resolved;                 ///< the resolved scenario as a tree (to_yaml_text emits it)

  /// What the engine declares (its registry entry's traits).
  const EngineTraits& engine_traits() const;

  /// The EngineConfig of policy `policy_index` at fast-tier capacity `capacity_bytes`.
  EngineConfig engine_config(std::size_t policy_index, ByteCount capacity_bytes) const;
};

}  // namespace flashsim
