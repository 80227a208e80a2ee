// Small models and helpers for the workload tests.
#pragma once
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/model/model_config.h"
#include "sim/workload/serving_factory.h"
#include "sim/workload/workload_io.h"

namespace flashsim::test {

/// 2 layers, hidden 64, 4 heads (head_dim 16), 2 KV heads, fp16, vocab 256, untied.
inline ModelConfig tiny_llama() {
  const nlohmann::json j = {{"model_type", "llama"},       {"hidden_size", 64},        {"intermediate_size", 128},
                            {"num_hidden_layers", 2},      {"num_attention_heads", 4}, {"num_key_value_heads", 2},
                            {"vocab_size", 256},           {"torch_dtype", "float16"}, {"tie_word_embeddings", false}};
  return parse_model_config(j, "tiny-llama");
}

/// tiny_llama with 4 experts, top-2.
inline ModelConfig tiny_mixtral(std::uint32_t experts = 4, std::uint32_t top_k = 2) {
  const nlohmann::json j = {{"model_type", "mixtral"},   {"hidden_size", 64},        {"intermediate_size", 128},
                            {"num_hidden_layers", 2},    {"num_attention_heads", 4}, {"num_key_value_heads", 2},
                            {"vocab_size", 256},         {"torch_dtype", "float16"}, {"num_local_experts", experts},
                            {"num_experts_per_tok", top_k}};
  return parse_model_config(j, "tiny-mixtral");
}

/// 2 encoder and 2 decoder blocks.
inline ModelConfig tiny_t5() {
  const nlohmann::json j = {{"model_type", "t5"}, {"d_model", 64},      {"d_ff", 128},    {"d_kv", 16},
                            {"num_layers", 2},    {"num_heads", 4},     {"vocab_size", 256},
                            {"feed_forward_proj", "relu"},              {"torch_dtype", "float16"}};
  return parse_model_config(j, "tiny-t5");
}

/// 2 text layers, a 2-layer tower over 32/16 = 4 patches per side (16 image tokens).
inline ModelConfig tiny_llava() {
  const nlohmann::json text = {{"model_type", "llama"},      {"hidden_size", 64},        {"intermediate_size", 128},
                               {"num_hidden_layers", 2},     {"num_attention_heads", 4}, {"num_key_value_heads", 2},
                               {"vocab_size", 256}};
  const nlohmann::json vision = {{"hidden_size", 32}, {"intermediate_size", 64}, {"num_hidden_layers", 2},
                                 {"num_attention_heads", 2}, {"image_size", 32}, {"patch_size", 8}};
  const nlohmann::json j = {{"model_type", "llava"}, {"text_config", text}, {"vision_config", vision},
                            {"torch_dtype", "float16"}, {"vision_feature_layer", -1}};
  return parse_model_config(j, "tiny-llava");
}

inline ComputeSpec test_compute() {
  ComputeSpec c;
  c.peak_flops = 1e12;
  c.hbm_bandwidth = 1e12;
  return c;
}

inline ServingOptions options(std::uint32_t concurrency, std::uint32_t requests, std::uint32_t prompt,
                              std::uint32_t output) {
  ServingOptions o;
  o.concurrency = concurrency;
  o.requests = requests;
  o.prompt_tokens = prompt;
  o.output_tokens = output;
  return o;
}

inline std::vector<AccessRecord> all_records(const IWorkloadGenerator& g) {
  return generate_in_memory(g)->records();
}

/// Catalog name of each block id.
inline std::map<BlockId, const BlockCatalogEntry*> by_id(const TraceMeta& meta) {
  std::map<BlockId, const BlockCatalogEntry*> out;
  for (const auto& e : meta.catalog) out[e.id] = &e;
  return out;
}

}  // namespace flashsim::test
