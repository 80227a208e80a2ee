#include "sim/model/model_config.h"

#include <fstream>
#include <limits>

#include <nlohmann/json.hpp>

#include "sim/core/errors.h"

namespace flashsim {

namespace {

using nlohmann::json;

[[noreturn]] void fail(const std::string& source, const std::string& what) { throw InputError(source + ": " + what); }

std::string join(const std::string& prefix, const std::string& key) { return prefix.empty() ? key : prefix + "." + key; }

// A positive integer at `key` of `j`; `prefix` names the enclosing object in messages.
std::uint64_t positive(const json& j, const std::string& key, const std::string& source, const std::string& prefix = "") {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) fail(source, "key '" + join(prefix, key) + "' missing");
  if (!it->is_number_integer() || it->get<std::int64_t>() <= 0) {
    fail(source, "key '" + join(prefix, key) + "' must be a positive integer, got " + it->dump());
  }
  return it->get<std::uint64_t>();
}

std::uint64_t positive_or(const json& j, const std::string& key, std::uint64_t fallback, const std::string& source,
                          const std::string& prefix = "") {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return fallback;
  return positive(j, key, source, prefix);
}

std::uint32_t narrow32(std::uint64_t v, const std::string& key, const std::string& source) {
  if (v > std::numeric_limits<std::uint32_t>::max()) fail(source, "key '" + key + "' too large: " + std::to_string(v));
  return static_cast<std::uint32_t>(v);
}

bool boolean_or(const json& j, const std::string& key, bool fallback, const std::string& source,
                const std::string& prefix = "") {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return fallback;
  if (!it->is_boolean()) fail(source, "key '" + join(prefix, key) + "' must be true or false, got " + it->dump());
  return it->get<bool>();
}

std::string text_or(const json& j, const std::string& key, const std::string& fallback, const std::string& source,
                    const std::string& prefix = "") {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return fallback;
  if (!it->is_string()) fail(source, "key '" + join(prefix, key) + "' must be a string, got " + it->dump());
  return it->get<std::string>();
}

std::int64_t integer_or(const json& j, const std::string& key, std::int64_t fallback, const std::string& source,
                        const std::string& prefix = "") {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return fallback;
  if (!it->is_number_integer()) fail(source, "key '" + join(prefix, key) + "' must be an integer, got " + it->dump());
  return it->get<std::int64_t>();
}

Architecture architecture_of(const std::string& model_type, const std::string& source, const std::string& key) {
  if (model_type == "llama" || model_type == "mistral") return Architecture::llama;
  if (model_type == "qwen2") return Architecture::qwen2;
  if (model_type == "phi3") return Architecture::phi3;
  if (model_type == "mixtral") return Architecture::mixtral;
  if (model_type == "t5") return Architecture::t5;
  if (model_type == "llava") return Architecture::llava;
  fail(source, "key '" + key + "': unknown model_type '" + model_type +
                   "' (known: llama, mistral, qwen2, phi3, mixtral, t5, llava)");
}

DType dtype_of(const json& j, const std::string& source) {
  const std::string name = text_or(j, "torch_dtype", "float32", source);
  try {
    return float_dtype(name);
  } catch (const InputError& e) {
    fail(source, std::string("key 'torch_dtype': ") + e.what());
  }
}

// quantization_config -> the dtype of the transformer layers' linear weights.
DType weight_dtype_of(const json& j, const DType& dtype, const std::string& source) {
  const auto it = j.find("quantization_config");
  if (it == j.end() || it->is_null()) return dtype;
  const json& q = *it;
  if (!q.is_object()) fail(source, "key 'quantization_config' must be an object");
  std::uint64_t bits = 0;
  if (q.contains("bits")) {
    bits = positive(q, "bits", source, "quantization_config");
  } else if (boolean_or(q, "load_in_4bit", false, source, "quantization_config")) {
    bits = 4;
  } else if (boolean_or(q, "load_in_8bit", false, source, "quantization_config")) {
    bits = 8;
  } else {
    fail(source, "key 'quantization_config.bits' missing");
  }
  if (bits != 4 && bits != 8) {
    fail(source, "key 'quantization_config.bits' must be 4 or 8, got " + std::to_string(bits));
  }
  const std::int64_t group = integer_or(q, "group_size", 128, source, "quantization_config");
  if (group <= 0) {
    fail(source, "key 'quantization_config.group_size' must be a positive integer (per-channel scales are not "
                 "modelled), got " + std::to_string(group));
  }
  // A 16-bit scale per group; an asymmetric scheme adds a `bits`-bit zero point (GPTQ qzeros, AWQ zeros).
  const bool sym = boolean_or(q, "sym", !boolean_or(q, "zero_point", false, source, "quantization_config"), source,
                              "quantization_config");
  return int_dtype(static_cast<unsigned>(bits), static_cast<unsigned>(group),
                   sym ? 16u : 16u + static_cast<unsigned>(bits));
}

void read_decoder_only(ModelConfig& m, const json& j, const std::string& source, const std::string& prefix) {
  m.hidden_size = positive(j, "hidden_size", source, prefix);
  m.intermediate_size = positive(j, "intermediate_size", source, prefix);
  m.num_hidden_layers = narrow32(positive(j, "num_hidden_layers", source, prefix), "num_hidden_layers", source);
  m.num_attention_heads = narrow32(positive(j, "num_attention_heads", source, prefix), "num_attention_heads", source);
  m.num_key_value_heads =
      narrow32(positive_or(j, "num_key_value_heads", m.num_attention_heads, source, prefix), "num_key_value_heads", source);
  if (!j.contains("head_dim") && m.hidden_size % m.num_attention_heads != 0) {
    fail(source, "key '" + join(prefix, "hidden_size") + "' (" + std::to_string(m.hidden_size) +
                     ") is not a multiple of num_attention_heads (" + std::to_string(m.num_attention_heads) +
                     ") and no head_dim is given");
  }
  m.head_dim = positive_or(j, "head_dim", m.hidden_size / m.num_attention_heads, source, prefix);
  m.vocab_size = positive(j, "vocab_size", source, prefix);
  m.max_position_embeddings = positive_or(j, "max_position_embeddings", 0, source, prefix);
  m.tie_word_embeddings = boolean_or(j, "tie_word_embeddings", false, source, prefix);
  m.attention_bias = boolean_or(j, "attention_bias", false, source, prefix);
  if (m.num_attention_heads % m.num_key_value_heads != 0) {
    fail(source, "key '" + join(prefix, "num_key_value_heads") + "' (" + std::to_string(m.num_key_value_heads) +
                     ") must divide num_attention_heads (" + std::to_string(m.num_attention_heads) + ")");
  }
  m.decoder_layers = m.num_hidden_layers;
  m.encoder_layers = 0;
}

// HF LlamaConfig defaults (transformers/models/llama/configuration_llama.py),
// for LLaVA's text_config, which serialises only non-default keys.
json with_llama_defaults(json text) {
  const json defaults = {{"hidden_size", 4096},        {"intermediate_size", 11008}, {"num_hidden_layers", 32},
                         {"num_attention_heads", 32}, {"vocab_size", 32000},        {"max_position_embeddings", 2048},
                         {"tie_word_embeddings", false}};
  for (const auto& [k, v] : defaults.items()) {
    if (!text.contains(k) || text[k].is_null()) text[k] = v;
  }
  return text;
}

// HF CLIPVisionConfig defaults (transformers/models/clip/configuration_clip.py).
json with_clip_vision_defaults(json vision) {
  const json defaults = {{"hidden_size", 768},        {"intermediate_size", 3072}, {"num_hidden_layers", 12},
                         {"num_attention_heads", 12}, {"image_size", 224},         {"patch_size", 32},
                         {"num_channels", 3}};
  for (const auto& [k, v] : defaults.items()) {
    if (!vision.contains(k) || vision[k].is_null()) vision[k] = v;
  }
  return vision;
}

void read_t5(ModelConfig& m, const json& j, const std::string& source) {
  m.hidden_size = positive(j, "d_model", source);
  m.intermediate_size = positive(j, "d_ff", source);
  m.head_dim = positive(j, "d_kv", source);
  m.num_attention_heads = narrow32(positive(j, "num_heads", source), "num_heads", source);
  m.num_key_value_heads = m.num_attention_heads;
  m.encoder_layers = narrow32(positive(j, "num_layers", source), "num_layers", source);
  m.decoder_layers = narrow32(positive_or(j, "num_decoder_layers", m.encoder_layers, source), "num_decoder_layers", source);
  m.num_hidden_layers = m.encoder_layers;
  m.vocab_size = positive(j, "vocab_size", source);
  m.max_position_embeddings = positive_or(j, "n_positions", 0, source);
  m.relative_attention_num_buckets =
      narrow32(positive_or(j, "relative_attention_num_buckets", 32, source), "relative_attention_num_buckets", source);
  m.tie_word_embeddings = boolean_or(j, "tie_word_embeddings", true, source);
  const std::string ff = text_or(j, "feed_forward_proj", "relu", source);
  m.gated_mlp = ff.starts_with("gated-");
  if (!m.gated_mlp && ff != "relu" && ff != "gelu") {
    fail(source, "key 'feed_forward_proj': '" + ff + "' is not relu, gelu or gated-<act>");
  }
}

// Bounds far above every published model (Llama-3.1-405B: hidden 16,384,
// intermediate 53,248, 126 layers, vocabulary 128,256), so that a typo such as
// hidden_size 1e12 is an error naming the key, not an exhausted memory.
void check_plausible(const ModelConfig& m, const std::string& source) {
  const auto bound = [&](const char* key, std::uint64_t value, std::uint64_t max) {
    if (value > max) {
      fail(source, "key '" + std::string(key) + "' = " + std::to_string(value) + " is beyond any real model (at most " +
                       std::to_string(max) + " accepted)");
    }
  };
  bound("hidden_size", m.hidden_size, 1u << 17);
  bound("intermediate_size", m.intermediate_size, 1u << 20);
  bound("num_hidden_layers", m.num_hidden_layers, 4096);
  bound("num_decoder_layers", m.decoder_layers, 4096);
  bound("num_attention_heads", m.num_attention_heads, 4096);
  bound("head_dim", m.head_dim, 1u << 14);
  bound("vocab_size", m.vocab_size, 1u << 23);
  bound("num_local_experts", m.num_local_experts, 4096);
  if (m.vision) {
    bound("vision_config.hidden_size", m.vision->hidden_size, 1u << 17);
    bound("vision_config.intermediate_size", m.vision->intermediate_size, 1u << 20);
    bound("vision_config.num_hidden_layers", m.vision->num_hidden_layers, 4096);
  }
}

}  // namespace

std::string_view to_string(Architecture arch) {
  switch (arch) {
    case Architecture::llama: return "llama";
    case Architecture::qwen2: return "qwen2";
    case Architecture::phi3: return "phi3";
    case Architecture::mixtral: return "mixtral";
    case Architecture::t5: return "t5";
    case Architecture::llava: return "llava";
  }
  return "?";
}

ByteCount DType::tensor_bytes(std::uint64_t elements) const {
  const ByteCount data = (elements * bits + 7) / 8;
  if (group_size == 0 || scale_bits == 0) return data;
  const std::uint64_t groups = (elements + group_size - 1) / group_size;
  return data + (groups * scale_bits + 7) / 8;
}

DType float_dtype(std::string_view name) {
  if (name == "bf16" || name == "bfloat16") return DType{"bf16", 16, 0, 0};
  if (name == "fp16" || name == "float16" || name == "half") return DType{"fp16", 16, 0, 0};
  if (name == "fp32" || name == "float32" || name == "float") return DType{"fp32", 32, 0, 0};
  throw InputError("unknown floating dtype '" + std::string(name) + "' (known: bfloat16, float16, float32)");
}

DType int_dtype(unsigned bits, unsigned group_size, unsigned scale_bits) {
  if (bits != 4 && bits != 8) throw InputError("integer dtype must have 4 or 8 bits, got " + std::to_string(bits));
  if (group_size == 0) throw InputError("integer dtype needs a group size > 0");
  return DType{"int" + std::to_string(bits), bits, group_size, scale_bits};
}

std::uint64_t VisionTower::num_patches() const {
  if (patch_size == 0) return 0;
  const std::uint64_t side = image_size / patch_size;
  return side * side;
}

ByteCount ModelConfig::kv_bytes_per_token() const {
  return dtype.tensor_bytes(2ULL * kv_layers() * num_key_value_heads * head_dim);
}

ByteCount ModelConfig::cross_kv_bytes_per_encoder_token() const {
  if (architecture != Architecture::t5) return 0;
  return dtype.tensor_bytes(2ULL * decoder_layers * num_key_value_heads * head_dim);
}

ModelConfig parse_model_config(const nlohmann::json& j, const std::string& source) {
  if (!j.is_object()) fail(source, "a config.json must be a JSON object");
  ModelConfig m;
  m.source = source;
  m.model_type = text_or(j, "model_type", "", source);
  if (m.model_type.empty()) fail(source, "key 'model_type' missing");
  m.architecture = architecture_of(m.model_type, source, "model_type");
  m.name = text_or(j, "_name_or_path", "", source);
  m.dtype = dtype_of(j, source);

  switch (m.architecture) {
    case Architecture::llama:
    case Architecture::phi3:
      read_decoder_only(m, j, source, "");
      m.fused_qkv = m.architecture == Architecture::phi3;
      break;
    case Architecture::qwen2:
      read_decoder_only(m, j, source, "");
      m.attention_bias = true;  // Qwen2 q/k/v projections always carry a bias (modeling_qwen2.py)
      break;
    case Architecture::mixtral:
      read_decoder_only(m, j, source, "");
      m.num_local_experts = narrow32(positive(j, "num_local_experts", source), "num_local_experts", source);
      m.num_experts_per_tok = narrow32(positive(j, "num_experts_per_tok", source), "num_experts_per_tok", source);
      if (m.num_experts_per_tok > m.num_local_experts) {
        fail(source, "key 'num_experts_per_tok' (" + std::to_string(m.num_experts_per_tok) +
                         ") exceeds num_local_experts (" + std::to_string(m.num_local_experts) + ")");
      }
      break;
    case Architecture::t5:
      read_t5(m, j, source);
      break;
    case Architecture::llava: {
      const auto text_it = j.find("text_config");
      const auto vision_it = j.find("vision_config");
      if (text_it == j.end() || !text_it->is_object()) fail(source, "key 'text_config' missing");
      if (vision_it == j.end() || !vision_it->is_object()) fail(source, "key 'vision_config' missing");
      const json text = with_llama_defaults(*text_it);
      const std::string text_type = text_or(text, "model_type", "llama", source, "text_config");
      if (text_type != "llama" && text_type != "mistral") {
        fail(source, "key 'text_config.model_type': only llama/mistral language models are modelled, got '" +
                         text_type + "'");
      }
      read_decoder_only(m, text, source, "text_config");
      m.tie_word_embeddings = boolean_or(j, "tie_word_embeddings", m.tie_word_embeddings, source);
      m.vocab_size = positive_or(j, "vocab_size", m.vocab_size, source);  // the outer value wins (32064 with image/pad tokens)
      const json v = with_clip_vision_defaults(*vision_it);
      VisionTower tower;
      const std::string p = "vision_config";
      tower.hidden_size = positive(v, "hidden_size", source, p);
      tower.intermediate_size = positive(v, "intermediate_size", source, p);
      tower.num_hidden_layers = narrow32(positive(v, "num_hidden_layers", source, p), "num_hidden_layers", source);
      tower.num_attention_heads = narrow32(positive(v, "num_attention_heads", source, p), "num_attention_heads", source);
      tower.patch_size = narrow32(positive(v, "patch_size", source, p), "patch_size", source);
      tower.image_size = narrow32(positive(v, "image_size", source, p), "image_size", source);
      tower.num_channels = narrow32(positive(v, "num_channels", source, p), "num_channels", source);
      tower.projector_input = tower.hidden_size;
      tower.projector_hidden = m.hidden_size;
      tower.projector_output = m.hidden_size;
      const std::int64_t feature = integer_or(j, "vision_feature_layer", -2, source);
      const auto layers = static_cast<std::int64_t>(tower.num_hidden_layers);
      // hidden_states has layers + 1 entries (the embeddings, then each layer).
      if (feature < -(layers + 1) || feature > layers) {
        fail(source, "key 'vision_feature_layer' (" + std::to_string(feature) + ") outside the tower's " +
                         std::to_string(layers + 1) + " hidden states");
      }
      tower.vision_feature_layer = static_cast<std::int32_t>(feature);
      m.vision = tower;
      break;
    }
  }
  m.weight_dtype = weight_dtype_of(j, m.dtype, source);
  check_plausible(m, source);
  return m;
}

ModelConfig load_model_config(const std::filesystem::path& path) {
  const std::string source = path.filename().string();
  std::ifstream in(path);
  if (!in) throw InputError(path.string() + ": cannot open model config");
  json j;
  try {
    j = json::parse(in);
  } catch (const json::exception& e) {
    throw InputError(path.string() + ": not valid JSON: " + e.what());
  }
  ModelConfig m = parse_model_config(j, source);
  if (m.name.empty()) m.name = path.stem().string();
  m.source = path.string();
  return m;
}

}  // namespace flashsim
