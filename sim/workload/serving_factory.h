// Building serving workloads from a model and options, or from a
// generator's declared parameters (the registered generators use these).
#pragma once
#include <memory>
#include <string>

#include "sim/workload/serving_trace.h"

namespace flashsim {

/// `granularity`: "tensor", "seed" or a byte size (BlockGranularity::parse).
/// Weight block ids start at `first_id`. Throws InputError from the model
/// code and from ServingWorkload.
std::unique_ptr<ServingWorkload> make_serving_workload(const ModelConfig& model, const std::string& granularity,
                                                       ServingOptions options, const ComputeSpec& compute,
                                                       BlockId first_id = 0);

/// The same from resolved serving parameters (serving_param_specs):
/// resolves `model` (resolve_model), reads routing files.
std::unique_ptr<ServingWorkload> make_serving_workload(const ParamValues& values, const WorkloadContext& context);

}  // namespace flashsim
