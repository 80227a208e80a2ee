#include "sim/workload/workload_model.h"

#include <nlohmann/json.hpp>

#include "sim/core/errors.h"
#include "sim/model/roofline.h"
#include "sim/model/weight_catalog.h"

namespace flashsim {

namespace {

OperatorPass pass_of(const OperatorNode& op) {
  if (op.segment == "vision") return OperatorPass::vision;
  if (op.segment == "encoder" || op.name.starts_with("encoder.")) return OperatorPass::encoder;
  return OperatorPass::token;
}

}  // namespace

WorkloadModel build_workload_model(const ModelConfig& config, const BlockGranularity& granularity, BlockId first_id,
                                   const ComputeSpec& compute, std::uint64_t batch, std::uint64_t context_tokens,
                                   ByteCount memory_limit_bytes) {
  WorkloadModel m;
  m.config = config;
  m.granularity = granularity;
  m.first_id = first_id;
  const std::vector<WeightTensor> tensors = weight_tensors(config);
  m.blocks = split_into_blocks(tensors, granularity, first_id, memory_limit_bytes);
  const OperatorGraph graph = build_operator_graph(config, m.blocks);
  for (OperatorVertex v : topological_order(graph)) m.operators.push_back(graph[v]);
  m.entries = per_token_order(graph);
  fill_compute_ns(m.entries, graph, compute, batch, context_tokens);
  m.block_bytes.resize(m.blocks.catalog.size());
  for (const auto& e : m.blocks.catalog) {
    if (e.id < first_id || e.id - first_id >= m.block_bytes.size()) {
      throw Error("model " + config.name + ": block ids are not dense from " + std::to_string(first_id));
    }
    m.block_bytes[e.id - first_id] = e.bytes;
  }
  for (const auto& op : m.operators) {
    m.pass.push_back(pass_of(op));
    const bool moe = !op.experts.empty();
    m.moe_index.push_back(moe ? static_cast<std::int32_t>(m.moe_layers) : -1);
    if (moe) ++m.moe_layers;
  }
  return m;
}

std::filesystem::path resolve_path(const std::string& text, const WorkloadContext& context) {
  std::filesystem::path p(text);
  if (p.is_relative()) p = context.base_dir / p;
  return p.lexically_normal();
}

ModelConfig resolve_model(const std::string& ref, const WorkloadContext& context) {
  if (ref.empty()) throw InputError("workload: parameter 'model' is required (a config.json or a model name)");
  const bool is_path = ref.ends_with(".json") || ref.find('/') != std::string::npos;
  if (is_path) {
    const std::filesystem::path p = resolve_path(ref, context);
    if (!std::filesystem::is_regular_file(p)) throw InputError("model file not found: " + p.string());
    return load_model_config(p);
  }
  std::string searched;
  for (const auto& dir : context.model_dirs) {
    const std::filesystem::path p = dir / (ref + ".json");
    if (std::filesystem::is_regular_file(p)) return load_model_config(p);
    searched += (searched.empty() ? "" : ", ") + dir.string();
  }
  if (context.builtin_model_json) {
    if (auto text = context.builtin_model_json(ref)) {
      nlohmann::json json;
      try {
        json = nlohmann::json::parse(*text);
      } catch (const nlohmann::json::exception& e) {
        throw InputError("built-in model '" + ref + "': " + e.what());
      }
      return parse_model_config(json, "builtin:" + ref);
    }
    searched += std::string(searched.empty() ? "" : ", ") + "the built-in models";
  }
  throw InputError("unknown model '" + ref + "' (searched " + (searched.empty() ? "nothing" : searched) +
                   "; give a path to a config.json)");
}

}  // namespace flashsim
