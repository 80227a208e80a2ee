// Layer packing (seed 000 §3.1, "V2 scheduler"): the weights of K adjacent
// layers move as one slice, so that a layer's successor is already there
// when it runs. The seed packs K = 3 and reports a slice utilisation of
// 63%, +19% fast-tier space and -34% latency; this file measures what a
// given slot size and slot allocator actually give (docs/models.md).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/core/units.h"
#include "sim/model/block_split.h"
#include "sim/model/model_config.h"
#include "sim/model/weight_catalog.h"
#include "traces/access_record.h"

namespace flashsim {

/// One slice: the tensors of layers [first_layer, last_layer) of one stack,
/// or one tensor outside the numbered layers (embedding, final norm,
/// lm_head, projector), which forms a slice of its own.
struct LayerSlice {
  std::string name;          ///< "model.layers.0-2", "encoder.block.3-5", or the tensor name
  /// Stack: "decoder", "encoder", "vision", "shared"; a T5 decoder block's
  /// cross-attention tensors travel with their block (stack "decoder").
  std::string stack;
  std::int32_t first_layer = -1;  ///< -1 for a lone non-layer tensor
  std::int32_t last_layer = -1;   ///< exclusive
  std::vector<std::size_t> tensors;  ///< indices into the tensor vector
  ByteCount payload_bytes = 0;   ///< sum of its tensors' bytes
  ByteCount requested_bytes = 0; ///< what is asked of the allocator (whole slots)
  ByteCount reserved_bytes = 0;  ///< what the allocator reserved with every slice resident
};

struct LayerPackingReport {
  unsigned layers_per_slice = 0;     ///< K
  ByteCount slot_bytes = 0;          ///< 0 = each slice asks for its own payload
  std::string allocator;             ///< SlotAllocatorRegistry name
  std::vector<LayerSlice> slices;    ///< in read order (first tensor of each)
  std::vector<std::size_t> tensor_slice;  ///< per tensor: its slice index
  std::size_t layer_slice_count = 0;      ///< slices made of layers (the rest are lone tensors)

  // --- every slice resident (one allocator over 4x the total request) ---
  ByteCount payload_bytes = 0;        ///< sum of slice payloads (= the model's bytes)
  ByteCount reserved_bytes = 0;       ///< sum of what the allocator reserved
  /// Mean over layer slices of payload / reserved: the seed's "single
  /// slice utilisation" (63% in seed 000 §3.1).
  double layer_slice_utilisation = 0.0;
  double utilisation = 0.0;           ///< payload_bytes / reserved_bytes
  /// 1 - utilisation: reserved bytes carrying no weights (slot rounding +
  /// the allocator's rounding).
  double internal_fragmentation = 0.0;
  /// Unpacked baseline: every tensor placed alone the same way
  /// (slot-rounded, same allocator kind).
  ByteCount unpacked_reserved_bytes = 0;
  /// reserved_bytes / unpacked_reserved_bytes - 1 (the seed: +19%).
  double space_overhead = 0.0;

  // --- churn in a fast tier of capacity_bytes (only when 0 < capacity < need) ---
  ByteCount capacity_bytes = 0;
  /// Slices are placed in read order for `passes` passes, evicting the
  /// least recently placed until each fits (a cyclic scan: LRU = FIFO).
  unsigned passes = 0;
  std::uint64_t placements = 0;
  std::uint64_t evictions = 0;
  std::uint64_t unplaceable = 0;      ///< slices the allocator could never fit
  /// Mean over placements of 1 - largest free extent / free bytes, sampled
  /// after each placement (0 when nothing is free): external fragmentation.
  double external_fragmentation = 0.0;
  /// Mean over placements of reserved / capacity after the placement.
  double mean_occupancy = 0.0;

  /// One catalog entry per slice (id = first_id + slice index, bytes =
  /// payload, layer = first_layer, segment = stack, kind "slice" for layer
  /// slices and the tensor's kind for a lone tensor), so a workload can
  /// move packed slices as blocks (see packed_blocks).
  std::vector<BlockCatalogEntry> slice_catalog;
};

/// Packs every run of K adjacent layers of each stack into one slice (a
/// tensor outside the layers is a slice alone) and measures placement
/// with the core's slot allocators (SlotAllocatorRegistry: bytes |
/// first_fit | size_class, default parameters). A slice asks for
/// ceil(payload / slot_bytes) · slot_bytes, or its payload when
/// slot_bytes == 0. When 0 < capacity_bytes < the total reserved, also
/// runs `passes` cyclic passes in a fast tier of capacity_bytes (churn).
/// `first_id` numbers slice_catalog.
/// Throws InputError when K == 0, UnknownNameError for an unknown allocator.
LayerPackingReport pack_layers(const ModelConfig& model, const std::vector<WeightTensor>& tensors, unsigned K,
                               ByteCount slot_bytes, const std::string& allocator,
                               ByteCount capacity_bytes = 0, BlockId first_id = 0, unsigned passes = 2);

/// The packed model as blocks: catalog = report.slice_catalog and every
/// tensor maps to its slice's single block, so build_operator_graph()
/// (operator_graph.h) on it yields operators that read whole slices.
ModelBlocks packed_blocks(const LayerPackingReport& report);

}  // namespace flashsim
