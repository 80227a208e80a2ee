#include "sim/workload/serving_options.h"

#include "sim/core/errors.h"
#include "sim/workload/i_workload_generator.h"
#include "sim/workload/serving_presets.h"
#include "sim/workload/workload_model.h"

namespace flashsim {

namespace {

ParamSpec spec(std::string name, ParamType type, std::string default_value, std::string doc, double min = -1e300,
               double max = 1e300, std::vector<std::string> choices = {}) {
  return ParamSpec{std::move(name), type, std::move(default_value), std::move(doc), min, max, std::move(choices)};
}

std::uint32_t u32(const ParamValues& v, const char* name) { return static_cast<std::uint32_t>(v.integer(name)); }

}  // namespace

std::vector<ParamSpec> serving_param_specs(const std::string& prefill_default) {
  std::vector<std::string> presets = serving_preset_names();
  return {
      spec("model", ParamType::text, "", "config.json path (relative to the scenario) or a model name (scenarios/models/NAME.json)"),
      spec("preset", ParamType::choice, "short",
           "serving preset (seed 002 §4/§6): short 10×32/128, medium 5×512/512, long 2×2048/1024, longrun 1×1000/100000",
           -1e300, 1e300, presets),
      spec("concurrency", ParamType::integer, "0", "requests in flight at once; 0 = the preset's", 0, 1e6),
      spec("requests", ParamType::integer, "0", "requests in the trace; 0 = concurrency (one wave)", 0, 1e7),
      spec("prompt_tokens", ParamType::integer, "0", "prompt tokens per request (T5: encoder input); 0 = the preset's",
           0, 1e7),
      spec("output_tokens", ParamType::integer, "0", "generated tokens per request; 0 = the preset's", 0, 1e8),
      spec("prefill", ParamType::choice, prefill_default,
           "full: the prompt in one step; chunked: chunk_tokens per step; none: decode only (prompt KV exists)", -1e300,
           1e300, {"full", "chunked", "none"}),
      spec("chunk_tokens", ParamType::integer, "512", "prompt tokens per step with prefill: chunked", 1, 1e7),
      spec("page_tokens", ParamType::integer, "0",
           "tokens per KV page; 0 = the preset's (16, vLLM's default block_size; longrun 1024)", 0, 1e7),
      spec("kv_layout", ParamType::choice, "auto",
           "per_layer: a page holds one layer's K/V (vLLM); per_request: all layers' (fewer records); auto: the "
           "preset's (per_layer; longrun per_request)",
           -1e300, 1e300, {"auto", "per_layer", "per_request"}),
      spec("granularity", ParamType::text, kDefaultWorkloadGranularity,
           "weight block size: tensor (whole tensors), seed (hidden·intermediate·2/1024 B), or bytes (2MiB, 4KiB ...)"),
      spec("load", ParamType::choice, "lazy", "lazy: weights fetched on first use; eager: all read before token 0",
           -1e300, 1e300, {"lazy", "eager"}),
      spec("routing", ParamType::choice, "skewed",
           "MoE routing: skewed (Zipf + locality), markov (transition_file + noise), table (routing_file)", -1e300,
           1e300, {"skewed", "markov", "table"}),
      spec("zipf", ParamType::real, "0.5", "skewed routing: Zipf exponent of expert popularity (0 = uniform)", 0, 100),
      spec("locality", ParamType::real, "0.2",
           "skewed routing: probability a token reuses the previous token's experts", 0, 1),
      spec("routing_file", ParamType::text, "", "table routing: CSV token,layer,expert_0..expert_{k-1}"),
      spec("transition_file", ParamType::text, "", "markov routing: CSV n×n row-stochastic expert transition matrix"),
      spec("noise", ParamType::real, "0.1", "markov routing: share of next experts drawn uniformly", 0, 1),
      spec("concepts", ParamType::integer, "64",
           "multimodal: distinct image concepts (concepts^2 x embedding_dim at most 6.4e9: nearest neighbours "
           "are found by an exhaustive scan, ~4-10 s at the limit)",
           1, 20000),
      spec("concept_clusters", ParamType::integer, "8", "multimodal: clusters the concept embeddings form", 1, 1e6),
      spec("concept_zipf", ParamType::real, "1.0", "multimodal: Zipf exponent of concept popularity", 0, 100),
      spec("concept_locality", ParamType::real, "0.5",
           "multimodal: probability a request shows a neighbour of the previous request's concept", 0, 1),
      spec("embedding_dim", ParamType::integer, "16", "multimodal: floats per concept embedding", 1, 4096),
      spec("feature_reuse", ParamType::choice, "true",
           "multimodal: a concept whose features were computed before skips the vision tower", -1e300, 1e300,
           {"true", "false"}),
      spec("logits", ParamType::choice, "true", "write a per-request logits block for every output token (TTFT/TPOT marker)",
           -1e300, 1e300, {"true", "false"}),
      spec("seed", ParamType::integer, "-1", "random seed; -1 = the scenario's", -1, 9.2e18),
  };
}

ServingOptions serving_options_from(const ParamValues& v, const WorkloadContext& context) {
  ServingOptions o;
  o.memory_limit_bytes = context.memory_limit_bytes;
  const ServingPreset& preset = find_serving_preset(v.text("preset"));
  o.preset = preset.name;
  o.concurrency = u32(v, "concurrency") ? u32(v, "concurrency") : preset.concurrency;
  o.prompt_tokens = u32(v, "prompt_tokens") ? u32(v, "prompt_tokens") : preset.prompt_tokens;
  o.output_tokens = u32(v, "output_tokens") ? u32(v, "output_tokens") : preset.output_tokens;
  o.requests = u32(v, "requests") ? u32(v, "requests") : o.concurrency;
  const std::string& prefill = v.text("prefill");
  o.prefill = prefill == "chunked" ? PrefillMode::chunked : prefill == "none" ? PrefillMode::none : PrefillMode::full;
  o.chunk_tokens = u32(v, "chunk_tokens");
  o.page_tokens = u32(v, "page_tokens") ? u32(v, "page_tokens") : preset.page_tokens;
  const std::string& layout = v.text("kv_layout");
  o.kv_layout = layout == "auto" ? (preset.per_request_pages ? KvLayout::per_request : KvLayout::per_layer)
                                 : parse_kv_layout(layout);
  o.load = v.text("load") == "eager" ? LoadMode::eager : LoadMode::lazy;
  const std::int64_t seed = v.integer("seed");
  o.seed = seed < 0 ? context.seed : static_cast<std::uint64_t>(seed);

  const std::string& routing = v.text("routing");
  o.routing.zipf_exponent = v.real("zipf");
  o.routing.locality = v.real("locality");
  o.routing.noise = v.real("noise");
  if (routing == "markov") {
    o.routing.mode = RoutingMode::markov;
    if (v.text("transition_file").empty()) throw InputError("workload: routing: markov needs transition_file");
    o.routing.transition = load_transition_matrix(resolve_path(v.text("transition_file"), context));
  } else if (routing == "table") {
    o.routing.mode = RoutingMode::table;
    if (v.text("routing_file").empty()) throw InputError("workload: routing: table needs routing_file");
    o.routing.table = std::make_shared<const RoutingTable>(load_routing_table(resolve_path(v.text("routing_file"), context)));
  }

  o.concepts.concepts = u32(v, "concepts");
  o.concepts.clusters = u32(v, "concept_clusters");
  o.concepts.popularity_exponent = v.real("concept_zipf");
  o.concepts.locality = v.real("concept_locality");
  o.concepts.embedding_dim = u32(v, "embedding_dim");
  o.feature_reuse = v.text("feature_reuse") == "true";
  o.logits = v.text("logits") == "true";
  return o;
}

}  // namespace flashsim
