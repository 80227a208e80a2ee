// Static placement as production offload runs it (accelerate's device_map,
// llama.cpp's -ngl): the first layers stay on the GPU, the rest stream. On a
// captured trace: the streamed blocks (read more than once; one-off copies
// such as the initial placement are not streaming), in order of first read,
// until a byte budget is spent.
#pragma once
#include <vector>

#include "sim/core/units.h"
#include "traces/access_record.h"

namespace flashsim {

struct StaticPlacement {
  std::vector<BlockId> blocks;  ///< kept resident, in order of first read
  ByteCount bytes = 0;          ///< their sizes at first read, summed (<= the budget)
};

/// The blocks `records` reads more than once, in order of first read, while
/// they fit in `budget_bytes` (the first that does not fit ends the list).
StaticPlacement first_streamed_blocks(const std::vector<AccessRecord>& records, ByteCount budget_bytes);

}  // namespace flashsim
