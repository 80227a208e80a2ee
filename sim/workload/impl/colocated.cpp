// Generator "colocated": two models served side by side, for "sharing one
// fast tier vs each in its own partition". Model a is on stream 0, model b
// on stream 1; b's block ids follow a's (disjoint), catalog and operator
// names are prefixed "a/" and "b/". `only: a` or `only: b` keeps one model
// with the very same block ids, so a partitioned run is two runs (each model
// alone at its share of the capacity) and the shared run is `only: both`
// at the whole capacity.
#include "sim/core/errors.h"
#include "sim/workload/merged_workload.h"
#include "sim/workload/serving_factory.h"

namespace flashsim {

namespace {

std::vector<ParamSpec> colocated_specs() {
  std::vector<ParamSpec> specs = serving_param_specs("full");
  specs.push_back({"model_b", ParamType::text, "", "the second model (config.json path or name); `model` is the first",
                   -1e300, 1e300, {}});
  specs.push_back({"only", ParamType::choice, "both", "both models, or one of them alone (same ids): a, b", -1e300,
                   1e300, {"both", "a", "b"}});
  return specs;
}

std::unique_ptr<IWorkloadGenerator> make_colocated(const ParamValues& v, const WorkloadContext& c) {
  if (v.text("model_b").empty()) throw InputError("workload colocated: parameter 'model_b' is required");
  const ModelConfig a = resolve_model(v.text("model"), c);
  const ModelConfig b = resolve_model(v.text("model_b"), c);
  ServingOptions oa = serving_options_from(v, c);
  ServingOptions ob = oa;
  oa.name_prefix = "a/";
  ob.name_prefix = "b/";
  ob.stream_id = 1;
  ob.seed = derive_seed(oa.seed, 0xb);
  std::shared_ptr<const ServingWorkload> wa = make_serving_workload(a, v.text("granularity"), oa, c.compute, 0);
  const std::string& only = v.text("only");
  // Operator ids index the trace's operator list: b's follow a's only when both are in it.
  if (only == "both") ob.operator_base = static_cast<std::uint32_t>(wa->meta().operators.size());
  std::shared_ptr<const ServingWorkload> wb =
      make_serving_workload(b, v.text("granularity"), ob, c.compute, wa->end_id());
  std::vector<std::shared_ptr<const IWorkloadGenerator>> parts;
  if (only != "b") parts.push_back(wa);
  if (only != "a") parts.push_back(wb);
  return std::make_unique<MergedWorkload>(std::move(parts));
}

}  // namespace

FLASHSIM_REGISTER_WORKLOAD({"colocated",
                            "two models served at once on one fast tier (streams 0 and 1, disjoint block ids); "
                            "only: a|b for partitioned runs",
                            colocated_specs(), make_colocated});

}  // namespace flashsim
