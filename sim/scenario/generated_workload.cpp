#include "sim/scenario/generated_workload.h"

#include "sim/core/errors.h"
#include "sim/scenario/component_parse.h"
#include "sim/scenario/embedded_files.h"
#include "sim/scenario/param_check.h"
#include "sim/workload/workload_io.h"

#ifndef FLASHSIM_SCENARIOS_DIR
#define FLASHSIM_SCENARIOS_DIR ""
#endif

namespace flashsim {

namespace {

const std::vector<ParamSpec>& generated_workload_specs() {
  static const std::vector<ParamSpec> specs = {
      {"generator", ParamType::text, "serving", "workload generator (flashsim policies lists them)", -1e300, 1e300, {}},
      {"issue", ParamType::choice, "closed",
       "closed: next access when the previous completes (+compute); timestamp: at the generated ideal time", -1e300,
       1e300, {"closed", "timestamp"}},
      {"gap", ParamType::duration, "0ns", "closed loop: compute between accesses that carry none", 0, kMaxPerAccessDurationNs, {}},
  };
  return specs;
}

}  // namespace

bool is_generated_workload(const ConfigNode& node) {
  return node.is_map() && !node.find("trace") && (node.find("generator") || node.find("model"));
}

WorkloadContext scenario_workload_context(const std::filesystem::path& base_dir, std::uint64_t seed,
                                          const ComputeSpec& compute) {
  WorkloadContext c;
  c.seed = seed;
  c.compute = compute;
  c.base_dir = base_dir;
  const std::string scenarios = FLASHSIM_SCENARIOS_DIR;
  if (!scenarios.empty()) c.model_dirs.push_back(std::filesystem::path(scenarios) / "models");
  c.builtin_model_json = [](std::string_view name) -> std::optional<std::string> {
    if (const EmbeddedFile* f = find_embedded_file("models/" + std::string(name) + ".json")) return std::string(f->data);
    return std::nullopt;
  };
  return c;
}

WorkloadSpec resolve_generated_workload(const ConfigNode& node, const std::filesystem::path& base_dir,
                                        std::uint64_t scenario_seed, const ComputeSpec& compute, ConfigNode& resolved) {
  const ConfigNode* generator_node = node.find("generator");
  const std::string generator =
      generator_node ? expect_scalar(*generator_node, "workload.generator", "a generator name") : "serving";
  const auto& entry = find_component(WorkloadRegistry::instance(), generator,
                                     generator_node ? generator_node->pos : node.pos, "workload.generator",
                                     "workload generator");
  std::vector<ParamSpec> specs = generated_workload_specs();
  specs.insert(specs.end(), entry.params.begin(), entry.params.end());
  const ParamValues v = resolve_params(node, "workload", "workload generator " + generator, specs);

  WorkloadSpec w;
  w.generated = true;
  w.generator = generator;
  w.trace = "generator:" + generator;
  w.format = "generated";
  w.issue = v.text("issue") == "timestamp" ? IssueMode::timestamp : IssueMode::closed;
  w.gap_ns = v.duration_ns("gap");
  w.generator_context = scenario_workload_context(base_dir, scenario_seed, compute);
  for (const ParamSpec& s : entry.params) w.generator_params[s.name] = v.text(s.name);
  // File parameters become absolute, so the resolved scenario runs from anywhere.
  for (const char* key : {"model", "model_b", "routing_file", "transition_file"}) {
    auto it = w.generator_params.find(key);
    if (it == w.generator_params.end() || it->second.empty()) continue;
    const bool is_path = it->second.find('/') != std::string::npos || it->second.ends_with(".json") ||
                         it->second.ends_with(".csv");
    if (is_path && std::filesystem::path(it->second).is_relative()) {
      it->second = std::filesystem::absolute(base_dir / it->second).lexically_normal().string();
    }
  }
  auto seed = w.generator_params.find("seed");
  if (seed != w.generator_params.end() && seed->second == "-1") seed->second = std::to_string(scenario_seed);
  try {
    make_workload(generator, w.generator_params, w.generator_context);
  } catch (const InputError& e) {
    throw_at(node.pos, "workload", e.what());
  }

  resolved = ConfigNode::make_map();
  resolved.set("generator", ConfigNode::make_scalar(generator));
  for (const ParamSpec& s : entry.params) resolved.set(s.name, ConfigNode::make_scalar(w.generator_params[s.name]));
  resolved.set("issue", ConfigNode::make_scalar(v.text("issue")));
  resolved.set("gap", ConfigNode::make_scalar(v.text("gap")));
  return w;
}

}  // namespace flashsim
