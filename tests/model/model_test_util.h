// Shared fixtures of the model tests: the tiny hand-counted config and the
// shipped scenarios/models/ files.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/model/model_config.h"

namespace flashsim::test {

/// A 2-layer llama: hidden 64, intermediate 128, 4 heads of 16, 2 KV heads,
/// vocab 100, bf16, untied. Every count in the tests is worked from these.
inline nlohmann::json tiny_llama_json(unsigned layers = 2) {
  return nlohmann::json{{"model_type", "llama"},        {"hidden_size", 64},     {"intermediate_size", 128},
                        {"num_hidden_layers", layers},  {"num_attention_heads", 4}, {"num_key_value_heads", 2},
                        {"vocab_size", 100},            {"torch_dtype", "bfloat16"}, {"tie_word_embeddings", false}};
}

inline ModelConfig tiny_llama(unsigned layers = 2) { return parse_model_config(tiny_llama_json(layers), "tiny.json"); }

inline std::filesystem::path models_dir() { return std::filesystem::path(FLASHSIM_SOURCE_DIR) / "scenarios" / "models"; }

inline std::vector<std::string> shipped_models() {
  return {"llama-2-7b", "qwen2-7b", "phi-3-mini", "mixtral-8x7b", "t5-base", "llava-1.5-7b"};
}

inline ModelConfig shipped(const std::string& name) { return load_model_config(models_dir() / (name + ".json")); }

}  // namespace flashsim::test
