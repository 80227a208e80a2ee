// Walking the per-token operator order (TraceMeta::operators, the
// topological order of the model's operator graph) forward from an
// operator: the lookahead of prefetchers. After the last operator comes
// operator 0 of the next token.
#pragma once
#include <cstdint>
#include <vector>

#include "traces/access_record.h"

namespace flashsim {

/// Calls visit(block, op) for the non-routed blocks (OperatorEntry::blocks,
/// in read order) of the `count` operators that follow `current` (wrapping
/// to operator 0; at most one whole turn, since further on only revisits)
/// to operator 0), nearest first. Routed blocks (MoE experts) are never
/// visited: which of them a token reads is for a predictor to say. `visit`
/// returns false to stop the walk. Requires current < ops.size() unless ops
/// is empty (then nothing is visited).
template <class Visit>
void for_each_block_ahead(const std::vector<OperatorEntry>& ops, std::uint32_t current, std::uint64_t count,
                          Visit&& visit) {
  const std::uint64_t n = ops.size();
  if (n == 0) return;
  std::uint64_t op = current;
  // Past one whole turn the walk only revisits operators already visited.
  const std::uint64_t steps = count < n ? count : n;
  for (std::uint64_t step = 0; step < steps; ++step) {
    op = (op + 1 == n) ? 0 : op + 1;
    for (BlockId b : ops[op].blocks)
      if (!visit(b, static_cast<std::uint32_t>(op))) return;
  }
}

}  // namespace flashsim
