// Serving one model: requests with continuous batching, the KV cache as
// pages, MoE routing, encoder-decoder and multimodal passes, as the
// canonical trace (docs/workloads.md has the full rules; in short):
//
// Steps. Up to `concurrency` requests are in flight; a finished request's
// slot goes to the next request at the next step (continuous batching, Orca
// / vLLM). A step is one pass over the operators (per-token order) for the
// whole batch: each weight block is read once per step (MoE: the union of
// the experts the step's tokens route to), tagged with its operator_id.
// Per request a step feeds new tokens [a, b): the prompt (all of it, or
// chunk_tokens at a time with chunked prefill) or one decode token. The
// step that feeds the last prompt token, and every decode step, produce one
// output token. T5: the encoder runs over the prompt in the request's first
// step and the decoder starts from one start token; LLaVA: the vision tower
// and projector run over the image in the request's first step, and the
// language model's prompt is the image's tokens followed by the text.
//
// KV. At each decoder layer's attention, per request: a write of every page
// receiving the fed tokens (allocation + append; the first touch of a page
// is always a write unless prefill is "none"), then reads of the pages the
// attention needs: prefill reads the pages of the context before the chunk
// (the chunk's own K/V are still in registers), decode reads every page up
// to and including the fed token's.
//
// Records. Weight reads are shared by the batch: request_id kNoRequest,
// token_index -1, phase prefill if any request of the step is in prefill,
// else decode. KV, feature and logits accesses carry the request's id, the
// position of the last token fed in the step, and its phase. The
// operator's roofline time for the batch (compute_ns) is on its last record
// of the step; time_ns is the ideal (stall-free) timeline of the stream.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "sim/engine/hardware_profile.h"
#include "sim/workload/i_workload_generator.h"
#include "sim/workload/kv_cache.h"
#include "sim/workload/serving_options.h"
#include "sim/workload/workload_model.h"

namespace flashsim {

/// One request as planned before generation (its blocks are in the catalog).
struct RequestPlan {
  std::uint64_t id = 0;               ///< request_id of its records
  std::uint32_t prompt_tokens = 0;    ///< tokens the token pass prefills (LLaVA: image + text; T5: 1 start token)
  std::uint32_t encoder_tokens = 0;   ///< T5: the prompt, through the encoder
  std::uint32_t image_tokens = 0;     ///< LLaVA: image tokens at positions [0, image_tokens)
  std::uint32_t output_tokens = 0;
  std::int32_t concept_id = -1;       ///< LLaVA: the image's concept
  std::uint64_t kv_tokens = 0;        ///< tokens whose KV it stores: prompt + output - 1
  BlockId kv_first = 0;               ///< page (group g, page i) = kv_first + g·pages_per_group + i
  std::uint64_t pages_per_group = 0;
  BlockId cross_first = 0;            ///< T5 cross-attention pages, same layout over encoder tokens
  std::uint64_t cross_pages_per_group = 0;
  BlockId logits_id = 0;              ///< its logits buffer (kind "io")
  BlockId input_id = 0;               ///< its prompt, copied H2D at admission (kind "io")
  ByteCount input_bytes = 0;          ///< see kInputIdBytes: input ids (+ LLaVA pixel values)
};

/// Bytes per prompt token of the admission copy: int32 input ids, as HF
/// tokenizers and vLLM hand them to the model (torch.int32/int64 on the host;
/// vLLM's input_ids buffer is int32).
inline constexpr ByteCount kInputIdBytes = 4;

class ServingWorkload final : public IWorkloadGenerator {
 public:
  /// Plans the requests and builds the catalog. Throws InputError on
  /// options that do not fit the model (routing file layers/experts,
  /// output_tokens 0, ...).
  ServingWorkload(std::shared_ptr<const WorkloadModel> model, ServingOptions options, ComputeSpec compute);
  ~ServingWorkload() override;

  const TraceMeta& meta() const override;
  std::unique_ptr<ITraceSource> open() const override;

  const KvGeometry& kv_geometry() const;
  const std::vector<RequestPlan>& requests() const;
  const WorkloadModel& model() const;
  const ServingOptions& options() const;
  /// One past the largest block id the trace uses.
  BlockId end_id() const;

  struct Plan;  // shared, read-only state of every reader

 private:
  std::shared_ptr<const Plan> plan_;
};

}  // namespace flashsim
