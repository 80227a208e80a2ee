#include "sim/model/model_config.h"

#include <gtest/gtest.h>

#include <fstream>

#include "sim/core/errors.h"
#include "tests/model/model_test_util.h"
#include "tests/support/temp_dir.h"

namespace flashsim {
namespace {

using test::shipped;
using test::tiny_llama;
using test::tiny_llama_json;

std::string error_of(const nlohmann::json& j, const std::string& source = "llama-2-7b.json") {
  try {
    parse_model_config(j, source);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(ModelConfig, TinyDefaults) {
  const ModelConfig m = tiny_llama();
  EXPECT_EQ(m.architecture, Architecture::llama);
  EXPECT_EQ(m.head_dim, 16u);  // 64 / 4
  EXPECT_EQ(m.num_key_value_heads, 2u);
  EXPECT_EQ(m.decoder_layers, 2u);
  EXPECT_EQ(m.encoder_layers, 0u);
  EXPECT_EQ(m.dtype.name, "bf16");
  EXPECT_EQ(m.weight_dtype.name, "bf16");
  // 2 (K,V) · 2 layers · 2 kv heads · 16 · 2 B = 256 B.
  EXPECT_EQ(m.kv_bytes_per_token(), 256u);
}

TEST(ModelConfig, MissingKeyNamesFileAndKey) {
  nlohmann::json j = tiny_llama_json();
  j.erase("hidden_size");
  EXPECT_EQ(error_of(j), "llama-2-7b.json: key 'hidden_size' missing");
  j = tiny_llama_json();
  j["num_attention_heads"] = -3;
  EXPECT_NE(error_of(j).find("key 'num_attention_heads' must be a positive integer"), std::string::npos);
  j = tiny_llama_json();
  j["model_type"] = "gpt2";
  EXPECT_NE(error_of(j).find("unknown model_type 'gpt2'"), std::string::npos);
  j = tiny_llama_json();
  j["num_key_value_heads"] = 3;  // does not divide 4
  EXPECT_NE(error_of(j).find("num_key_value_heads"), std::string::npos);
  j = tiny_llama_json();
  j["torch_dtype"] = "float8";
  EXPECT_NE(error_of(j).find("torch_dtype"), std::string::npos);
  nlohmann::json llava = {{"model_type", "llava"}, {"text_config", nlohmann::json::object()}};
  EXPECT_EQ(error_of(llava, "x.json"), "x.json: key 'vision_config' missing");
}

TEST(ModelConfig, AbsurdSizesAndIndivisibleHeadsAreErrorsNotExhaustedMemory) {
  nlohmann::json j = tiny_llama_json();
  j["hidden_size"] = 1'000'000'000'000;
  EXPECT_EQ(error_of(j), "llama-2-7b.json: key 'hidden_size' = 1000000000000 is beyond any real model (at most 131072 accepted)");
  j = tiny_llama_json();
  j["num_hidden_layers"] = 1'000'000;
  EXPECT_NE(error_of(j).find("key 'num_hidden_layers' = 1000000 is beyond any real model"), std::string::npos);
  j = tiny_llama_json();
  j["vocab_size"] = 1'000'000'000'000;
  EXPECT_NE(error_of(j).find("key 'vocab_size'"), std::string::npos);
  j = tiny_llama_json();
  j["hidden_size"] = 63;  // 4 heads: no whole head_dim
  EXPECT_EQ(error_of(j), "llama-2-7b.json: key 'hidden_size' (63) is not a multiple of num_attention_heads (4) and no "
                         "head_dim is given");
  j["head_dim"] = 16;  // an explicit head_dim decouples them (as HF allows)
  EXPECT_EQ(error_of(j), "(no error)");
  // The largest shipped model stays far inside the bounds.
  EXPECT_NO_THROW(shipped("mixtral-8x7b"));
}

TEST(ModelConfig, LoadErrorsNameThePath) {
  test::TempDir dir;
  const auto bad = dir.path() / "bad.json";
  std::ofstream(bad) << "{ not json";
  EXPECT_THROW(load_model_config(bad), InputError);
  EXPECT_THROW(load_model_config(dir.path() / "absent.json"), InputError);
  try {
    load_model_config(bad);
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("bad.json"), std::string::npos);
  }
}

TEST(ModelConfig, Int4GroupScalesByHand) {
  // 4096 int4 elements, group 128, 16-bit scale: 4096·4/8 = 2048 B of data
  // + 4096/128 = 32 scales · 2 B = 64 B -> 2112 B.
  const DType int4 = int_dtype(4, 128, 16);
  EXPECT_EQ(int4.tensor_bytes(4096), 2112u);
  // 100 elements, group 64: 50 B + ceil(100/64) = 2 scales · 2 B = 54 B.
  EXPECT_EQ(int_dtype(4, 64, 16).tensor_bytes(100), 54u);
  // Odd count: 3 int4 = 1.5 B -> 2 B, + 1 scale = 4 B.
  EXPECT_EQ(int_dtype(4, 64, 16).tensor_bytes(3), 4u);
  // int8, group 128, asymmetric (16-bit scale + 8-bit zero = 24 bits): 4096 + 32·3 = 4192 B.
  EXPECT_EQ(int_dtype(8, 128, 24).tensor_bytes(4096), 4192u);
  EXPECT_EQ(float_dtype("float16").tensor_bytes(4096), 8192u);
  EXPECT_EQ(float_dtype("float32").tensor_bytes(10), 40u);
  EXPECT_THROW(int_dtype(3, 128, 16), InputError);
  EXPECT_THROW(int_dtype(4, 0, 16), InputError);
}

TEST(ModelConfig, QuantizationConfig) {
  nlohmann::json j = tiny_llama_json();
  j["quantization_config"] = {{"quant_method", "gptq"}, {"bits", 4}, {"group_size", 128}, {"sym", true}};
  ModelConfig m = parse_model_config(j, "q.json");
  EXPECT_EQ(m.weight_dtype.name, "int4");
  EXPECT_EQ(m.weight_dtype.group_size, 128u);
  EXPECT_EQ(m.weight_dtype.scale_bits, 16u);
  EXPECT_EQ(m.dtype.name, "bf16");  // activations and KV stay bf16
  EXPECT_EQ(m.kv_bytes_per_token(), 256u);
  j["quantization_config"]["sym"] = false;  // + a 4-bit zero point per group
  EXPECT_EQ(parse_model_config(j, "q.json").weight_dtype.scale_bits, 20u);
  j["quantization_config"] = {{"load_in_8bit", true}};
  m = parse_model_config(j, "q.json");
  EXPECT_EQ(m.weight_dtype.bits, 8u);
  EXPECT_EQ(m.weight_dtype.group_size, 128u);
  j["quantization_config"] = {{"bits", 3}};
  EXPECT_NE(error_of(j).find("must be 4 or 8"), std::string::npos);
}

TEST(ModelConfig, ShippedModels) {
  const ModelConfig llama = shipped("llama-2-7b");
  EXPECT_EQ(llama.hidden_size, 4096u);
  EXPECT_EQ(llama.dtype.name, "fp16");
  EXPECT_EQ(llama.name, "meta-llama/Llama-2-7b-hf");
  // 2 · 32 · 32 · 128 · 2 B = 524,288 B = 512 KiB per token (MHA).
  EXPECT_EQ(llama.kv_bytes_per_token(), 524'288u);

  const ModelConfig qwen = shipped("qwen2-7b");
  EXPECT_EQ(qwen.architecture, Architecture::qwen2);
  EXPECT_TRUE(qwen.attention_bias);
  // GQA: 2 · 28 · 4 · 128 · 2 B = 57,344 B per token.
  EXPECT_EQ(qwen.kv_bytes_per_token(), 57'344u);

  const ModelConfig mixtral = shipped("mixtral-8x7b");
  EXPECT_EQ(mixtral.num_local_experts, 8u);
  EXPECT_EQ(mixtral.num_experts_per_tok, 2u);
  EXPECT_EQ(mixtral.kv_bytes_per_token(), 2u * 32 * 8 * 128 * 2);  // 131,072 B

  const ModelConfig phi = shipped("phi-3-mini");
  EXPECT_TRUE(phi.fused_qkv);
  EXPECT_EQ(phi.head_dim, 96u);
  EXPECT_EQ(phi.kv_bytes_per_token(), 2u * 32 * 32 * 96 * 2);  // 393,216 B

  const ModelConfig t5 = shipped("t5-base");
  EXPECT_EQ(t5.architecture, Architecture::t5);
  EXPECT_EQ(t5.encoder_layers, 12u);
  EXPECT_EQ(t5.decoder_layers, 12u);  // num_decoder_layers absent: = num_layers
  EXPECT_TRUE(t5.tie_word_embeddings);
  EXPECT_FALSE(t5.gated_mlp);
  EXPECT_EQ(t5.dtype.name, "fp32");  // no torch_dtype: float32, as transformers
  // Decoder self-attention KV: 2 · 12 · 12 · 64 · 4 B = 73,728 B; cross K/V per encoder token the same.
  EXPECT_EQ(t5.kv_bytes_per_token(), 73'728u);
  EXPECT_EQ(t5.cross_kv_bytes_per_encoder_token(), 73'728u);

  const ModelConfig llava = shipped("llava-1.5-7b");
  ASSERT_TRUE(llava.vision.has_value());
  EXPECT_EQ(llava.hidden_size, 4096u);  // LlamaConfig default: text_config omits it
  EXPECT_EQ(llava.num_hidden_layers, 32u);
  EXPECT_EQ(llava.vocab_size, 32064u);
  EXPECT_EQ(llava.vision->hidden_size, 1024u);
  EXPECT_EQ(llava.vision->num_patches(), 576u);  // (336/14)^2
  EXPECT_EQ(llava.vision->tower_tokens(), 577u);
  EXPECT_EQ(llava.vision->vision_feature_layer, -2);
  EXPECT_EQ(llava.kv_bytes_per_token(), 524'288u);
}

}  // namespace
}  // namespace flashsim
