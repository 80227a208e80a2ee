#include "sim/diagnose/program_levers.h"

#include <memory>

#include "sim/core/errors.h"
#include "sim/diagnose/registered_policies.h"
#include "sim/engine/program/program_executor.h"
#include "sim/engine/program/program_prefetch.h"
#include "sim/engine/program/static_placement.h"

namespace flashsim::diagnose {
namespace {

double median_ms(const ProgramPrediction& p, std::size_t skip, bool recorded = false) {
  if (p.step_durations(skip, recorded).empty()) {
    throw InputError(std::to_string(p.step_start_ns.size()) + " step marks: skipping " + std::to_string(skip) +
                     " steps leaves no step to measure");
  }
  return p.median_step_ns(skip, recorded) / 1e6;
}

}  // namespace

ProgramLevers simulate_program_levers(const TraceMeta& meta, const std::vector<AccessRecord>& records,
                                      const HardwareProfile& hardware, const LeverOptions& options) {
  if (!meta.program || meta.program->empty()) throw InputError("the trace has no program (capture schema 2)");
  ProgramLevers out;
  const std::size_t skip = options.skip_steps;
  ExecutorOptions base;  // calibrated host time, host memory as recorded, every copy made
  const ProgramPrediction as_captured = run_program(meta, records, hardware, base);
  out.recorded_median_step_ms = median_ms(as_captured, skip, true);
  out.model_median_step_ms = median_ms(as_captured, skip);
  out.model_error = (out.model_median_step_ms - out.recorded_median_step_ms) / out.recorded_median_step_ms;
  auto add = [&](std::string name, std::string what, double ms, bool offline = false) {
    out.levers.push_back({std::move(name), std::move(what), ms,
                          (ms - out.model_median_step_ms) / out.model_median_step_ms, offline});
  };
  add("as_captured", "the program as captured (the model's baseline)", out.model_median_step_ms);

  ExecutorOptions pinned = base;
  pinned.host_memory = HostMemoryMode::pinned;
  add("pinned", "host buffers pinned (cudaHostRegister / pin_memory): DMA without the driver's staging",
      median_ms(run_program(meta, records, hardware, pinned), skip));

  TraceMeta prefetched = meta;
  prefetched.program = std::make_shared<const Program>(with_prefetch(*meta.program, options.prefetch_distance));
  add("prefetch",
      options.prefetch_distance == 0
          ? "pinned, and every H2D copy on a copy stream of its own at its own place (no longer queued behind kernels)"
          : "pinned, and every H2D copy on a copy stream issued " + std::to_string(options.prefetch_distance) +
                " copy(ies) early (double buffering)",
      median_ms(run_program(prefetched, records, hardware, pinned), skip));

  if (options.tier_capacity_bytes > 0) {
    const StaticPlacement placed = first_streamed_blocks(records, options.tier_capacity_bytes);
    ExecutorOptions resident = base;
    resident.as_recorded = false;
    resident.cache.pinned.blocks = placed.blocks;
    resident.cache.capacity_bytes = placed.bytes;
    if (placed.bytes > 0) {
      add("resident_first", "the first " + std::to_string(placed.bytes) +
                                " B of streamed blocks kept on the GPU (static placement: accelerate device_map, "
                                "llama.cpp -ngl)",
          median_ms(run_program(meta, records, hardware, resident), skip));
    }
    const std::vector<std::string> names = options.policies.empty() ? registered_policy_names(&meta) : options.policies;
    double best = 0;
    for (const std::string& name : names) {
      ExecutorOptions tier = base;
      tier.as_recorded = false;
      tier.cache.eviction.impl = name;
      tier.cache.capacity_bytes = options.tier_capacity_bytes;
      const bool offline = is_offline_policy(name);
      const double ms = median_ms(run_program(meta, records, hardware, tier), skip);
      add("tier:" + name,
          "a fast tier of " + std::to_string(options.tier_capacity_bytes) + " B under " + name +
              (offline ? " (offline: knows the future; a reference)" : ""),
          ms, offline);
      if (!offline && ms < out.model_median_step_ms && (out.best_policy.empty() || ms < best)) {
        best = ms;
        out.best_policy = name;
      }
    }
  }
  return out;
}

}  // namespace flashsim::diagnose
