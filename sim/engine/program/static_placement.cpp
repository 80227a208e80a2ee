#include "sim/engine/program/static_placement.h"

#include <map>
#include <set>

namespace flashsim {

StaticPlacement first_streamed_blocks(const std::vector<AccessRecord>& records, ByteCount budget_bytes) {
  std::map<BlockId, std::uint64_t> reads;
  for (const AccessRecord& r : records) reads[r.block_id] += r.op == AccessOp::read;
  std::set<BlockId> seen;
  StaticPlacement out;
  for (const AccessRecord& r : records) {
    if (r.op != AccessOp::read || reads[r.block_id] < 2 || seen.count(r.block_id) != 0) continue;
    if (out.bytes + r.bytes > budget_bytes) break;
    seen.insert(r.block_id);
    out.bytes += r.bytes;
    out.blocks.push_back(r.block_id);
  }
  return out;
}

}  // namespace flashsim
