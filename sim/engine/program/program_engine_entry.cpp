// `engine: program`: a captured program's execution model behind the
// scenario runner (sim/engine/program/program_engine.h), with its own parameters.
#include "sim/engine/engine_registry.h"
#include "sim/engine/program/program_engine.h"

namespace flashsim {
namespace {

class ProgramEngine final : public IEngine {
 public:
  explicit ProgramEngine(const ProgramEngineOptions& options) : options_(options) {}
  EngineResult run(ITraceSource& trace, const EngineConfig& config) override {
    return run_program_engine(trace, config, options_);
  }

 private:
  ProgramEngineOptions options_;
};

std::vector<ParamSpec> program_params() {
  return {
      {"host_memory", ParamType::choice, "as_recorded",
       "the captured program's host buffers as_recorded, pinned or pageable (a what-if)", -1e300, 1e300,
       {"as_recorded", "pinned", "pageable"}},
      {"skip_steps", ParamType::integer, "0", "warm-up steps left out of TTFT/TPOT", 0, 1e12, {}},
  };
}

EngineTraits program_traits() {
  EngineTraits t;
  t.capabilities = {.models_time = true, .serving_metrics = true, .needs_program_trace = true};
  t.uses = {"hardware", "policies.admission", "cache.granularity", "cache.allocator", "cache.pin", "cache.size_change",
            "policies.as_recorded"};
  t.statistics = cache_statistics();
  for (const char* s : {"simulated_ns", "requests", "output_tokens", "tokens_per_second", "ttft_mean_ns", "ttft_p50_ns",
                        "ttft_p90_ns", "ttft_p99_ns", "tpot_mean_ns", "tpot_p50_ns", "tpot_p99_ns", "e2e_p50_ns",
                        "e2e_p90_ns", "e2e_p99_ns"}) {
    t.statistics.emplace_back(s);
  }
  return t;
}

FLASHSIM_REGISTER(EngineRegistry,
                  (EngineRegistry::Entry{
                      "program", "a captured program's execution model (docs/capture.md): its steps as TTFT/TPOT",
                      program_params(),
                      [](const ParamValues& v, const EngineContext&) -> std::unique_ptr<IEngine> {
                        ProgramEngineOptions o;
                        o.host_memory = host_memory_mode(v.text("host_memory"));
                        o.skip_steps = static_cast<std::uint64_t>(v.integer("skip_steps"));
                        return std::make_unique<ProgramEngine>(o);
                      },
                      program_traits()}));

}  // namespace
}  // namespace flashsim
