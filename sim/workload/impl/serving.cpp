// Generator "serving": requests of one model, prefill then decode, with
// continuous batching (sim/workload/serving_trace.h). Works for every
// architecture of sim/model: decoder-only (dense and MoE), T5
// (encoder-decoder) and LLaVA (vision tower, projector, language model).
#include "sim/workload/serving_factory.h"

namespace flashsim {

FLASHSIM_REGISTER_WORKLOAD({"serving",
                            "requests of one model: prefill then decode, continuous batching, paged KV, MoE routing "
                            "(Orca, OSDI 2022; vLLM PagedAttention, SOSP 2023)",
                            serving_param_specs("full"),
                            [](const ParamValues& v, const WorkloadContext& c) -> std::unique_ptr<IWorkloadGenerator> {
                              return make_serving_workload(v, c);
                            }});

}  // namespace flashsim
