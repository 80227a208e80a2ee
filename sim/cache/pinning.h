// Resolving a scenario's pins (by id, layer or kind) into block ids, with
// the same rules for every driver: the cache-only replay, the event engine
// and the GPU replay.
#pragma once
#include "sim/core/hash_map.h"
#include "sim/cache/cache_config.h"
#include "traces/access_record.h"

namespace flashsim {

struct PinnedSet {
  HashSet<BlockId> ids;         ///< every pinned block id
  ByteCount catalog_bytes = 0;  ///< catalog sizes of the pinned blocks found in the catalog
};

/// Ids named by `spec.blocks`, plus every catalog entry of `meta` whose layer,
/// kind or segment (BlockCatalogEntry::segment, e.g. "shared" for tied
/// embeddings) `spec` names. Throws InputError when layers, kinds or
/// segments are named but the trace has no catalog, when one of them
/// matches no block, or when the pinned blocks' catalog bytes exceed
/// `capacity_bytes` (the fast tier's). With `unit_sizes` (cache.ignore_sizes)
/// every block counts 1: catalog_bytes is the number of pinned catalog
/// blocks and the capacity a number of blocks.
PinnedSet resolve_pins(const PinSpec& spec, const TraceMeta& meta, ByteCount capacity_bytes, bool unit_sizes = false);

}  // namespace flashsim
