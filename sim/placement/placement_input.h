// The placement program's input (sim/placement/flexgen_lp.h) for a served
// model: a serving workload's catalog, operators and batch, and the
// hardware profile's tiers and links. Every figure's source is in
// docs/placement.md; in short:
//   weights      the catalog's weight blocks (ids of the workload model),
//                grouped by layer; layer-less ones (embeddings, lm_head,
//                final norm) form the group "other"
//   read/step    every weight block once a step (the generator reads each
//                operator's blocks whole), MoE experts times the expected
//                share a step routes to: E·(1 − (1 − k/E)^batch) / E
//   KV           batch × KV bytes per token × (prompt + output − 1) tokens at
//                the peak, in whole pages; read per step at FlexGen's mean
//                decode context, prompt + output/2 tokens; one token written
//   compute      the operators' roofline time (TraceMeta::operators), a
//                decode step of the batch at the prompt's context
//   tiers        tiers[0]: the scenario's fast-tier capacity; then the
//                profile's tiers with their links (bandwidth up; down for
//                the host link: execution.d2h_bandwidth when set; the
//                link's latency once per transfer: a group's mean weight
//                block, a KV page, or the scenario's pieces if smaller)
//   reserved     the request buffers (logits, inputs) of the batch
#pragma once
#include <cstdint>

#include "sim/core/units.h"
#include "sim/engine/hardware_profile.h"
#include "sim/placement/flexgen_lp.h"
#include "sim/workload/serving_trace.h"

namespace flashsim::placement {

/// The program's input and the workload facts it came from (for printing).
struct ServingPlacementInput {
  PlacementInput lp;
  double prompt_tokens = 0;        ///< mean over the requests
  double output_tokens = 0;        ///< mean over the requests
  ByteCount kv_bytes_per_token = 0;  ///< all layers
  std::uint32_t layers = 0;        ///< numbered layer groups
  double expert_read_share = 1;    ///< share of a layer's experts a step reads (1 for dense models)
};

/// Builds the input for `workload` on `hardware` with a fast tier of
/// `fast_capacity_bytes`; `piece_bytes` > 0: blocks move in pieces of at
/// most that (cache.granularity). Throws InputError when the model has no
/// weight blocks or the profile has fewer than two tiers.
ServingPlacementInput serving_placement_input(const ServingWorkload& workload, const HardwareProfile& hardware,
                                              ByteCount fast_capacity_bytes, ByteCount piece_bytes = 0);

}  // namespace flashsim::placement
