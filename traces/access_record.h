// Trace schema v1 (interface (d) of the core): one access of one block, and
// the block catalog. The HDF5 layout (traces/hdf5_trace.h) stores each field
// as its own chunked, compressed dataset; optional fields may be absent
// from a file, and then read back as the defaults below.
#pragma once
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "sim/core/units.h"
#include "traces/access_op.h"
#include "traces/program.h"

namespace flashsim {

/// The newest schema this build reads and writes; version 2 adds the program
/// (traces/program.h), version 3 the capture's host facts and repeat marks
/// (Program::host). A trace is written with the oldest version that holds
/// it: 1 without a program, 2 with one without v3 facts.
inline constexpr int kTraceSchemaVersion = 3;
inline constexpr int kTraceSchemaVersionOldest = 1;

enum class Phase : std::uint8_t { unknown = 0, prefill = 1, decode = 2 };

inline constexpr std::uint64_t kNoAddress = std::numeric_limits<std::uint64_t>::max();
inline constexpr std::uint32_t kNoOperator = std::numeric_limits<std::uint32_t>::max();
inline constexpr std::uint64_t kNoRequest = std::numeric_limits<std::uint64_t>::max();

/// Largest compute_ns of one access (2^40 ns, 18.3 minutes): beyond it a
/// duration is corrupt, and the engine's sums of time could overflow.
inline constexpr Nanoseconds kMaxComputeNs = Nanoseconds{1} << 40;
/// Largest |time_ns| (2^62 ns, 146 years): room for the engine to add
/// latencies and durations to a recorded time without overflowing.
inline constexpr Nanoseconds kMaxAbsTimeNs = Nanoseconds{1} << 62;

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
  /// Model segment: "decoder", "encoder", "cross_attention", "vision",
  /// "shared" (tied or config-marked shared parameters); empty = unknown.
  std::string segment{};
  std::int32_t concept_id = -1;   ///< multimodal: the image concept the block belongs to; -1 = none
  std::vector<float> embedding{}; ///< multimodal: the concept's embedding (semantic prefetch); may be empty
};

/// One operator of the model's per-token order: the topological order of its
/// operator graph (sim/model/operator_graph.h). Prefetchers look ahead along
/// it; an access names its operator by index (AccessRecord::operator_id).
struct OperatorEntry {
  std::string name;               ///< e.g. "layers.3.mlp"
  std::int32_t layer = -1;
  std::string segment;            ///< as BlockCatalogEntry::segment
  std::vector<BlockId> blocks;    ///< weight blocks it always reads, in read order
  /// MoE: expert blocks of which a token reads only the routed top-k
  /// (a predictor, not the graph, says which); empty for dense operators.
  std::vector<BlockId> routed_blocks;
  Nanoseconds compute_ns = 0;     ///< roofline time of one token's pass (0 = unknown)
};

/// One stream of a trace as a pass over its records finds it.
struct StreamSummary {
  std::uint32_t stream_id = 0;
  Nanoseconds first_time_ns = 0;  ///< time_ns of its first record
  std::uint64_t records = 0;      ///< > 0
};

/// File-level facts about a trace.
struct TraceMeta {
  int schema_version = kTraceSchemaVersionOldest;  ///< 2 or 3 when `program` is set (Program::schema_version)
  std::string source;          ///< where it came from: importer and input file, or generator
  std::uint64_t record_count = 0;
  bool has_next_use = false;   ///< next_use_index was precomputed
  std::vector<BlockCatalogEntry> catalog;  ///< may be empty
  /// Per-token operator order (index = operator_id); empty when the trace
  /// did not come from a model (recorded traces).
  std::vector<OperatorEntry> operators;
  /// Schema v2: the program the accesses came from (a live capture); null
  /// for traces without one. Shared: metas are copied freely.
  std::shared_ptr<const Program> program;
  /// The streams in order of first appearance and whether any record has a
  /// request_id, when the file says (HDF5 traces: group /streams,
  /// docs/traces.md); streams_known is false otherwise. What the event
  /// engine's first pass would find: with it and no requests, the engine
  /// replays in one pass (sim/engine/event/trace_scan.h).
  bool streams_known = false;
  std::vector<StreamSummary> streams;
  bool has_requests = false;  ///< meaningful when streams_known
};

}  // namespace flashsim
