// Trace schema v1 (interface (d) of the core): one access of one block, and
// the block catalog. The HDF5 layout (traces/hdf5_trace.h) stores each field
// as its own chunked, compressed dataset; optional fields may be absent
// from a file, and then read back as the defaults below.
#pragma once
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "sim/core/units.h"
#include "sim/policy/i_eviction_policy.h"  // AccessOp

namespace flashsim {

inline constexpr int kTraceSchemaVersion = 1;

enum class Phase : std::uint8_t { unknown = 0, prefill = 1, decode = 2 };

inline constexpr std::uint64_t kNoAddress = std::numeric_limits<std::uint64_t>::max();
inline constexpr std::uint32_t kNoOperator = std::numeric_limits<std::uint32_t>::max();
inline constexpr std::uint64_t kNoRequest = std::numeric_limits<std::uint64_t>::max();

struct AccessRecord {
  // --- core fields (always present) ---
  Nanoseconds time_ns = 0;   ///< issue time, ns from the trace's origin; non-decreasing per stream
  BlockId block_id = 0;      ///< which block (see BlockCatalogEntry::id)
  ByteCount bytes = 0;       ///< bytes of the block touched by this access (> 0)
  AccessOp op = AccessOp::read;
  std::uint32_t stream_id = 0;  ///< issuing stream (CUDA stream, request slot, thread)
  // --- schema v1 optional fields ---
  std::uint64_t request_id = kNoRequest;  ///< serving request this access belongs to
  std::int32_t token_index = -1;          ///< token position within the request; -1 unknown
  Phase phase = Phase::unknown;
  std::uint32_t operator_id = kNoOperator;  ///< operator (graph node) that consumes the block
  Nanoseconds compute_ns = 0;  ///< compute that consumes this access once the data is there, ns
  std::uint64_t address = kNoAddress;  ///< device/virtual address of the first byte touched
  std::uint64_t offset = 0;            ///< offset of the touch inside the block, bytes
  /// Index (0-based position in the trace) of the next access of the same
  /// block; kNeverAccessedAgain if none. Only meaningful when the trace says
  /// next use was precomputed (TraceMeta::has_next_use).
  std::uint64_t next_use_index = kNeverAccessedAgain;
};

/// One block of the catalog: what a BlockId stands for.
struct BlockCatalogEntry {
  BlockId id = 0;
  std::string name;               ///< e.g. "layers.3.mlp.up_proj.weight"
  ByteCount bytes = 0;
  std::uint64_t address_begin = kNoAddress;  ///< [begin, end) when known
  std::uint64_t address_end = kNoAddress;
  std::int32_t layer = -1;        ///< -1 = not part of a numbered layer
  std::string kind;               ///< "weight", "kv_page", "expert", "embedding", "io", ...
};

/// File-level facts about a trace.
struct TraceMeta {
  int schema_version = kTraceSchemaVersion;
  std::string source;          ///< where it came from: importer and input file, or generator
  std::uint64_t record_count = 0;
  bool has_next_use = false;   ///< next_use_index was precomputed
  std::vector<BlockCatalogEntry> catalog;  ///< may be empty
};

}  // namespace flashsim
