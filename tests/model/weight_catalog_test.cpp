#include "sim/model/weight_catalog.h"

#include <gtest/gtest.h>

#include <set>

#include "tests/model/model_test_util.h"

namespace flashsim {
namespace {

using test::shipped;
using test::tiny_llama;

TEST(WeightCatalog, TinyLlamaEveryTensorByHand) {
  const auto t = weight_tensors(tiny_llama());
  // bf16 = 2 B. embed 100·64; per layer: norm 64, q 64·64, k 32·64 (2 kv
  // heads · 16), v 32·64, o 64·64, norm 64, gate/up 128·64, down 64·128;
  // final norm 64; lm_head 100·64.
  struct Expect {
    std::string name;
    ByteCount bytes;
    int layer;
    std::string kind;
  };
  std::vector<Expect> expect = {{"model.embed_tokens.weight", 12800, -1, "embedding"}};
  for (int l = 0; l < 2; ++l) {
    const std::string p = "model.layers." + std::to_string(l) + ".";
    expect.push_back({p + "input_layernorm.weight", 128, l, "norm"});
    expect.push_back({p + "self_attn.q_proj.weight", 8192, l, "attention"});
    expect.push_back({p + "self_attn.k_proj.weight", 4096, l, "attention"});
    expect.push_back({p + "self_attn.v_proj.weight", 4096, l, "attention"});
    expect.push_back({p + "self_attn.o_proj.weight", 8192, l, "attention"});
    expect.push_back({p + "post_attention_layernorm.weight", 128, l, "norm"});
    expect.push_back({p + "mlp.gate_proj.weight", 16384, l, "mlp"});
    expect.push_back({p + "mlp.up_proj.weight", 16384, l, "mlp"});
    expect.push_back({p + "mlp.down_proj.weight", 16384, l, "mlp"});
  }
  expect.push_back({"model.norm.weight", 128, -1, "norm"});
  expect.push_back({"lm_head.weight", 12800, -1, "lm_head"});
  ASSERT_EQ(t.size(), expect.size());
  for (std::size_t i = 0; i < t.size(); ++i) {
    SCOPED_TRACE(t[i].name);
    EXPECT_EQ(t[i].name, expect[i].name);
    EXPECT_EQ(t[i].bytes, expect[i].bytes);
    EXPECT_EQ(t[i].layer, expect[i].layer);
    EXPECT_EQ(t[i].kind, expect[i].kind);
    EXPECT_EQ(t[i].segment, "decoder");
  }
  // 12800 + 2 · 73,984 + 128 + 12800.
  EXPECT_EQ(total_bytes(t), 173'696u);
  EXPECT_EQ(t[2].op, "model.layers.0.self_attn");
  EXPECT_EQ(t[7].op, "model.layers.0.mlp");
  EXPECT_EQ(t[2].rows, 64u);
  EXPECT_EQ(t[2].cols, 64u);
}

TEST(WeightCatalog, TiedEmbeddingIsSharedAndLmHeadAbsent) {
  auto j = test::tiny_llama_json();
  j["tie_word_embeddings"] = true;
  const auto t = weight_tensors(parse_model_config(j, "tied.json"));
  ASSERT_EQ(t.size(), 20u);
  EXPECT_EQ(t.front().segment, "shared");
  EXPECT_EQ(t.back().name, "model.norm.weight");
  EXPECT_EQ(total_bytes(t), 173'696u - 12'800u);
}

TEST(WeightCatalog, Int4QuantisesOnlyLayerLinears) {
  auto j = test::tiny_llama_json();
  j["quantization_config"] = {{"bits", 4}, {"group_size", 128}};
  const auto t = weight_tensors(parse_model_config(j, "q.json"));
  // q: 4096 el -> 2048 + 32·2 = 2112; k,v: 2048 el -> 1024 + 16·2 = 1056;
  // gate/up/down: 8192 el -> 4096 + 64·2 = 4224. Norms, embed, lm_head stay bf16.
  EXPECT_EQ(t[2].bytes, 2112u);
  EXPECT_EQ(t[3].bytes, 1056u);
  EXPECT_EQ(t[7].bytes, 4224u);
  EXPECT_EQ(t[1].bytes, 128u);
  EXPECT_EQ(t[0].bytes, 12800u);
  const ByteCount layer = 128 + 2112 + 1056 + 1056 + 2112 + 128 + 3 * 4224;
  EXPECT_EQ(total_bytes(t), 12800 + 2 * layer + 128 + 12800);
}

// Parameter counts, worked by hand (and equal to the models' published counts).
TEST(WeightCatalog, ShippedParameterTotals) {
  // Llama-2-7B: embed 32000·4096 = 131,072,000 (and lm_head the same);
  // layer: 4·4096² = 67,108,864 + 3·4096·11008 = 135,266,304 + 2·4096 = 202,383,360;
  // 32 layers + 2·131,072,000 + 4096 = 6,738,415,616.
  EXPECT_EQ(total_elements(weight_tensors(shipped("llama-2-7b"))), 6'738'415'616u);
  // Mixtral-8x7B: layer = attention 2·4096² + 2·4096·1024 = 41,943,040
  // + experts 8·3·4096·14336 = 1,409,286,144 + router 8·4096 + norms 8192
  // = 1,451,270,144; ·32 + 2·131,072,000 + 4096 = 46,702,792,704.
  EXPECT_EQ(total_elements(weight_tensors(shipped("mixtral-8x7b"))), 46'702'792'704u);
  // Qwen2-7B: layer = 2·3584² + 2·3584·512 + biases 3584+512+512
  // + 3·3584·18944 + 2·3584 = 233,057,792; ·28 + 2·152064·3584 + 3584 = 7,615,616,512.
  EXPECT_EQ(total_elements(weight_tensors(shipped("qwen2-7b"))), 7'615'616'512u);
  // Phi-3-mini: layer = qkv 3·3072² + o 3072² + gate_up 2·8192·3072 + down
  // 3072·8192 + 2·3072 = 113,252,352; ·32 + 2·32064·3072 + 3072 = 3,821,079,552.
  EXPECT_EQ(total_elements(weight_tensors(shipped("phi-3-mini"))), 3'821'079'552u);
  // T5-base (lm_head tied to `shared`, counted once): shared 32128·768 =
  // 24,674,304; encoder block 4·768² + 2·768·3072 + 2·768 = 7,079,424, ·12
  // + relative bias 32·12 + final norm 768 = 84,954,240; decoder block
  // 8·768² + 2·768·3072 + 3·768 = 9,439,488, ·12 + 384 + 768 = 113,275,008.
  // Sum 222,903,552 (HF's num_parameters() for t5-base).
  EXPECT_EQ(total_elements(weight_tensors(shipped("t5-base"))), 222'903'552u);
  // LLaVA-1.5-7B: LM as Llama-2-7B with vocab 32064: 6,738,939,904; CLIP
  // ViT-L/14-336: class 1024 + patch 1024·3·14·14 + position 577·1024 +
  // pre-norm 2048 + 24·12,596,224 + post-norm 2048 = 303,507,456;
  // projector 1024·4096+4096 + 4096²+4096 = 20,979,712. Sum 7,063,427,072.
  EXPECT_EQ(total_elements(weight_tensors(shipped("llava-1.5-7b"))), 7'063'427'072u);

  // Bytes: fp16/bf16 2 B per parameter; t5-base ships float32.
  EXPECT_EQ(total_bytes(weight_tensors(shipped("llama-2-7b"))), 2 * 6'738'415'616u);
  EXPECT_EQ(total_bytes(weight_tensors(shipped("t5-base"))), 4 * 222'903'552u);
}

TEST(WeightCatalog, SegmentsAndKinds) {
  const auto t5 = weight_tensors(shipped("t5-base"));
  std::size_t cross = 0, shared = 0, position = 0;
  for (const auto& t : t5) {
    cross += t.segment == "cross_attention";
    shared += t.segment == "shared";
    position += t.kind == "position";
    if (t.name.find("EncDecAttention") != std::string::npos) {
      EXPECT_EQ(t.segment, "cross_attention");
    }
  }
  EXPECT_EQ(cross, 12u * 5);  // per decoder block: layer_norm + q, k, v, o
  EXPECT_EQ(shared, 1u);      // shared.weight
  EXPECT_EQ(position, 2u);    // relative_attention_bias in block 0 of each stack
  // Every layer has its own layer norms (the seed's "shared LayerNorm" is not T5's architecture).
  std::size_t norms = 0;
  for (const auto& t : t5) norms += t.kind == "norm";
  EXPECT_EQ(norms, 12u * 2 + 1 + 12u * 3 + 1);

  const auto mixtral = weight_tensors(shipped("mixtral-8x7b"));
  std::set<int> experts;
  std::size_t routers = 0;
  for (const auto& t : mixtral) {
    if (t.kind == "expert") experts.insert(t.expert);
    routers += t.kind == "router";
  }
  EXPECT_EQ(experts.size(), 8u);
  EXPECT_EQ(routers, 32u);
  // embed, norm, q, k, v, o, norm, router, then expert 0's w1.
  EXPECT_EQ(mixtral[8].name, "model.layers.0.block_sparse_moe.experts.0.w1.weight");
  EXPECT_EQ(mixtral[7].name, "model.layers.0.block_sparse_moe.gate.weight");

  const auto llava = weight_tensors(shipped("llava-1.5-7b"));
  std::size_t vision = 0, projector = 0;
  for (const auto& t : llava) {
    vision += t.segment == "vision";
    projector += t.kind == "projector";
  }
  EXPECT_EQ(projector, 4u);
  EXPECT_EQ(vision, 5u + 24u * 16 + 2 + 4);
  EXPECT_EQ(llava.back().name, "language_model.lm_head.weight");
}

}  // namespace
}  // namespace flashsim
