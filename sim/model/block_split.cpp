#include "sim/model/block_split.h"

#include "sim/core/errors.h"
#include "sim/core/memory_limit.h"
#include "sim/core/unit_parse.h"

namespace flashsim {

namespace {
constexpr ByteCount kTensorAlignment = 256;  // cudaMalloc's alignment: each tensor starts on it
}

BlockGranularity BlockGranularity::parse(std::string_view text, const ModelConfig& model) {
  if (text == "tensor") return tensor();
  if (text == "seed") {
    const ByteCount bytes = seed_block_bytes(model);
    if (bytes == 0) throw InputError("block granularity 'seed': hidden_size·intermediate_size·2/1024 is 0 bytes");
    return {Mode::seed, bytes};
  }
  ByteCount bytes = 0;
  try {
    bytes = parse_bytes(text);
  } catch (const UnitError& e) {
    throw UnitError("block granularity '" + std::string(text) + "': expected tensor, seed or a byte size (" +
                    e.what() + ")");
  }
  if (bytes == 0) throw InputError("block granularity '" + std::string(text) + "' must be more than 0 bytes");
  return fixed(bytes);
}

std::string BlockGranularity::describe() const {
  switch (mode) {
    case Mode::tensor: return "tensor";
    case Mode::seed: return "seed (" + std::to_string(block_bytes) + " B)";
    case Mode::fixed: return std::to_string(block_bytes) + " B";
  }
  return "?";
}

ByteCount seed_block_bytes(const ModelConfig& model) {
  return model.hidden_size * model.intermediate_size * 2 / 1024;
}

ModelBlocks split_into_blocks(const std::vector<WeightTensor>& tensors, const BlockGranularity& granularity,
                              BlockId first_id, ByteCount memory_limit_bytes) {
  if (granularity.mode != BlockGranularity::Mode::tensor && granularity.block_bytes == 0) {
    throw InputError("block granularity " + granularity.describe() + " must be more than 0 bytes");
  }
  if (granularity.mode != BlockGranularity::Mode::tensor) {
    ByteCount blocks = 0;
    for (const WeightTensor& t : tensors) blocks += (t.bytes + granularity.block_bytes - 1) / granularity.block_bytes;
    if (blocks > kMaxModelBlocks) {
      throw InputError("block granularity " + granularity.describe() + " splits the model into " +
                       std::to_string(blocks) + " blocks, more than the " + std::to_string(kMaxModelBlocks) +
                       " a catalog may hold; use a larger granularity");
    }
    if (memory_limit_bytes > 0 && blocks * kCatalogBytesPerBlock > memory_limit_bytes) {
      throw InputError("granularity: " + granularity.describe() + " splits the model's weights into " +
                       std::to_string(blocks) + " blocks, a catalog of about " +
                       gib_text(static_cast<double>(blocks * kCatalogBytesPerBlock)) + " in memory, above the limit of " +
                       gib_text(static_cast<double>(memory_limit_bytes)) +
                       "; use a larger granularity or " + raise_memory_limit_advice(memory_limit_bytes));
    }
  }
  ModelBlocks out;
  out.tensor_blocks.reserve(tensors.size());
  std::uint64_t address = 0;
  for (const WeightTensor& t : tensors) {
    const std::size_t first = out.catalog.size();
    const ByteCount size = granularity.mode == BlockGranularity::Mode::tensor ? t.bytes : granularity.block_bytes;
    const ByteCount count = t.bytes == 0 ? 0 : (t.bytes + size - 1) / size;
    for (ByteCount i = 0; i < count; ++i) {
      BlockCatalogEntry e;
      e.id = first_id + out.catalog.size();
      e.name = count == 1 ? t.name : t.name + "#" + std::to_string(i);
      e.bytes = (i + 1 < count) ? size : t.bytes - size * (count - 1);
      e.address_begin = address + i * size;
      e.address_end = e.address_begin + e.bytes;
      e.layer = t.layer;
      e.kind = t.kind;
      e.segment = t.segment;
      out.catalog.push_back(std::move(e));
    }
    out.tensor_blocks.emplace_back(first, out.catalog.size());
    out.total_bytes += t.bytes;
    address += (t.bytes + kTensorAlignment - 1) / kTensorAlignment * kTensorAlignment;
  }
  return out;
}

}  // namespace flashsim
