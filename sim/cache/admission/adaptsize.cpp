// AdaptSize's admission rule (Berger, Sitaraman, Harchol-Balter, NSDI'17):
// a miss of s bytes is cached with probability exp(-s / c). AdaptSize tunes
// c online with a Markov model of the cache; here c is a parameter (sweep
// it: `sweep: {policies.0.admission.c: [...]}`), so the rule, not the tuner,
// is what is modelled. The draw is seeded: runs are reproducible.
#include <cmath>
#include <memory>
#include <random>

#include "sim/cache/i_admission_policy.h"

namespace flashsim {
namespace {

class AdaptSizeAdmit final : public IAdmissionPolicy {
 public:
  AdaptSizeAdmit(double c_bytes, std::uint64_t seed) : c_bytes_(c_bytes), rng_(seed) {}
  std::string_view name() const override { return "adaptsize"; }
  bool admit(const PolicyAccess& a) override {
    return uniform_(rng_) < std::exp(-static_cast<double>(a.bytes) / c_bytes_);
  }

 private:
  double c_bytes_;
  std::mt19937_64 rng_;
  std::uniform_real_distribution<double> uniform_{0.0, 1.0};
};

}  // namespace

FLASHSIM_REGISTER_ADMISSION({"adaptsize",
                             "cache a miss of s bytes with probability exp(-s/c) (AdaptSize, Berger et al., NSDI'17; "
                             "c fixed, not tuned online)",
                             {{"c", ParamType::bytes, "16MiB", "size scale c of exp(-s/c)", 1.0, 9.2e18, {}},
                              {"seed", ParamType::integer, "1", "seed of the admission draws", 0, 9.2e18, {}}},
                             [](const ParamValues& p, const AdmissionContext&) -> std::unique_ptr<IAdmissionPolicy> {
                               return std::make_unique<AdaptSizeAdmit>(static_cast<double>(p.bytes("c")),
                                                                       static_cast<std::uint64_t>(p.integer("seed")));
                             }});

}  // namespace flashsim
