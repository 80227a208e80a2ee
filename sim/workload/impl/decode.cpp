// Generator "decode": decode steps only. The prompt's KV pages exist before
// the first step (computed elsewhere, held in the backing tier), so the
// trace is the token-by-token generation phase alone.
#include "sim/workload/serving_factory.h"

namespace flashsim {

FLASHSIM_REGISTER_WORKLOAD({"decode",
                            "decode only: the serving generator with prefill: none (the prompt's KV pages pre-exist)",
                            serving_param_specs("none"),
                            [](const ParamValues& v, const WorkloadContext& c) -> std::unique_ptr<IWorkloadGenerator> {
                              return make_serving_workload(v, c);
                            }});

}  // namespace flashsim
