#include "sim/model/weight_catalog.h"

namespace flashsim {

namespace {

// Appends tensors in read order. Linear weights of the transformer layers
// take the model's weight_dtype (quantised or not); everything else dtype.
class CatalogBuilder {
 public:
  explicit CatalogBuilder(const ModelConfig& m) : m_(m) {}

  void add(std::string name, std::uint64_t rows, std::uint64_t cols, std::int32_t layer, std::string kind,
           std::string segment, std::string op, bool quantisable = false, std::int32_t expert = -1) {
    WeightTensor t;
    t.name = std::move(name);
    t.rows = rows;
    t.cols = cols;
    t.elements = rows * cols;
    t.layer = layer;
    t.kind = std::move(kind);
    t.segment = std::move(segment);
    t.op = std::move(op);
    t.expert = expert;
    t.dtype = quantisable ? m_.weight_dtype : m_.dtype;
    t.bytes = t.dtype.tensor_bytes(t.elements);
    out_.push_back(std::move(t));
  }
  // A linear layer [out, in] of a transformer layer, optionally with a bias [out].
  void linear(const std::string& stem, std::uint64_t out, std::uint64_t in, std::int32_t layer, const std::string& kind,
              const std::string& segment, const std::string& op, bool bias, bool quantisable = true,
              std::int32_t expert = -1) {
    add(stem + ".weight", out, in, layer, kind, segment, op, quantisable, expert);
    if (bias) add(stem + ".bias", out, 1, layer, kind, segment, op, false, expert);
  }
  void vector(const std::string& name, std::uint64_t n, std::int32_t layer, const std::string& kind,
              const std::string& segment, const std::string& op) {
    add(name, n, 1, layer, kind, segment, op);
  }
  std::vector<WeightTensor> take() { return std::move(out_); }

 private:
  const ModelConfig& m_;
  std::vector<WeightTensor> out_;
};

// Llama-family language model (llama, mistral, qwen2, phi3, mixtral, LLaVA's LM).
void decoder_only(CatalogBuilder& b, const ModelConfig& m, const std::string& model_prefix,
                  const std::string& lm_head_name) {
  const std::uint64_t h = m.hidden_size;
  const std::uint64_t q_out = static_cast<std::uint64_t>(m.num_attention_heads) * m.head_dim;
  const std::uint64_t kv_out = static_cast<std::uint64_t>(m.num_key_value_heads) * m.head_dim;
  const std::string seg = "decoder";
  const std::string embed_op = model_prefix + "embed_tokens";
  b.add(embed_op + ".weight", m.vocab_size, h, -1, "embedding", m.tie_word_embeddings ? "shared" : seg, embed_op);

  const bool qwen2 = m.architecture == Architecture::qwen2;
  const bool qkv_bias = m.attention_bias;
  const bool o_bias = m.attention_bias && !qwen2;  // Qwen2: biases on q/k/v only
  for (std::uint32_t i = 0; i < m.num_hidden_layers; ++i) {
    const auto layer = static_cast<std::int32_t>(i);
    const std::string lp = model_prefix + "layers." + std::to_string(i) + ".";
    const std::string attn = lp + "self_attn";
    b.vector(lp + "input_layernorm.weight", h, layer, "norm", seg, attn);
    if (m.fused_qkv) {
      b.linear(attn + ".qkv_proj", q_out + 2 * kv_out, h, layer, "attention", seg, attn, qkv_bias);
    } else {
      b.linear(attn + ".q_proj", q_out, h, layer, "attention", seg, attn, qkv_bias);
      b.linear(attn + ".k_proj", kv_out, h, layer, "attention", seg, attn, qkv_bias);
      b.linear(attn + ".v_proj", kv_out, h, layer, "attention", seg, attn, qkv_bias);
    }
    b.linear(attn + ".o_proj", h, q_out, layer, "attention", seg, attn, o_bias);

    const std::uint64_t ff = m.intermediate_size;
    if (m.num_local_experts > 0) {
      const std::string moe = lp + "block_sparse_moe";
      b.vector(lp + "post_attention_layernorm.weight", h, layer, "norm", seg, moe);
      b.add(moe + ".gate.weight", m.num_local_experts, h, layer, "router", seg, moe);
      for (std::uint32_t e = 0; e < m.num_local_experts; ++e) {
        const std::string ep = moe + ".experts." + std::to_string(e) + ".";
        const auto ei = static_cast<std::int32_t>(e);
        // Read order of MixtralBlockSparseTop2MLP: w2(act(w1 x) * w3 x).
        b.linear(ep + "w1", ff, h, layer, "expert", seg, moe, false, true, ei);
        b.linear(ep + "w3", ff, h, layer, "expert", seg, moe, false, true, ei);
        b.linear(ep + "w2", h, ff, layer, "expert", seg, moe, false, true, ei);
      }
    } else {
      const std::string mlp = lp + "mlp";
      b.vector(lp + "post_attention_layernorm.weight", h, layer, "norm", seg, mlp);
      if (m.fused_qkv) {  // Phi-3 fuses gate and up as it fuses q, k, v
        b.linear(mlp + ".gate_up_proj", 2 * ff, h, layer, "mlp", seg, mlp, false);
      } else {
        b.linear(mlp + ".gate_proj", ff, h, layer, "mlp", seg, mlp, false);
        b.linear(mlp + ".up_proj", ff, h, layer, "mlp", seg, mlp, false);
      }
      b.linear(mlp + ".down_proj", h, ff, layer, "mlp", seg, mlp, false);
    }
  }
  b.vector(model_prefix + "norm.weight", h, -1, "norm", seg, model_prefix + "norm");
  if (!m.tie_word_embeddings) {
    const std::string op = lm_head_name.substr(0, lm_head_name.size() - std::string(".weight").size());
    b.add(lm_head_name, m.vocab_size, h, -1, "lm_head", seg, op);
  }
}

void t5_stack(CatalogBuilder& b, const ModelConfig& m, bool decoder) {
  const std::uint64_t h = m.hidden_size;
  const std::uint64_t inner = static_cast<std::uint64_t>(m.num_attention_heads) * m.head_dim;
  const std::string stack = decoder ? "decoder" : "encoder";
  const std::uint32_t layers = decoder ? m.decoder_layers : m.encoder_layers;
  for (std::uint32_t i = 0; i < layers; ++i) {
    const auto layer = static_cast<std::int32_t>(i);
    const std::string bp = stack + ".block." + std::to_string(i) + ".";
    auto attention = [&](const std::string& sub, const std::string& module, const std::string& segment,
                         bool relative_bias) {
      const std::string op = bp + module;
      b.vector(bp + "layer." + sub + ".layer_norm.weight", h, layer, "norm", segment, op);
      const std::string ap = bp + "layer." + sub + "." + module + ".";
      for (const char* proj : {"q", "k", "v"}) {
        b.linear(ap + proj, inner, h, layer, "attention", segment, op, false);
      }
      if (relative_bias) {
        b.add(ap + "relative_attention_bias.weight", m.relative_attention_num_buckets, m.num_attention_heads, layer,
              "position", segment, op);
      }
      b.linear(ap + "o", h, inner, layer, "attention", segment, op, false);
    };
    attention("0", "SelfAttention", stack, i == 0);
    if (decoder) attention("1", "EncDecAttention", "cross_attention", false);
    const std::string ff = decoder ? "2" : "1";
    const std::string op = bp + "DenseReluDense";
    b.vector(bp + "layer." + ff + ".layer_norm.weight", h, layer, "norm", stack, op);
    const std::string fp = bp + "layer." + ff + ".DenseReluDense.";
    if (m.gated_mlp) {
      b.linear(fp + "wi_0", m.intermediate_size, h, layer, "mlp", stack, op, false);
      b.linear(fp + "wi_1", m.intermediate_size, h, layer, "mlp", stack, op, false);
    } else {
      b.linear(fp + "wi", m.intermediate_size, h, layer, "mlp", stack, op, false);
    }
    b.linear(fp + "wo", h, m.intermediate_size, layer, "mlp", stack, op, false);
  }
  b.vector(stack + ".final_layer_norm.weight", h, -1, "norm", stack, stack + ".final_layer_norm");
}

void t5(CatalogBuilder& b, const ModelConfig& m) {
  // One table, `shared`, read by both stacks' embed_tokens (and lm_head when tied).
  b.add("shared.weight", m.vocab_size, m.hidden_size, -1, "embedding", "shared", "encoder.embed_tokens");
  t5_stack(b, m, false);
  t5_stack(b, m, true);
  if (!m.tie_word_embeddings) b.add("lm_head.weight", m.vocab_size, m.hidden_size, -1, "lm_head", "decoder", "lm_head");
}

void clip_vision(CatalogBuilder& b, const VisionTower& v) {
  const std::string seg = "vision";
  const std::string p = "vision_tower.vision_model.";
  const std::string embed_op = p + "embeddings";
  const std::uint64_t h = v.hidden_size;
  b.vector(embed_op + ".class_embedding", h, -1, "embedding", seg, embed_op);
  b.add(embed_op + ".patch_embedding.weight", h,
        static_cast<std::uint64_t>(v.num_channels) * v.patch_size * v.patch_size, -1, "embedding", seg, embed_op);
  b.add(embed_op + ".position_embedding.weight", v.tower_tokens(), h, -1, "position", seg, embed_op);
  b.vector(p + "pre_layrnorm.weight", h, -1, "norm", seg, embed_op);  // sic: HF's spelling
  b.vector(p + "pre_layrnorm.bias", h, -1, "norm", seg, embed_op);
  for (std::uint32_t i = 0; i < v.num_hidden_layers; ++i) {
    const auto layer = static_cast<std::int32_t>(i);
    const std::string lp = p + "encoder.layers." + std::to_string(i) + ".";
    const std::string attn = lp + "self_attn";
    b.vector(lp + "layer_norm1.weight", h, layer, "norm", seg, attn);
    b.vector(lp + "layer_norm1.bias", h, layer, "norm", seg, attn);
    for (const char* proj : {"q_proj", "k_proj", "v_proj", "out_proj"}) {
      b.linear(attn + "." + proj, h, h, layer, "attention", seg, attn, true, false);
    }
    const std::string mlp = lp + "mlp";
    b.vector(lp + "layer_norm2.weight", h, layer, "norm", seg, mlp);
    b.vector(lp + "layer_norm2.bias", h, layer, "norm", seg, mlp);
    b.linear(mlp + ".fc1", v.intermediate_size, h, layer, "mlp", seg, mlp, true, false);
    b.linear(mlp + ".fc2", h, v.intermediate_size, layer, "mlp", seg, mlp, true, false);
  }
  b.vector(p + "post_layernorm.weight", h, -1, "norm", seg, p + "post_layernorm");
  b.vector(p + "post_layernorm.bias", h, -1, "norm", seg, p + "post_layernorm");
  const std::string proj = "multi_modal_projector";
  b.linear(proj + ".linear_1", v.projector_hidden, v.projector_input, -1, "projector", seg, proj, true, false);
  b.linear(proj + ".linear_2", v.projector_output, v.projector_hidden, -1, "projector", seg, proj, true, false);
}

}  // namespace

std::vector<WeightTensor> weight_tensors(const ModelConfig& model) {
  CatalogBuilder b(model);
  switch (model.architecture) {
    case Architecture::llama:
    case Architecture::qwen2:
    case Architecture::phi3:
    case Architecture::mixtral:
      decoder_only(b, model, "model.", "lm_head.weight");
      break;
    case Architecture::t5:
      t5(b, model);
      break;
    case Architecture::llava:
      if (model.vision) clip_vision(b, *model.vision);
      decoder_only(b, model, "language_model.model.", "language_model.lm_head.weight");
      break;
  }
  return b.take();
}

ByteCount total_bytes(const std::vector<WeightTensor>& tensors) {
  ByteCount sum = 0;
  for (const auto& t : tensors) sum += t.bytes;
  return sum;
}

std::uint64_t total_elements(const std::vector<WeightTensor>& tensors) {
  std::uint64_t sum = 0;
  for (const auto& t : tensors) sum += t.elements;
  return sum;
}

}  // namespace flashsim
