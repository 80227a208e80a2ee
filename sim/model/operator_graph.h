// A model's operators as a Boost.Graph DAG (boost::adjacency_list, vecS,
// bidirectionalS): vertices are operators (one layer's attention, its MLP,
// the embedding, ...) with the weight blocks each reads; edges are data
// edges (an operator's output is another's input). An operator's output
// is the residual stream after it (x + f(norm(x))), so residual
// connections live inside operators and need no edges. Its topological
// order is the per-token access order and the lookahead of prefetchers
// (TraceMeta::operators).
//
// Per-request vs per-token: operators of segment "encoder" (T5) and
// "vision" (LLaVA tower and projector) run once per request (per image),
// over OperatorNode::tokens_per_pass tokens; "decoder", "cross_attention"
// and "shared" operators run once per generated token. A workload filters
// per_token_order() by segment.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <boost/graph/adjacency_list.hpp>

#include "sim/core/units.h"
#include "sim/model/block_split.h"
#include "sim/model/model_config.h"
#include "traces/access_record.h"

namespace flashsim {

struct OperatorNode {
  std::string name;          ///< "model.layers.3.self_attn", "model.embed_tokens", "lm_head", ...
  std::int32_t layer = -1;   ///< layer within its segment; -1 outside layers
  std::string segment;       ///< as WeightTensor::segment
  /// "embedding", "attention", "cross_attention", "mlp", "moe" (router +
  /// experts), "norm", "lm_head", "vision_embedding", "projector".
  std::string kind;
  /// Dense weight FLOPs per token: 2 · (weight elements it multiplies by)
  /// (a multiply-add per weight; Kaplan et al. 2020, §2.1). Embedding
  /// lookups: 0. MoE: the router plus top-k experts' 2·params.
  double flops_per_token = 0.0;
  /// Attention only: score + value FLOPs per token per context position,
  /// 4 · heads · head_dim (QKᵀ and AV, 2 FLOPs per multiply-add each).
  double attention_flops_per_context_token = 0.0;
  /// Attention only: KV-cache bytes read per token per context position
  /// (2 · kv_heads · head_dim · dtype bytes; T5 cross-attention reads the
  /// encoder's K/V instead).
  ByteCount kv_bytes_per_context_token = 0;
  /// Bytes of the output activation per token (hidden · dtype bytes; logits
  /// for lm_head: vocab · dtype bytes).
  ByteCount activation_bytes = 0;
  /// Tokens one pass processes: 1 for per-token operators; LLaVA vision
  /// operators: patches + 1 (projector: patches).
  std::uint64_t tokens_per_pass = 1;
  /// An embedding lookup reads one row per token, not the whole table;
  /// `blocks` still lists the whole table (offload systems move the module).
  bool row_lookup = false;
  std::vector<BlockId> blocks;         ///< weight blocks always read, in read order (no repeats)
  ByteCount block_bytes = 0;           ///< bytes of `blocks`
  /// MoE: every expert's blocks (experts[e] in read order); routed_blocks
  /// is their concatenation. A token reads top-k experts' blocks.
  std::vector<std::vector<BlockId>> experts;
  std::vector<BlockId> routed_blocks;
  std::uint32_t experts_per_token = 0;
  ByteCount bytes_per_expert = 0;      ///< bytes of one expert's blocks
};

/// Data edge: `bytes_per_token` of activations flow along it.
struct DataEdge {
  ByteCount bytes_per_token = 0;
};

using OperatorGraph =
    boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS, OperatorNode, DataEdge>;
using OperatorVertex = boost::graph_traits<OperatorGraph>::vertex_descriptor;

/// Builds the graph of `model` with the blocks of `blocks` (from
/// split_into_blocks or packed_blocks over weight_tensors(model), same
/// tensor order). Each tensor's blocks go to the operator named by
/// WeightTensor::op (a tied embedding: to the embedding and to lm_head).
/// Shapes:
///  - decoder-only (llama, qwen2, phi3): embed_tokens -> per layer
///    self_attn -> mlp -> norm -> lm_head;
///  - MoE (mixtral): mlp replaced by block_sparse_moe (router + routed experts);
///  - T5: encoder stack (embed, blocks, final_layer_norm), then the decoder
///    stack where each block's EncDecAttention also has an edge from the
///    encoder's final_layer_norm; lm_head reads the shared embedding (tied);
///  - LLaVA: vision embeddings -> tower layers -> (hidden state
///    vision_feature_layer) -> multi_modal_projector -> the language model's
///    first layer (beside embed_tokens); tower layers past the feature layer
///    and post_layernorm run but feed nothing.
/// Vertex insertion order is a valid topological order. Throws Error when
/// `blocks` does not cover the tensors of weight_tensors(model).
OperatorGraph build_operator_graph(const ModelConfig& model, const ModelBlocks& blocks);

/// The vertices in topological order: boost::topological_sort proves the
/// graph acyclic, then Kahn's algorithm taking the smallest vertex first
/// gives the order (= insertion order whenever that is topological).
/// Throws Error naming an operator that waits on a cycle.
std::vector<OperatorVertex> topological_order(const OperatorGraph& graph);

/// topological_order as OperatorEntry (name, layer, segment, blocks,
/// routed_blocks; compute_ns 0 -- fill it with fill_compute_ns, roofline.h).
/// Throws Error on a cycle.
std::vector<OperatorEntry> per_token_order(const OperatorGraph& graph);

}  // namespace flashsim
