// Weight tensors -> the blocks a cache moves. Granularity is the whole
// tensor, a fixed byte size, or the seed's per-model formula
// (seed 000 §3.1, see seed_block_bytes). Blocks never straddle tensors: a
// tensor of b bytes at block size s gives ceil(b/s) blocks, all of s bytes
// but the last (b mod s, when non-zero).
#pragma once
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/core/units.h"
#include "sim/model/model_config.h"
#include "sim/model/weight_catalog.h"
#include "traces/access_record.h"

namespace flashsim {

struct BlockGranularity {
  enum class Mode { tensor, fixed, seed };
  Mode mode = Mode::tensor;
  ByteCount block_bytes = 0;  ///< fixed and seed: bytes per block; tensor: 0

  /// "tensor", "seed", or a byte size ("256B", "4KiB", "2MiB", "4096";
  /// sim/core/unit_parse.h). "seed" resolves with `model` by
  /// seed_block_bytes. Throws UnitError/InputError naming the text.
  static BlockGranularity parse(std::string_view text, const ModelConfig& model);
  static BlockGranularity tensor() { return {}; }
  static BlockGranularity fixed(ByteCount bytes) { return {Mode::fixed, bytes}; }

  /// "tensor", "seed (88064 B)", "4096 B".
  std::string describe() const;
};

/// The seed's block size (seed 000 §3.1): hidden_size · intermediate_size ·
/// 2 / 1024 bytes, integer division. Llama-2-7B: 4096·11008·2/1024 =
/// 88,064 B, which matches neither of the seed's own examples for Llama-2
/// (384 KB attention, 1.2 MB FFN; ../shared/SEED-CLAIMS.md).
ByteCount seed_block_bytes(const ModelConfig& model);

struct ModelBlocks {
  std::vector<BlockCatalogEntry> catalog;  ///< ids first_id, first_id+1, ... in tensor order
  /// Per tensor (same index as the input vector): [first, last) index into catalog.
  std::vector<std::pair<std::size_t, std::size_t>> tensor_blocks;
  ByteCount total_bytes = 0;
};

/// The most blocks split_into_blocks makes (2^24 = 16.8 M catalog entries,
/// ~2 GB of catalog): 256 B blocks fit a T5-base, not a 7 B model.
inline constexpr ByteCount kMaxModelBlocks = ByteCount{1} << 24;

/// Peak memory per catalog block of a generated workload (the entry, its
/// name, the operators' block lists): `flashsim workload generate
/// llama-2-7b -p granularity=4KiB -p requests=1 -p output_tokens=1
/// -p prompt_tokens=1` peaks at 3.35 GB RSS for 3.3 M blocks (2026-12-02,
/// the 2-core CI machine): 1.0 KB a block.
inline constexpr ByteCount kCatalogBytesPerBlock = 1024;

/// Splits `tensors` by `granularity`. Catalog entries: id = first_id + index;
/// name = tensor name (tensor mode, or a tensor of one block) else
/// "<tensor name>#<i>"; bytes; layer, kind and segment of the tensor
/// (kind "expert" for expert tensors, else the tensor's kind); address
/// range = the tensor's bytes laid out back to back in order, each tensor
/// starting on a 256 B boundary (cudaMalloc alignment), offsets from 0.
/// Throws InputError when a fixed/seed granularity has 0 bytes, or makes
/// more than kMaxModelBlocks blocks, or (memory_limit_bytes > 0) blocks
/// whose catalog (kCatalogBytesPerBlock each) would need more than that.
ModelBlocks split_into_blocks(const std::vector<WeightTensor>& tensors, const BlockGranularity& granularity,
                              BlockId first_id = 0, ByteCount memory_limit_bytes = 0);

}  // namespace flashsim
