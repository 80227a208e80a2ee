// A miss is cached only when its block is at most `max_bytes`: the static
// threshold AdaptSize (Berger et al., NSDI'17, §2) compares itself to; keeps
// a 131 MB embedding from flushing a tier of 2 MiB blocks.
#include <memory>

#include "sim/cache/i_admission_policy.h"

namespace flashsim {
namespace {

class SizeThresholdAdmit final : public IAdmissionPolicy {
 public:
  explicit SizeThresholdAdmit(ByteCount max_bytes) : max_bytes_(max_bytes) {}
  std::string_view name() const override { return "size_threshold"; }
  bool admit(const PolicyAccess& a) override { return a.bytes <= max_bytes_; }

 private:
  ByteCount max_bytes_;
};

}  // namespace

FLASHSIM_REGISTER_ADMISSION({"size_threshold", "cache a miss only if its block is at most max_bytes",
                             {{"max_bytes", ParamType::bytes, "64MiB", "largest block cached", 1.0, 9.2e18, {}}},
                             [](const ParamValues& p, const AdmissionContext&) -> std::unique_ptr<IAdmissionPolicy> {
                               return std::make_unique<SizeThresholdAdmit>(p.bytes("max_bytes"));
                             }});

}  // namespace flashsim
