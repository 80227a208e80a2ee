#include "sim/model/operator_graph.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <unordered_map>

#include "sim/core/errors.h"
#include "tests/model/model_test_util.h"

namespace flashsim {
namespace {

using test::tiny_llama;

std::vector<BlockId> range(BlockId first, BlockId last) {
  std::vector<BlockId> out;
  for (BlockId i = first; i < last; ++i) out.push_back(i);
  return out;
}

OperatorVertex vertex(const OperatorGraph& g, const std::string& name) {
  for (auto v : boost::make_iterator_range(boost::vertices(g))) {
    if (g[v].name == name) return v;
  }
  ADD_FAILURE() << "no operator " << name;
  return 0;
}

bool has_edge(const OperatorGraph& g, const std::string& from, const std::string& to) {
  return boost::edge(vertex(g, from), vertex(g, to), g).second;
}

TEST(OperatorGraph, TinyLlamaOrderAndBlocksByHand) {
  const ModelConfig m = tiny_llama();
  const auto tensors = weight_tensors(m);
  // Tensor granularity: block i = tensor i (see weight_catalog_test).
  const OperatorGraph g = build_operator_graph(m, split_into_blocks(tensors, BlockGranularity::tensor()));
  const auto order = per_token_order(g);
  const std::vector<std::string> names = {"model.embed_tokens", "model.layers.0.self_attn", "model.layers.0.mlp",
                                          "model.layers.1.self_attn", "model.layers.1.mlp", "model.norm", "lm_head"};
  ASSERT_EQ(order.size(), names.size());
  for (std::size_t i = 0; i < names.size(); ++i) EXPECT_EQ(order[i].name, names[i]);
  EXPECT_EQ(order[0].blocks, std::vector<BlockId>{0});
  EXPECT_EQ(order[1].blocks, range(1, 6));   // norm, q, k, v, o
  EXPECT_EQ(order[2].blocks, range(6, 10));  // norm, gate, up, down
  EXPECT_EQ(order[3].blocks, range(10, 15));
  EXPECT_EQ(order[4].blocks, range(15, 19));
  EXPECT_EQ(order[5].blocks, std::vector<BlockId>{19});
  EXPECT_EQ(order[6].blocks, std::vector<BlockId>{20});
  EXPECT_EQ(order[1].layer, 0);
  EXPECT_EQ(order[3].layer, 1);
  EXPECT_EQ(order[6].segment, "decoder");
  EXPECT_EQ(boost::num_edges(g), 6u);  // a chain: residuals live inside operators

  // FLOPs per token = 2 · matrix weights: attention 2·(4096 + 2048 + 2048 + 4096),
  // mlp 2·3·8192, lm_head 2·6400; attention context term 4 · 4 heads · 16.
  const OperatorNode& attn = g[vertex(g, "model.layers.0.self_attn")];
  EXPECT_DOUBLE_EQ(attn.flops_per_token, 24'576.0);
  EXPECT_DOUBLE_EQ(attn.attention_flops_per_context_token, 256.0);
  EXPECT_EQ(attn.kv_bytes_per_context_token, 128u);  // 2 · 2 kv heads · 16 · 2 B
  EXPECT_EQ(attn.block_bytes, 128u + 8192 + 4096 + 4096 + 8192);
  EXPECT_EQ(attn.activation_bytes, 128u);
  EXPECT_DOUBLE_EQ(g[vertex(g, "model.layers.0.mlp")].flops_per_token, 49'152.0);
  EXPECT_DOUBLE_EQ(g[vertex(g, "lm_head")].flops_per_token, 12'800.0);
  EXPECT_DOUBLE_EQ(g[vertex(g, "model.embed_tokens")].flops_per_token, 0.0);
  EXPECT_TRUE(g[vertex(g, "model.embed_tokens")].row_lookup);
}

TEST(OperatorGraph, TinyLlamaAtFourKiB) {
  const ModelConfig m = tiny_llama();
  const auto order =
      per_token_order(build_operator_graph(m, split_into_blocks(weight_tensors(m), BlockGranularity::fixed(4096))));
  // embed 0-3; layer 0: attention 4-10 (norm 4, q 5-6, k 7, v 8, o 9-10),
  // mlp 11-23; layer 1: 24-30, 31-43; norm 44; lm_head 45-48.
  EXPECT_EQ(order[0].blocks, range(0, 4));
  EXPECT_EQ(order[1].blocks, range(4, 11));
  EXPECT_EQ(order[2].blocks, range(11, 24));
  EXPECT_EQ(order[3].blocks, range(24, 31));
  EXPECT_EQ(order[4].blocks, range(31, 44));
  EXPECT_EQ(order[5].blocks, std::vector<BlockId>{44});
  EXPECT_EQ(order[6].blocks, range(45, 49));
}

TEST(OperatorGraph, TiedLmHeadReadsTheEmbedding) {
  auto j = test::tiny_llama_json();
  j["tie_word_embeddings"] = true;
  const ModelConfig m = parse_model_config(j, "tied.json");
  const auto order = per_token_order(build_operator_graph(m, split_into_blocks(weight_tensors(m), {})));
  EXPECT_EQ(order.front().blocks, std::vector<BlockId>{0});
  EXPECT_EQ(order.back().name, "lm_head");
  EXPECT_EQ(order.back().blocks, std::vector<BlockId>{0});
}

// Property over every shipped model: the order is a permutation of the
// vertices that respects every edge, and every block is read by some operator.
TEST(OperatorGraph, TopologicalOrderRespectsEdgesForShippedModels) {
  for (const std::string& name : test::shipped_models()) {
    SCOPED_TRACE(name);
    const ModelConfig m = test::shipped(name);
    const ModelBlocks blocks = split_into_blocks(weight_tensors(m), BlockGranularity::tensor());
    const OperatorGraph g = build_operator_graph(m, blocks);
    const auto order = topological_order(g);
    ASSERT_EQ(order.size(), boost::num_vertices(g));
    std::vector<std::size_t> position(order.size());
    for (std::size_t i = 0; i < order.size(); ++i) position[order[i]] = i;
    std::set<OperatorVertex> distinct(order.begin(), order.end());
    EXPECT_EQ(distinct.size(), order.size());
    for (auto e : boost::make_iterator_range(boost::edges(g))) {
      EXPECT_LT(position[boost::source(e, g)], position[boost::target(e, g)])
          << g[boost::source(e, g)].name << " -> " << g[boost::target(e, g)].name;
    }
    std::set<BlockId> read;
    for (const OperatorEntry& op : per_token_order(g)) {
      read.insert(op.blocks.begin(), op.blocks.end());
      read.insert(op.routed_blocks.begin(), op.routed_blocks.end());
    }
    EXPECT_EQ(read.size(), blocks.catalog.size());
  }
}

TEST(OperatorGraph, MixtralRoutesExperts) {
  const ModelConfig m = test::shipped("mixtral-8x7b");
  const OperatorGraph g = build_operator_graph(m, split_into_blocks(weight_tensors(m), {}));
  const OperatorNode& moe = g[vertex(g, "model.layers.0.block_sparse_moe")];
  EXPECT_EQ(moe.kind, "moe");
  EXPECT_EQ(moe.blocks.size(), 2u);           // post_attention_layernorm, router
  ASSERT_EQ(moe.experts.size(), 8u);
  EXPECT_EQ(moe.experts[3].size(), 3u);       // w1, w3, w2
  EXPECT_EQ(moe.routed_blocks.size(), 24u);
  EXPECT_EQ(moe.experts_per_token, 2u);
  EXPECT_EQ(moe.bytes_per_expert, 3u * 4096 * 14336 * 2);
  // Router 2·8·4096 + 2 of 8 experts: 2 · 2 · (3·4096·14336).
  EXPECT_DOUBLE_EQ(moe.flops_per_token, 2.0 * 8 * 4096 + 2.0 * 2 * 3 * 4096 * 14336);
}

TEST(OperatorGraph, T5CrossAttentionConsumesTheEncoder) {
  const ModelConfig m = test::shipped("t5-base");
  const OperatorGraph g = build_operator_graph(m, split_into_blocks(weight_tensors(m), {}));
  for (int i = 0; i < 12; ++i) {
    EXPECT_TRUE(has_edge(g, "encoder.final_layer_norm", "decoder.block." + std::to_string(i) + ".EncDecAttention"));
  }
  EXPECT_EQ(g[vertex(g, "decoder.block.5.EncDecAttention")].segment, "cross_attention");
  const auto order = per_token_order(g);
  // Encoder stack first (insertion order), then the decoder; lm_head last.
  EXPECT_EQ(order.front().name, "encoder.embed_tokens");
  EXPECT_EQ(order[25].name, "encoder.final_layer_norm");
  EXPECT_EQ(order[26].name, "decoder.embed_tokens");
  EXPECT_EQ(order.back().name, "lm_head");
  // `shared.weight` (block 0) is read by both embeddings and the tied lm_head.
  EXPECT_EQ(order.front().blocks, std::vector<BlockId>{0});
  EXPECT_EQ(order[26].blocks, std::vector<BlockId>{0});
  EXPECT_EQ(order.back().blocks, std::vector<BlockId>{0});
  EXPECT_DOUBLE_EQ(g[vertex(g, "lm_head")].flops_per_token, 2.0 * 32128 * 768);
}

TEST(OperatorGraph, LlavaVisionFeedsTheLanguageModel) {
  const ModelConfig m = test::shipped("llava-1.5-7b");
  const OperatorGraph g = build_operator_graph(m, split_into_blocks(weight_tensors(m), {}));
  // vision_feature_layer -2 = hidden_states[23] = output of layer 22 (0-based).
  EXPECT_TRUE(has_edge(g, "vision_tower.vision_model.encoder.layers.22.mlp", "multi_modal_projector"));
  EXPECT_FALSE(has_edge(g, "vision_tower.vision_model.encoder.layers.23.mlp", "multi_modal_projector"));
  EXPECT_TRUE(has_edge(g, "multi_modal_projector", "language_model.model.layers.0.self_attn"));
  EXPECT_TRUE(has_edge(g, "language_model.model.embed_tokens", "language_model.model.layers.0.self_attn"));
  const auto order = per_token_order(g);
  std::size_t first_lm = 0;
  while (order[first_lm].segment == "vision") ++first_lm;
  EXPECT_EQ(first_lm, 1u + 48 + 1 + 1);  // embeddings, 24 · (attn, mlp), post_layernorm, projector
  EXPECT_EQ(order[first_lm].name, "language_model.model.embed_tokens");
  EXPECT_EQ(g[vertex(g, "multi_modal_projector")].tokens_per_pass, 576u);
  EXPECT_EQ(g[vertex(g, "vision_tower.vision_model.encoder.layers.0.self_attn")].tokens_per_pass, 577u);
}

TEST(OperatorGraph, CycleIsAnError) {
  OperatorGraph g;
  OperatorNode a, b, c;
  a.name = "a";
  b.name = "b";
  c.name = "c";
  const auto va = boost::add_vertex(a, g);
  const auto vb = boost::add_vertex(b, g);
  const auto vc = boost::add_vertex(c, g);
  boost::add_edge(va, vb, g);
  boost::add_edge(vb, vc, g);
  EXPECT_EQ(per_token_order(g).size(), 3u);
  boost::add_edge(vc, vb, g);
  EXPECT_THROW(per_token_order(g), Error);
  try {
    topological_order(g);
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'b'"), std::string::npos);
  }
}

TEST(OperatorGraph, MismatchedBlocksAreAnError) {
  const ModelConfig m = tiny_llama();
  ModelBlocks blocks = split_into_blocks(weight_tensors(m), {});
  blocks.tensor_blocks.pop_back();
  EXPECT_THROW(build_operator_graph(m, blocks), Error);
}

}  // namespace
}  // namespace flashsim
