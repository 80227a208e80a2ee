// `engine: program`: a captured program's execution model behind the
// scenario runner (sim/engine/program/program_engine.h), with its own parameters.
#include "sim/core/errors.h"
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

ParamSpec choice(const char* name, const char* fallback, const char* doc, std::vector<std::string> choices) {
  return {name, ParamType::choice, fallback, doc, -1e300, 1e300, std::move(choices)};
}

std::vector<ParamSpec> program_params() {
  return {
      choice("host_memory", "as_recorded",
             "the captured program's host buffers as_recorded, pinned or pageable (a what-if)",
             {"as_recorded", "pinned", "pageable"}),
      {"skip_steps", ParamType::integer, "0", "warm-up steps left out of TTFT/TPOT and the regimes", 0, 1e12, {}},
      choice("host_time", "calibrated",
             "a non-blocking call's host cost: calibrated (the profile's API costs for launches, copies, events) "
             "or recorded (the capture's, its own cost included)",
             {"calibrated", "recorded"}),
      {"capture_gap", ParamType::text, "measured",
       "the capture's cost taken off each recorded gap between calls: measured (the trace's probe figures, "
       "schema 3; none in older traces) or a duration (e.g. 2us)", -1e300, 1e300, {},
       [](const std::string& t) { parse_capture_gap(t); }},
      choice("copy_curves", "capture",
             "pageable copy time: capture (the curves the capture fitted from its own copies, schema 3; else the "
             "profile's), fit (fitted now from the trace's copies) or profile (the hardware profile's)",
             {"capture", "fit", "profile"}),
      choice("fresh_pages", "per_copy",
             "pageable D2H copies into never-touched host pages (first-touch faults): per_copy (as the capture "
             "recorded each copy's destination, schema 3), all or none",
             {"per_copy", "all", "none"}),
      choice("recorded_copy_time", "false",
             "copies take their recorded GPU time (an attribution run: how much error is the copy model's)",
             {"false", "true"}),
      {"static_placement", ParamType::bytes, "0",
       "static placement: the streamed blocks (read more than once) first read, in order, kept resident up to "
       "this many bytes, added to cache.capacity (accelerate's device_map, llama.cpp -ngl)",
       0, 1e18, {}},
      {"prefetch_distance", ParamType::integer, "-1",
       "H2D copies moved to a copy stream of their own, issued this many copies early (double buffering; "
       "0: at their own place); -1: as the program issued them",
       -1, 1024, {}},
      {"regime", ParamType::text, "steady",
       "the steps program.median_step_ns is of: steady (the last regime), first, all, or a regime number "
       "(one per flashsim.repeat mark, else change points over the captured step times)", -1e300, 1e300, {},
       [](const std::string& t) { check_regime(t); }},
  };
}

ProgramEngineOptions options_of(const ParamValues& v) {
  ProgramEngineOptions o;
  o.host_memory = host_memory_mode(v.text("host_memory"));
  o.skip_steps = static_cast<std::uint64_t>(v.integer("skip_steps"));
  o.host_time = v.text("host_time") == "recorded" ? HostTime::recorded : HostTime::calibrated;
  o.capture_gap_ns = parse_capture_gap(v.text("capture_gap"));  // checked by its spec
  const std::string& curves = v.text("copy_curves");
  o.copy_curves = curves == "profile" ? CopyCurveSource::profile
                  : curves == "fit"   ? CopyCurveSource::fit
                                      : CopyCurveSource::capture;
  const std::string& fresh = v.text("fresh_pages");
  o.fresh_pages = fresh == "all"    ? FreshPages::all
                  : fresh == "none" ? FreshPages::none
                                    : FreshPages::per_copy;
  o.recorded_copy_time = v.text("recorded_copy_time") == "true";
  o.static_placement_bytes = v.bytes("static_placement");
  o.prefetch_distance = v.integer("prefetch_distance");
  o.regime = v.text("regime");
  return o;
}

EngineTraits program_traits() {
  EngineTraits t;
  t.capabilities = {.models_time = true, .serving_metrics = true, .needs_program_trace = true};
  t.uses = {"hardware", "hardware.execution", "policies.admission", "cache.allocator", "cache.pin", "cache.size_change",
            "policies.as_recorded"};
  t.check_trace = [](const TraceMeta& meta, const ParamValues& v) {
    if (!meta.program || meta.program->empty()) throw InputError("workload.trace: the trace " + no_program_reason(meta));
    check_program_steps(*meta.program, options_of(v));
  };
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
                        return std::make_unique<ProgramEngine>(options_of(v));
                      },
                      program_traits()}));

}  // namespace
}  // namespace flashsim
