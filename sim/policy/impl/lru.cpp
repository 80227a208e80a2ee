// LRU: evict the block whose last access is oldest (Mattson et al., "Evaluation
// techniques for storage hierarchies", IBM Systems Journal 9(2), 1970, the
// stack algorithm). One intrusive list: a hit moves the block to the front,
// eviction takes the back. Sizes do not change the order: with variable-size
// blocks the driver simply evicts from the back until the new block fits.
#include <memory>

#include "sim/policy/queue_policy.h"

namespace flashsim {

FLASHSIM_REGISTER_POLICY({"lru",
                          "least recently used (Mattson et al., IBM Systems Journal 1970)",
                          {},
                          [](const ParamValues&, const PolicyContext& c) -> std::unique_ptr<IEvictionPolicy> {
                            return std::make_unique<QueuePolicy<true>>("lru", c);
                          }});

}  // namespace flashsim
