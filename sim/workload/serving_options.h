// The knobs of a serving workload (sim/workload/serving_trace.h) and their
// declared parameters (sim/core/params.h), shared by the generators that
// serve requests (serving, decode, colocated).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sim/core/params.h"
#include "sim/model/block_split.h"
#include "sim/workload/expert_routing.h"
#include "sim/workload/image_concepts.h"
#include "sim/workload/kv_cache.h"

namespace flashsim {

struct WorkloadContext;

enum class PrefillMode {
  full,     ///< the whole prompt in the request's first step
  chunked,  ///< chunk_tokens prompt tokens per step (Sarathi-style chunked prefill)
  none,     ///< decode only: the prompt's KV exists (in the backing tier) before the first step
};

enum class LoadMode {
  lazy,   ///< a weight block is first fetched when an operator first needs it
  eager,  ///< every weight block is read once, in catalog order, before token 0
};

enum class RoutingMode { skewed, markov, table };

struct RoutingOptions {
  RoutingMode mode = RoutingMode::skewed;
  double zipf_exponent = 0.5;   ///< skewed
  double locality = 0.2;        ///< skewed: P(reuse the previous token's experts)
  std::shared_ptr<const RoutingTable> table;  ///< table
  TransitionMatrix transition;  ///< markov
  double noise = 0.1;           ///< markov
};

struct ServingOptions {
  std::string preset = "short";
  std::uint32_t concurrency = 10;      ///< requests in flight (continuous batching: one step serves them all)
  std::uint32_t requests = 10;         ///< requests in the trace
  std::uint32_t prompt_tokens = 32;    ///< text prompt (LLaVA adds the image's tokens)
  std::uint32_t output_tokens = 128;   ///< generated tokens per request (>= 1)
  PrefillMode prefill = PrefillMode::full;
  std::uint32_t chunk_tokens = 512;
  std::uint32_t page_tokens = 16;
  KvLayout kv_layout = KvLayout::per_layer;
  LoadMode load = LoadMode::lazy;
  RoutingOptions routing;
  ConceptOptions concepts;
  bool feature_reuse = true;           ///< LLaVA: a concept seen before skips the vision tower
  bool logits = true;                  ///< a per-request logits write marks each output token
  std::uint64_t seed = 1;
  /// The catalog's estimated memory must stay below this (0 = unchecked):
  /// WorkloadContext::memory_limit_bytes.
  ByteCount memory_limit_bytes = 0;
  // --- placement in a merged trace (colocated models) ---
  std::uint32_t stream_id = 0;
  std::uint32_t operator_base = 0;     ///< operator ids start here
  std::string name_prefix;             ///< prefixed to every catalog and operator name
};

/// Parameters of the serving generators. `prefill_default`: "full" for
/// serving, "none" for decode.
std::vector<ParamSpec> serving_param_specs(const std::string& prefill_default);

/// Options from resolved parameters: the preset fills concurrency, prompt
/// and output tokens left at 0; requests 0 = concurrency; seed -1 = the
/// context's; routing files are read (InputError naming file:line).
ServingOptions serving_options_from(const ParamValues& values, const WorkloadContext& context);

/// The block granularity text of the parameters ("2MiB", "tensor", "seed").
inline constexpr const char* kDefaultWorkloadGranularity = "2MiB";

}  // namespace flashsim
