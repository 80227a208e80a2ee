// FIFO: evict the block inserted longest ago; hits change nothing (Belady,
// "A study of replacement algorithms for a virtual-storage computer", IBM
// Systems Journal 5(2), 1966, where it is one of the baselines).
#include <memory>

#include "sim/policy/queue_policy.h"

namespace flashsim {

FLASHSIM_REGISTER_POLICY({"fifo",
                          "first in, first out; hits do not reorder (Belady, IBM Systems Journal 1966)",
                          {},
                          [](const ParamValues&, const PolicyContext& c) -> std::unique_ptr<IEvictionPolicy> {
                            return std::make_unique<QueuePolicy<false>>("fifo", c);
                          }});

}  // namespace flashsim
