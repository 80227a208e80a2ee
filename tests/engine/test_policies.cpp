#include "tests/engine/test_policies.h"

#include <deque>
#include <memory>

#include "sim/policy/i_eviction_policy.h"

namespace flashsim::test {
namespace {

// FIFO over a deque: slow and simple, test-only.
class TestFifo : public IEvictionPolicy {
 public:
  std::string_view name() const override { return kTestFifo; }
  void on_hit(const PolicyAccess&) override {}
  void on_insert(const PolicyAccess& a) override { order_.push_back(a.block); }
  std::optional<BlockIndex> evict(Nanoseconds, const EvictionFilter& filter) override {
    for (auto it = order_.begin(); it != order_.end(); ++it) {
      if (filter.allows(*it)) {
        const BlockIndex b = *it;
        order_.erase(it);
        return b;
      }
    }
    return std::nullopt;
  }
  void remove(BlockIndex block) override {
    for (auto it = order_.begin(); it != order_.end(); ++it) {
      if (*it == block) {
        order_.erase(it);
        return;
      }
    }
  }
  std::size_t size() const override { return order_.size(); }

 private:
  std::deque<BlockIndex> order_;
};

class ClockProbe final : public TestFifo {
 public:
  std::string_view name() const override { return kClockProbe; }
  void on_miss(const PolicyAccess& a) override {
    clock_probe_log().push_back(ClockObservation{a.block, a.access_index, a.now_ns});
  }
};

}  // namespace

std::vector<ClockObservation>& clock_probe_log() {
  static std::vector<ClockObservation> log;
  return log;
}

FLASHSIM_REGISTER_POLICY({kTestFifo, "test-only FIFO", {},
                          [](const ParamValues&, const PolicyContext&) -> std::unique_ptr<IEvictionPolicy> {
                            return std::make_unique<TestFifo>();
                          }});
FLASHSIM_REGISTER_POLICY({kClockProbe, "test-only FIFO that logs PolicyAccess::now_ns on each miss", {},
                          [](const ParamValues&, const PolicyContext&) -> std::unique_ptr<IEvictionPolicy> {
                            return std::make_unique<ClockProbe>();
                          }});

}  // namespace flashsim::test
