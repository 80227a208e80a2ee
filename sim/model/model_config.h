// A model as the simulator sees it: the shape numbers of a Hugging Face
// config.json (transformers' PretrainedConfig keys), enough to list every
// weight tensor (weight_catalog.h), its operators (operator_graph.h) and
// the bytes of its KV cache. Nothing here runs a model.
#pragma once
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "sim/core/units.h"

namespace flashsim {

/// Which weight layout and operator graph a config describes; selected by
/// config.json's `model_type` ("llama", "qwen2", "phi3", "mixtral", "t5",
/// "llava"; "mistral" reads as llama: same tensors).
enum class Architecture { llama, qwen2, phi3, mixtral, t5, llava };

/// "llama", "qwen2", ... (the model_type spelling).
std::string_view to_string(Architecture arch);

/// Storage type of a tensor. Integer types carry one scale (plus an
/// optional zero point) per `group_size` elements, as GPTQ/AWQ store them
/// (Frantar et al., "GPTQ", ICLR 2023; Lin et al., "AWQ", MLSys 2024):
///   bytes(n) = ceil(n·bits/8) + ceil(n/group)·scale_bits/8 (rounded up).
/// group_size 0 = no scales (floating types).
struct DType {
  std::string name = "bf16";  ///< "bf16", "fp16", "fp32", "int8", "int4"
  unsigned bits = 16;         ///< bits per element
  unsigned group_size = 0;    ///< elements sharing one scale; 0 = none
  unsigned scale_bits = 0;    ///< bits of scale (+ zero point) per group

  /// Bytes of a tensor of `elements` elements, by the formula above.
  ByteCount tensor_bytes(std::uint64_t elements) const;
  /// Bytes of one element ignoring scales (bits/8; 0.5 for int4).
  double element_bytes() const { return static_cast<double>(bits) / 8.0; }
};

/// A floating dtype by name: "bf16"/"bfloat16", "fp16"/"float16"/"half",
/// "fp32"/"float32"/"float". Throws InputError on anything else.
DType float_dtype(std::string_view name);
/// An integer dtype: bits 4 or 8, one scale of `scale_bits` per `group_size`
/// elements (group_size > 0). Throws InputError on other bit widths / group 0.
DType int_dtype(unsigned bits, unsigned group_size, unsigned scale_bits);

/// LLaVA's vision tower (CLIP ViT, HF CLIPVisionConfig keys) and its
/// two-layer MLP projector (vision hidden -> text hidden -> text hidden).
struct VisionTower {
  std::uint64_t hidden_size = 0;         ///< vision_config.hidden_size (1024, ViT-L)
  std::uint64_t intermediate_size = 0;   ///< vision_config.intermediate_size
  std::uint32_t num_hidden_layers = 0;   ///< vision_config.num_hidden_layers
  std::uint32_t num_attention_heads = 0;
  std::uint32_t patch_size = 0;          ///< pixels per patch side (14)
  std::uint32_t image_size = 0;          ///< pixels per image side (336)
  std::uint32_t num_channels = 3;
  std::uint64_t projector_input = 0;     ///< = hidden_size
  std::uint64_t projector_hidden = 0;    ///< = text hidden_size (linear_1 out)
  std::uint64_t projector_output = 0;    ///< = text hidden_size (linear_2 out)
  std::int32_t vision_feature_layer = -2;  ///< hidden state fed to the projector (HF: -2)

  /// Patches per image: (image_size / patch_size)^2 (576 for 336/14).
  std::uint64_t num_patches() const;
  /// Tokens through the tower per image: patches + 1 (CLS).
  std::uint64_t tower_tokens() const { return num_patches() + 1; }
  /// Image tokens handed to the language model ("default" strategy drops CLS).
  std::uint64_t image_tokens() const { return num_patches(); }
};

/// The shape of one model. For decoder-only models decoder_layers ==
/// num_hidden_layers and encoder_layers == 0. For T5, d_model, d_ff, d_kv
/// and num_heads are stored as hidden_size, intermediate_size, head_dim,
/// num_attention_heads (= num_key_value_heads); encoder_layers =
/// num_layers, decoder_layers = num_decoder_layers (default num_layers).
/// For LLaVA the language-model fields are text_config's.
struct ModelConfig {
  std::string name;     ///< file stem or _name_or_path
  std::string source;   ///< the file it was read from (for messages)
  Architecture architecture = Architecture::llama;
  std::string model_type;  ///< as written in the file

  std::uint64_t hidden_size = 0;
  std::uint64_t intermediate_size = 0;   ///< per expert for MoE
  std::uint32_t num_hidden_layers = 0;   ///< decoder-only: all layers; T5: encoder layers
  std::uint32_t num_attention_heads = 0;
  std::uint32_t num_key_value_heads = 0; ///< defaults to num_attention_heads (MHA)
  std::uint64_t head_dim = 0;            ///< defaults to hidden_size / num_attention_heads
  std::uint64_t vocab_size = 0;
  bool tie_word_embeddings = false;      ///< lm_head shares embed_tokens (T5 v1: true)
  std::uint64_t max_position_embeddings = 0;  ///< 0 = not stated (T5: n_positions)

  std::uint32_t num_local_experts = 0;   ///< 0 = dense
  std::uint32_t num_experts_per_tok = 0; ///< top-k

  std::uint32_t encoder_layers = 0;
  std::uint32_t decoder_layers = 0;
  std::uint32_t relative_attention_num_buckets = 0;  ///< T5 (32): bias table buckets×heads in block 0

  bool attention_bias = false;  ///< q/k/v projections have biases (Qwen2: yes)
  bool fused_qkv = false;       ///< one qkv_proj and one gate_up_proj tensor (Phi-3)
  bool gated_mlp = true;        ///< gate·up (SwiGLU) vs one wi (T5 v1 "relu")

  std::optional<VisionTower> vision;  ///< LLaVA only

  /// torch_dtype: activations, KV cache, embeddings, norms, biases, lm_head.
  DType dtype;
  /// Dtype of the linear (matmul) weights of the transformer layers: == dtype
  /// unless quantization_config says int4/int8 (embeddings, lm_head,
  /// norms, routers and the vision tower stay in dtype, as GPTQ/AWQ leave them).
  DType weight_dtype;

  /// Layers that hold a KV cache growing per generated token: decoder layers.
  std::uint32_t kv_layers() const { return decoder_layers; }

  /// KV-cache bytes per token: 2 (K and V) · decoder layers · kv_heads ·
  /// head_dim · dtype bytes (vLLM's and the HF cache's layout; for grouped-
  /// query attention kv_heads < heads, Ainslie et al., EMNLP 2023). The
  /// seed's 2·layers·hidden·2 (002 §4) is the MHA, 2-byte special case.
  ByteCount kv_bytes_per_token() const;

  /// T5 cross-attention: K and V of every encoder token in every decoder
  /// layer, computed once per request: same formula as above. 0 otherwise.
  ByteCount cross_kv_bytes_per_encoder_token() const;
};

/// Reads a config.json. Throws InputError "<file>: ..." when the file is
/// missing or not JSON, and as parse_model_config does.
ModelConfig load_model_config(const std::filesystem::path& path);

/// Reads HF config.json keys from `json`; `source` (a file name) prefixes
/// every message. model_type selects the architecture. Keys read:
///  - llama/qwen2/phi3/mixtral/mistral: hidden_size, intermediate_size,
///    num_hidden_layers, num_attention_heads, num_key_value_heads (default:
///    heads), head_dim (default hidden/heads), vocab_size,
///    tie_word_embeddings (default false), attention_bias (qwen2: always),
///    num_local_experts + num_experts_per_tok (mixtral), max_position_embeddings;
///  - t5: d_model, d_ff, d_kv, num_layers, num_decoder_layers (default
///    num_layers), num_heads, vocab_size, relative_attention_num_buckets
///    (default 32), tie_word_embeddings (default true), feed_forward_proj
///    ("relu" or "gated-gelu"/"gated-*": gated, wi_0 + wi_1);
///  - llava: text_config and vision_config, with the defaults of HF's
///    LlamaConfig / CLIPVisionConfig for keys they omit (HF serialises only
///    non-default values: llava-hf/llava-1.5-7b-hf's text_config has no
///    hidden_size), vision_feature_layer (default -2);
///  - all: torch_dtype (default "float32", as transformers), and
///    quantization_config {bits 4|8, group_size (default 128), sym (default
///    true; false adds a `bits`-bit zero point per group)} -> weight_dtype
///    int4/int8 with 16-bit scales.
/// Throws InputError "<source>: key 'K' missing" / "... key 'K' must be a
/// positive integer" / "... unknown model_type 'X' (known: ...)".
ModelConfig parse_model_config(const nlohmann::json& json, const std::string& source);

}  // namespace flashsim
