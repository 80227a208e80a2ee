#include "sim/workload/serving_factory.h"

#include "sim/core/errors.h"

namespace flashsim {

std::unique_ptr<ServingWorkload> make_serving_workload(const ModelConfig& model, const std::string& granularity,
                                                       ServingOptions options, const ComputeSpec& compute,
                                                       BlockId first_id) {
  const BlockGranularity g = BlockGranularity::parse(granularity, model);
  auto built = std::make_shared<const WorkloadModel>(
      build_workload_model(model, g, first_id, compute, options.concurrency, options.prompt_tokens,
                           options.memory_limit_bytes));
  return std::make_unique<ServingWorkload>(std::move(built), std::move(options), compute);
}

std::unique_ptr<ServingWorkload> make_serving_workload(const ParamValues& values, const WorkloadContext& context) {
  const ModelConfig model = resolve_model(values.text("model"), context);
  return make_serving_workload(model, values.text("granularity"), serving_options_from(values, context),
                               context.compute);
}

}  // namespace flashsim
