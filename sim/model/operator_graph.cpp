#include "sim/model/operator_graph.h"

#include <algorithm>
#include <functional>
#include <iterator>
#include <queue>
#include <string>
#include <unordered_map>

#include <boost/graph/topological_sort.hpp>

#include "sim/core/errors.h"
#include "sim/model/weight_catalog.h"

namespace flashsim {

namespace {

class GraphBuilder {
 public:
  explicit GraphBuilder(const ModelConfig& m) : m_(m) {}

  OperatorVertex add(const std::string& name, std::int32_t layer, const std::string& segment, const std::string& kind,
                     ByteCount activation_bytes) {
    OperatorNode node;
    node.name = name;
    node.layer = layer;
    node.segment = segment;
    node.kind = kind;
    node.activation_bytes = activation_bytes;
    const OperatorVertex v = boost::add_vertex(std::move(node), g_);
    by_name_.emplace(name, v);
    return v;
  }
  void edge(OperatorVertex from, OperatorVertex to) {
    boost::add_edge(from, to, DataEdge{g_[from].activation_bytes}, g_);
  }
  OperatorVertex find(const std::string& name) const {
    const auto it = by_name_.find(name);
    if (it == by_name_.end()) throw Error("operator graph of '" + m_.name + "': no operator '" + name + "'");
    return it->second;
  }
  OperatorGraph& graph() { return g_; }

 private:
  const ModelConfig& m_;
  OperatorGraph g_;
  std::unordered_map<std::string, OperatorVertex> by_name_;
};

ByteCount hidden_bytes(const ModelConfig& m, std::uint64_t width) {
  return m.dtype.tensor_bytes(width);
}

// A llama-family language model's operators; `inputs` feed its first layer.
// Returns the last operator (lm_head).
OperatorVertex language_model(GraphBuilder& b, const ModelConfig& m, const std::string& prefix,
                              const std::string& lm_head, const std::vector<OperatorVertex>& extra_inputs) {
  const ByteCount act = hidden_bytes(m, m.hidden_size);
  OperatorVertex prev = b.add(prefix + "embed_tokens", -1, "decoder", "embedding", act);
  std::vector<OperatorVertex> inputs = extra_inputs;
  inputs.push_back(prev);
  for (std::uint32_t i = 0; i < m.num_hidden_layers; ++i) {
    const auto layer = static_cast<std::int32_t>(i);
    const std::string lp = prefix + "layers." + std::to_string(i) + ".";
    const OperatorVertex attn = b.add(lp + "self_attn", layer, "decoder", "attention", act);
    for (OperatorVertex in : inputs) b.edge(in, attn);
    const bool moe = m.num_local_experts > 0;
    const OperatorVertex mlp = b.add(lp + (moe ? "block_sparse_moe" : "mlp"), layer, "decoder", moe ? "moe" : "mlp", act);
    b.edge(attn, mlp);
    inputs = {mlp};
  }
  const OperatorVertex norm = b.add(prefix + "norm", -1, "decoder", "norm", act);
  for (OperatorVertex in : inputs) b.edge(in, norm);
  const OperatorVertex head = b.add(lm_head, -1, "decoder", "lm_head", hidden_bytes(m, m.vocab_size));
  b.edge(norm, head);
  return head;
}

void t5_graph(GraphBuilder& b, const ModelConfig& m) {
  const ByteCount act = hidden_bytes(m, m.hidden_size);
  OperatorVertex prev = b.add("encoder.embed_tokens", -1, "encoder", "embedding", act);
  for (std::uint32_t i = 0; i < m.encoder_layers; ++i) {
    const auto layer = static_cast<std::int32_t>(i);
    const std::string bp = "encoder.block." + std::to_string(i) + ".";
    const OperatorVertex sa = b.add(bp + "SelfAttention", layer, "encoder", "attention", act);
    b.edge(prev, sa);
    const OperatorVertex ff = b.add(bp + "DenseReluDense", layer, "encoder", "mlp", act);
    b.edge(sa, ff);
    prev = ff;
  }
  const OperatorVertex enc_out = b.add("encoder.final_layer_norm", -1, "encoder", "norm", act);
  b.edge(prev, enc_out);

  prev = b.add("decoder.embed_tokens", -1, "decoder", "embedding", act);
  for (std::uint32_t i = 0; i < m.decoder_layers; ++i) {
    const auto layer = static_cast<std::int32_t>(i);
    const std::string bp = "decoder.block." + std::to_string(i) + ".";
    const OperatorVertex sa = b.add(bp + "SelfAttention", layer, "decoder", "attention", act);
    b.edge(prev, sa);
    const OperatorVertex ca = b.add(bp + "EncDecAttention", layer, "cross_attention", "cross_attention", act);
    b.edge(sa, ca);
    b.edge(enc_out, ca);  // cross-attention consumes the encoder's output
    const OperatorVertex ff = b.add(bp + "DenseReluDense", layer, "decoder", "mlp", act);
    b.edge(ca, ff);
    prev = ff;
  }
  const OperatorVertex dec_out = b.add("decoder.final_layer_norm", -1, "decoder", "norm", act);
  b.edge(prev, dec_out);
  const OperatorVertex head = b.add("lm_head", -1, "decoder", "lm_head", hidden_bytes(m, m.vocab_size));
  b.edge(dec_out, head);
}

// LLaVA's CLIP tower and projector; returns the projector.
OperatorVertex vision_graph(GraphBuilder& b, const ModelConfig& m) {
  const VisionTower& v = *m.vision;
  const ByteCount act = hidden_bytes(m, v.hidden_size);
  const std::string p = "vision_tower.vision_model.";
  const OperatorVertex embed = b.add(p + "embeddings", -1, "vision", "vision_embedding", act);
  // hidden_states[0] = embeddings, hidden_states[k] = output of layer k-1.
  const auto layers = static_cast<std::int64_t>(v.num_hidden_layers);
  const std::int64_t feature_index = v.vision_feature_layer < 0 ? layers + 1 + v.vision_feature_layer
                                                                : v.vision_feature_layer;
  OperatorVertex feature = embed;
  OperatorVertex prev = embed;
  for (std::uint32_t i = 0; i < v.num_hidden_layers; ++i) {
    const auto layer = static_cast<std::int32_t>(i);
    const std::string lp = p + "encoder.layers." + std::to_string(i) + ".";
    const OperatorVertex attn = b.add(lp + "self_attn", layer, "vision", "attention", act);
    b.edge(prev, attn);
    const OperatorVertex mlp = b.add(lp + "mlp", layer, "vision", "mlp", act);
    b.edge(attn, mlp);
    prev = mlp;
    if (static_cast<std::int64_t>(i) + 1 == feature_index) feature = mlp;
  }
  const OperatorVertex post = b.add(p + "post_layernorm", -1, "vision", "norm", act);
  b.edge(prev, post);  // computed by CLIPVisionTransformer, unused by LLaVA
  const OperatorVertex projector =
      b.add("multi_modal_projector", -1, "vision", "projector", hidden_bytes(m, v.projector_output));
  b.edge(feature, projector);
  return projector;
}

bool is_matmul(const WeightTensor& t, const OperatorNode& node) {
  if (t.cols <= 1) return false;                          // vectors: norms, biases, class embedding
  if (node.kind == "lm_head") return true;                // tied lm_head multiplies by the embedding
  if (t.kind == "position") return false;                 // added or looked up, not multiplied
  if (t.kind == "embedding") return t.name.ends_with("patch_embedding.weight");  // a conv over patches
  return true;
}

// Appends `ids` to `list` unless it repeats the last one (packed slices:
// many tensors of one operator map to the same slice block).
void append_unique(std::vector<BlockId>& list, BlockId id) {
  if (list.empty() || list.back() != id) list.push_back(id);
}

void assign_blocks(OperatorGraph& g, GraphBuilder& b, const ModelConfig& m, const std::vector<WeightTensor>& tensors,
                   const ModelBlocks& blocks) {
  if (blocks.tensor_blocks.size() != tensors.size()) {
    throw Error("operator graph of '" + m.name + "': the blocks cover " + std::to_string(blocks.tensor_blocks.size()) +
                " tensors, the model has " + std::to_string(tensors.size()));
  }
  std::vector<double> expert_elements(boost::num_vertices(g), 0.0);
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const WeightTensor& t = tensors[i];
    std::vector<OperatorVertex> readers{b.find(t.op)};
    if (t.kind == "embedding" && t.segment == "shared") {
      // Tied: the table is also the lm_head (and, in T5, the decoder's embedding).
      if (m.architecture == Architecture::t5) readers.push_back(b.find("decoder.embed_tokens"));
      if (m.tie_word_embeddings) {
        readers.push_back(b.find(m.architecture == Architecture::llava ? "language_model.lm_head" : "lm_head"));
      }
    }
    const auto [first, last] = blocks.tensor_blocks[i];
    for (OperatorVertex v : readers) {
      OperatorNode& node = g[v];
      const bool matmul = is_matmul(t, node);
      if (t.kind == "expert") {
        if (node.experts.size() <= static_cast<std::size_t>(t.expert)) node.experts.resize(t.expert + 1);
        for (std::size_t k = first; k < last; ++k) {
          const BlockId id = blocks.catalog[k].id;
          if (!node.blocks.empty() && node.blocks.back() == id) continue;  // packed: already in the slice
          append_unique(node.experts[t.expert], id);
        }
        if (matmul) expert_elements[v] += static_cast<double>(t.elements);
      } else {
        for (std::size_t k = first; k < last; ++k) append_unique(node.blocks, blocks.catalog[k].id);
        if (matmul) node.flops_per_token += 2.0 * static_cast<double>(t.elements);
      }
      if (node.kind == "embedding" && t.kind == "embedding") node.row_lookup = true;
    }
  }
  // Byte counts from the catalog, per-expert sizes, routed FLOPs.
  auto bytes = [&](const std::vector<BlockId>& ids) {
    ByteCount sum = 0;
    for (BlockId id : ids) {
      const std::size_t index = static_cast<std::size_t>(id - (blocks.catalog.empty() ? 0 : blocks.catalog[0].id));
      sum += blocks.catalog.at(index).bytes;
    }
    return sum;
  };
  for (auto v : boost::make_iterator_range(boost::vertices(g))) {
    OperatorNode& node = g[v];
    node.block_bytes = bytes(node.blocks);
    if (node.kind == "moe") {
      node.experts_per_token = m.num_experts_per_tok;
      for (const auto& e : node.experts) node.routed_blocks.insert(node.routed_blocks.end(), e.begin(), e.end());
      if (!node.experts.empty()) node.bytes_per_expert = bytes(node.experts[0]);
      // A token runs k of the E experts.
      node.flops_per_token += 2.0 * expert_elements[v] * m.num_experts_per_tok / m.num_local_experts;
    }
  }
}

void set_attention_terms(OperatorGraph& g, const ModelConfig& m) {
  const double bytes_per_value = m.dtype.element_bytes();
  for (auto v : boost::make_iterator_range(boost::vertices(g))) {
    OperatorNode& node = g[v];
    if (node.kind != "attention" && node.kind != "cross_attention") continue;
    if (node.segment == "vision") {
      // Full attention over the image's tokens, whose count is fixed: fold it in.
      const VisionTower& t = *m.vision;
      node.tokens_per_pass = t.tower_tokens();
      node.flops_per_token += 4.0 * static_cast<double>(t.hidden_size) * static_cast<double>(t.tower_tokens());
      continue;
    }
    node.attention_flops_per_context_token =
        4.0 * static_cast<double>(m.num_attention_heads) * static_cast<double>(m.head_dim);
    node.kv_bytes_per_context_token = static_cast<ByteCount>(
        2.0 * static_cast<double>(m.num_key_value_heads) * static_cast<double>(m.head_dim) * bytes_per_value);
  }
  if (m.vision) {
    for (auto v : boost::make_iterator_range(boost::vertices(g))) {
      OperatorNode& node = g[v];
      if (node.segment != "vision") continue;
      node.tokens_per_pass = node.kind == "projector" ? m.vision->image_tokens() : m.vision->tower_tokens();
    }
  }
}

}  // namespace

OperatorGraph build_operator_graph(const ModelConfig& model, const ModelBlocks& blocks) {
  GraphBuilder b(model);
  switch (model.architecture) {
    case Architecture::llama:
    case Architecture::qwen2:
    case Architecture::phi3:
    case Architecture::mixtral:
      language_model(b, model, "model.", "lm_head", {});
      break;
    case Architecture::t5:
      t5_graph(b, model);
      break;
    case Architecture::llava: {
      std::vector<OperatorVertex> image;
      if (model.vision) image.push_back(vision_graph(b, model));
      language_model(b, model, "language_model.model.", "language_model.lm_head", image);
      break;
    }
  }
  OperatorGraph& g = b.graph();
  assign_blocks(g, b, model, weight_tensors(model), blocks);
  set_attention_terms(g, model);
  return std::move(g);
}

std::vector<OperatorVertex> topological_order(const OperatorGraph& graph) {
  const std::size_t n = boost::num_vertices(graph);
  // boost::topological_sort (depth-first) proves the graph acyclic ...
  std::vector<OperatorVertex> reverse_order;
  reverse_order.reserve(n);
  bool cyclic = false;
  try {
    boost::topological_sort(graph, std::back_inserter(reverse_order));
  } catch (const boost::not_a_dag&) {
    cyclic = true;
  }
  // ... and Kahn's algorithm with the smallest vertex first gives the order
  // we use: the builders' insertion order whenever that is topological
  // (encoder before decoder, vision before the language model), where the
  // depth-first order would interleave branches.
  std::vector<std::size_t> in_degree(n, 0);
  for (auto v : boost::make_iterator_range(boost::vertices(graph))) in_degree[v] = boost::in_degree(v, graph);
  std::priority_queue<OperatorVertex, std::vector<OperatorVertex>, std::greater<>> ready;
  for (OperatorVertex v = 0; v < n; ++v) {
    if (in_degree[v] == 0) ready.push(v);
  }
  std::vector<OperatorVertex> order;
  order.reserve(n);
  while (!ready.empty()) {
    const OperatorVertex v = ready.top();
    ready.pop();
    order.push_back(v);
    for (auto e : boost::make_iterator_range(boost::out_edges(v, graph))) {
      const OperatorVertex w = boost::target(e, graph);
      if (--in_degree[w] == 0) ready.push(w);
    }
  }
  if (cyclic || order.size() != n) {
    std::string name = "?";
    for (OperatorVertex v = 0; v < n; ++v) {
      if (in_degree[v] > 0) {
        name = graph[v].name;
        break;
      }
    }
    throw Error("operator graph is not a DAG: operator '" + name + "' waits on a cycle");
  }
  return order;
}

std::vector<OperatorEntry> per_token_order(const OperatorGraph& graph) {
  std::vector<OperatorEntry> out;
  for (OperatorVertex v : topological_order(graph)) {
    const OperatorNode& node = graph[v];
    OperatorEntry e;
    e.name = node.name;
    e.layer = node.layer;
    e.segment = node.segment;
    e.blocks = node.blocks;
    e.routed_blocks = node.routed_blocks;
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace flashsim
