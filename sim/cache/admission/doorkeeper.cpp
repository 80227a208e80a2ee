// TinyLFU's doorkeeper as admission (Einziger, Friedman, Manes, ACM ToS
// 2017, §3.4.2): a block is cached only on a miss after it was seen at least
// once before in the current window; the first sighting only marks it. The
// set is cleared every `window` accesses (TinyLFU's reset). The paper's
// doorkeeper is a Bloom filter; this one is exact (no false positives), so
// it admits a subset of what a Bloom filter would.
#include <memory>
#include <vector>

#include "sim/cache/i_admission_policy.h"

namespace flashsim {
namespace {

class DoorkeeperAdmit final : public IAdmissionPolicy {
 public:
  explicit DoorkeeperAdmit(std::uint64_t window) : window_(window) {}
  std::string_view name() const override { return "doorkeeper"; }
  void on_access(const PolicyAccess& a) override {
    if (++accesses_ % window_ == 0) ++epoch_;  // the reset: every mark older than this epoch is void
    if (a.block >= seen_epoch_.size()) seen_epoch_.resize(a.block + 1, 0);
    seen_before_ = seen_epoch_[a.block] == epoch_ + 1;
    seen_epoch_[a.block] = epoch_ + 1;
  }
  bool admit(const PolicyAccess&) override { return seen_before_; }

 private:
  std::uint64_t window_;
  std::uint64_t accesses_ = 0, epoch_ = 0;
  std::vector<std::uint64_t> seen_epoch_;  ///< epoch + 1 of the block's last sighting; 0 = never
  bool seen_before_ = false;               ///< of the access on_access saw last
};

}  // namespace

FLASHSIM_REGISTER_ADMISSION({"doorkeeper",
                             "cache a miss only if the block was seen before in the current window (TinyLFU's "
                             "doorkeeper, Einziger et al., ACM ToS 2017; exact set, not a Bloom filter)",
                             {{"window", ParamType::integer, "100000", "accesses between resets", 1, 9.2e18, {}}},
                             [](const ParamValues& p, const AdmissionContext&) -> std::unique_ptr<IAdmissionPolicy> {
                               return std::make_unique<DoorkeeperAdmit>(static_cast<std::uint64_t>(p.integer("window")));
                             }});

}  // namespace flashsim
