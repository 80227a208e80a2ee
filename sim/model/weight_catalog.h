// Every weight tensor of a model, with Hugging Face (safetensors) names,
// bytes, layer, kind and segment: the raw material of the block catalog
// (block_split.h) and of the operator graph (operator_graph.h).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "sim/core/units.h"
#include "sim/model/model_config.h"

namespace flashsim {

/// One weight tensor (a parameter of the model as transformers names it).
struct WeightTensor {
  std::string name;       ///< e.g. "model.layers.3.mlp.up_proj.weight"
  ByteCount bytes = 0;    ///< DType::tensor_bytes(elements) of its dtype
  std::int32_t layer = -1;  ///< layer index within its segment; -1 = not in a layer
  /// "embedding", "position" (position embeddings, relative attention
  /// bias), "attention" (q/k/v/o, fused qkv, their biases), "mlp"
  /// (gate/up/down, wi/wo, fc1/fc2), "expert" (one MoE expert's w1/w2/w3),
  /// "router" (MoE gate), "norm", "lm_head", "projector" (LLaVA).
  std::string kind;
  /// "decoder", "encoder", "cross_attention" (T5 EncDecAttention and its
  /// layer norm), "vision" (LLaVA tower and projector), "shared" (tied
  /// embedding: T5's `shared.weight`, or embed_tokens when
  /// tie_word_embeddings says lm_head reuses it).
  std::string segment;
  std::uint64_t elements = 0;
  std::uint64_t rows = 0;   ///< out_features (matrices) or elements (vectors)
  std::uint64_t cols = 1;   ///< in_features (matrices); 1 for vectors
  std::int32_t expert = -1; ///< MoE expert index; -1 = not an expert tensor
  DType dtype;              ///< storage type (weight_dtype for quantised linears)
  /// Operator (operator_graph.h node name) that reads it, e.g.
  /// "model.layers.3.self_attn"; tied tensors name their first reader.
  std::string op;
};

/// All weight tensors of `model`, in the order the model's forward pass
/// first reads them (embedding, then layer by layer, then final norm and
/// lm_head; T5: shared, encoder, decoder; LLaVA: vision tower, projector,
/// language model). Layouts follow transformers' modeling_<type>.py:
///  - llama/mixtral/qwen2: model.embed_tokens, model.layers.N.{input_layernorm,
///    self_attn.{q,k,v,o}_proj (+ q/k/v bias for qwen2), post_attention_layernorm,
///    mlp.{gate,up,down}_proj | block_sparse_moe.{gate, experts.E.{w1,w2,w3}}},
///    model.norm, lm_head (absent when tied);
///  - phi3: self_attn.qkv_proj and mlp.gate_up_proj fused;
///  - t5: shared, {encoder,decoder}.block.N.layer.M.{SelfAttention|EncDecAttention
///    .{q,k,v,o}, layer_norm, DenseReluDense.{wi|wi_0,wi_1,wo}},
///    relative_attention_bias in block 0 of each stack, final_layer_norm;
///    lm_head only when not tied (T5 v1 ties it to shared);
///  - llava: vision_tower.vision_model.{embeddings.{class_embedding,
///    patch_embedding, position_embedding}, pre_layrnorm, encoder.layers.N.*,
///    post_layernorm}, multi_modal_projector.linear_{1,2}, then
///    language_model.{model.*, lm_head} as llama.
/// Throws nothing for a config parse_model_config accepted.
std::vector<WeightTensor> weight_tensors(const ModelConfig& model);

/// Sum of bytes / elements of `tensors` (tied tensors appear once).
ByteCount total_bytes(const std::vector<WeightTensor>& tensors);
std::uint64_t total_elements(const std::vector<WeightTensor>& tensors);

}  // namespace flashsim
