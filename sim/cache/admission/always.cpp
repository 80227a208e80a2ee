// Every miss is cached: what a policy entry without `admission:` does (the
// fast tier then builds no admission object at all).
#include <memory>

#include "sim/cache/i_admission_policy.h"

namespace flashsim {
namespace {

class AlwaysAdmit final : public IAdmissionPolicy {
 public:
  std::string_view name() const override { return "always"; }
  bool admit(const PolicyAccess&) override { return true; }
};

}  // namespace

FLASHSIM_REGISTER_ADMISSION({"always", "cache every miss (the default)", {},
                             [](const ParamValues&, const AdmissionContext&) -> std::unique_ptr<IAdmissionPolicy> {
                               return std::make_unique<AlwaysAdmit>();
                             }});

}  // namespace flashsim
