// Workload generators: a model and a serving pattern in, the canonical trace
// (schema v1, traces/access_record.h) out, deterministic given the seed.
// A generator is a factory of trace readers: meta() (catalog: weights, KV
// pages, ...; operators: the per-token order) is known before the first
// record, and every open() replays the same records from the first, made
// on the fly in chunks (nothing is stored), so a workload can be replayed
// by many runs at once or saved to HDF5 (write_workload, workload_io.h).
// One file per generator under sim/workload/impl/, registered by name.
#pragma once
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/memory_limit.h"
#include "sim/core/registry.h"
#include "sim/engine/hardware_profile.h"
#include "traces/trace_source.h"

namespace flashsim {

/// What every generator gets beside its declared parameters.
struct WorkloadContext {
  std::uint64_t seed = 1;                 ///< the scenario's seed (a generator's `seed` parameter overrides it)
  ComputeSpec compute;                    ///< roofline rates for compute_ns (hardware profile `compute:`)
  std::filesystem::path base_dir = ".";   ///< relative file parameters (model, routing_file, ...) start here
  /// Folders searched for a model given by name: <dir>/<name>.json.
  std::vector<std::filesystem::path> model_dirs;
  /// A model's config.json text compiled into the binary, by name; may be empty.
  std::function<std::optional<std::string>(std::string_view name)> builtin_model_json;
  /// What a generator may plan to hold in memory (its catalog); 0 = no
  /// check. `workload generate --max-memory` and `run --max-memory` set it.
  ByteCount memory_limit_bytes = default_memory_limit_bytes();
};

class IWorkloadGenerator {
 public:
  virtual ~IWorkloadGenerator() = default;
  /// Catalog, operators and source of the trace; record_count 0 (unknown
  /// until generated: write_workload and the sinks count).
  virtual const TraceMeta& meta() const = 0;
  /// A new reader at the first record; every reader hands out the same
  /// records. Thread-safe (readers share only read-only state).
  virtual std::unique_ptr<ITraceSource> open() const = 0;
};

using WorkloadRegistry = Registry<IWorkloadGenerator, WorkloadContext>;

}  // namespace flashsim

/// FLASHSIM_REGISTER_WORKLOAD({"serving", "summary", specs, factory});
#define FLASHSIM_REGISTER_WORKLOAD(...) \
  FLASHSIM_REGISTER(::flashsim::WorkloadRegistry, ::flashsim::WorkloadRegistry::Entry(__VA_ARGS__))
