#include "sim/workload/synthetic_pattern.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "sim/core/errors.h"

namespace flashsim {

SyntheticPattern parse_synthetic_pattern(const std::string& text) {
  if (text == "scan") return SyntheticPattern::scan;
  if (text == "zipf") return SyntheticPattern::zipf;
  if (text == "hot_scan") return SyntheticPattern::hot_scan;
  throw InputError("workload synthetic: parameter 'pattern' = '" + text + "': not one of: scan, zipf, hot_scan");
}

// ---------------------------------------------------------------- Zipf ----

namespace {

// log1p(x)/x and expm1(x)/x, with their Taylor series near 0 (Commons RNG).
double helper1(double x) { return std::abs(x) > 1e-8 ? std::log1p(x) / x : 1 - x * (0.5 - x * (1.0 / 3 - 0.25 * x)); }
double helper2(double x) {
  return std::abs(x) > 1e-8 ? std::expm1(x) / x : 1 + x * 0.5 * (1 + x * (1.0 / 3) * (1 + 0.25 * x));
}

}  // namespace

ZipfSampler::ZipfSampler(std::uint64_t n, double exponent) : n_(n), exponent_(exponent) {
  if (n == 0) throw Error("ZipfSampler: n must be >= 1");
  if (!(exponent >= 0.0) || !std::isfinite(exponent)) throw Error("ZipfSampler: exponent must be finite and >= 0");
  if (exponent_ > 0.0 && n_ > 1) {
    h_integral_x1_ = h_integral(1.5) - 1.0;
    h_integral_n_ = h_integral(static_cast<double>(n_) + 0.5);
    s_ = 2.0 - h_integral_inverse(h_integral(2.5) - h(2.0));
  }
}

// Over ranks x >= 1: h(x) = x^-s, H(x) = ∫ h = (x^(1−s) − 1)/(1 − s) (log x at s = 1).
double ZipfSampler::h(double x) const { return std::exp(-exponent_ * std::log(x)); }
double ZipfSampler::h_integral(double x) const {
  const double log_x = std::log(x);
  return helper2((1.0 - exponent_) * log_x) * log_x;
}
double ZipfSampler::h_integral_inverse(double x) const {
  double t = x * (1.0 - exponent_);
  if (t < -1.0) t = -1.0;  // rounding can push it just below the domain
  return std::exp(helper1(t) * x);
}

std::uint64_t ZipfSampler::draw(Rng& rng) const {
  if (n_ == 1) return 0;
  if (exponent_ == 0.0) return rng.below(n_);
  const double n = static_cast<double>(n_);
  for (;;) {
    // u uniform in (H(1.5) − 1, H(n + 0.5)]; x = H⁻¹(u), rounded to rank k.
    const double u = h_integral_n_ + rng.uniform() * (h_integral_x1_ - h_integral_n_);
    const double x = h_integral_inverse(u);
    double k = std::floor(x + 0.5);
    if (k < 1.0) k = 1.0;
    if (k > n) k = n;
    if (k - x <= s_ || u >= h_integral(k + 0.5) - h(k)) return static_cast<std::uint64_t>(k) - 1;
  }
}

// ------------------------------------------------------------ workload ----

struct SyntheticWorkload::Plan {
  SyntheticOptions o;            // defaults resolved
  std::uint64_t per_token = 0;   // accesses per token
  std::uint64_t total = 0;       // accesses in the trace
  bool has_operators = false;
  TraceMeta meta;
  std::vector<std::uint32_t> rank_to_block;  // zipf: rank -> block id
  ZipfSampler sampler{1, 0.0};               // zipf: over all blocks; hot_scan: over the hot set
};

namespace {

// Sub-stream tags of derive_seed: draws and the rank permutation.
constexpr std::uint64_t kDrawTag = 0x5d;
constexpr std::uint64_t kPermutationTag = 0x9e;

[[noreturn]] void bad(const std::string& key, const std::string& value, const std::string& why) {
  throw InputError("workload synthetic: parameter '" + key + "' = '" + value + "': " + why);
}

class SyntheticSource final : public ITraceSource {
 public:
  explicit SyntheticSource(std::shared_ptr<const SyntheticWorkload::Plan> plan) : plan_(std::move(plan)) {
    const SyntheticOptions& o = plan_->o;
    proto_.bytes = o.block_bytes;
    proto_.op = AccessOp::read;
    proto_.stream_id = 0;
    proto_.request_id = 0;
    proto_.phase = Phase::decode;
    proto_.compute_ns = o.compute_ns;
    rewind();
  }

  const TraceMeta& meta() const override { return plan_->meta; }

  std::size_t read(std::span<AccessRecord> out) override {
    const SyntheticWorkload::Plan& p = *plan_;
    const SyntheticOptions& o = p.o;
    const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(out.size(), p.total - j_));
    for (std::size_t k = 0; k < n; ++k) {
      AccessRecord& r = out[k];
      r = proto_;
      r.time_ns = time_ns_;
      r.token_index = static_cast<std::int32_t>(token_);
      if (p.has_operators) r.operator_id = static_cast<std::uint32_t>(op_);
      switch (o.pattern) {
        case SyntheticPattern::scan:
          r.block_id = pos_;
          break;
        case SyntheticPattern::zipf:
          r.block_id = p.rank_to_block[p.sampler.draw(rng_)];
          break;
        case SyntheticPattern::hot_scan:
          r.block_id = rng_.uniform() < o.hot_share ? p.sampler.draw(rng_) : pos_;
          break;
      }
      advance();
    }
    return n;
  }

  void rewind() override {
    rng_ = Rng(derive_seed(plan_->o.seed, kDrawTag));
    j_ = token_ = in_token_ = pos_ = op_ = in_op_ = 0;
    time_ns_ = 0;
  }

 private:
  void advance() {
    const SyntheticOptions& o = plan_->o;
    ++j_;
    time_ns_ += o.compute_ns;
    if (++in_token_ == plan_->per_token) {
      in_token_ = 0;
      ++token_;
    }
    if (++pos_ == o.blocks) {
      pos_ = op_ = in_op_ = 0;
    } else if (++in_op_ == o.operator_blocks) {
      in_op_ = 0;
      ++op_;
    }
  }

  std::shared_ptr<const SyntheticWorkload::Plan> plan_;
  AccessRecord proto_;
  Rng rng_;
  std::uint64_t j_ = 0, token_ = 0, in_token_ = 0, pos_ = 0, op_ = 0, in_op_ = 0;
  Nanoseconds time_ns_ = 0;
};

}  // namespace

SyntheticWorkload::SyntheticWorkload(SyntheticOptions o) {
  if (o.blocks == 0 || o.blocks > kMaxSyntheticBlocks) {
    bad("blocks", std::to_string(o.blocks), "must be in [1, 2^24 = 16777216]");
  }
  if (o.block_bytes == 0 || o.block_bytes > kMaxSyntheticBlockBytes) {
    bad("block_bytes", std::to_string(o.block_bytes), "must be in [1 B, 4 GiB]");
  }
  constexpr auto kMaxTokens = static_cast<std::uint64_t>(std::numeric_limits<std::int32_t>::max());
  if (o.tokens == 0 || o.tokens > kMaxTokens) bad("tokens", std::to_string(o.tokens), "must be in [1, 2^31 - 1]");
  if (!(o.hot_share >= 0.0 && o.hot_share <= 1.0)) bad("hot_share", std::to_string(o.hot_share), "must be in [0, 1]");
  if (!(o.zipf_exponent >= 0.0) || !std::isfinite(o.zipf_exponent)) {
    bad("zipf", std::to_string(o.zipf_exponent), "must be finite and >= 0");
  }
  if (o.hot_blocks == 0) o.hot_blocks = std::max<std::uint64_t>(1, o.blocks / 8);
  if (o.hot_blocks > o.blocks) {
    bad("hot_blocks", std::to_string(o.hot_blocks), "more than blocks (" + std::to_string(o.blocks) + ")");
  }
  if (o.operator_blocks == 0) o.operator_blocks = (o.blocks + kMaxAutoSyntheticOperators - 1) / kMaxAutoSyntheticOperators;
  if (o.operator_blocks > o.blocks) {
    bad("operator_blocks", std::to_string(o.operator_blocks), "more than blocks (" + std::to_string(o.blocks) + ")");
  }
  auto plan = std::make_shared<Plan>();
  plan->per_token = o.accesses_per_token ? o.accesses_per_token : o.blocks;
  if (plan->per_token > std::numeric_limits<std::uint64_t>::max() / o.tokens) {
    bad("accesses_per_token", std::to_string(plan->per_token), "tokens × accesses_per_token overflows 64 bits");
  }
  plan->total = plan->per_token * o.tokens;
  plan->has_operators = o.pattern != SyntheticPattern::zipf;

  TraceMeta& meta = plan->meta;
  static constexpr const char* kPatternNames[] = {"scan", "zipf", "hot_scan"};
  meta.source = "generator synthetic: pattern " + std::string(kPatternNames[static_cast<int>(o.pattern)]) + ", " +
                std::to_string(o.blocks) + " blocks of " + std::to_string(o.block_bytes) + " B, " +
                std::to_string(o.tokens) + " tokens, seed " + std::to_string(o.seed);
  meta.catalog.resize(o.blocks);
  for (BlockId b = 0; b < o.blocks; ++b) {
    BlockCatalogEntry& e = meta.catalog[b];
    e.id = b;
    e.name = "block." + std::to_string(b);
    e.bytes = o.block_bytes;
    e.kind = o.kind;
    e.layer = plan->has_operators ? static_cast<std::int32_t>(b / o.operator_blocks) : -1;
  }
  if (plan->has_operators) {
    const std::uint64_t ops = (o.blocks + o.operator_blocks - 1) / o.operator_blocks;
    meta.operators.resize(ops);
    for (std::uint64_t k = 0; k < ops; ++k) {
      OperatorEntry& op = meta.operators[k];
      op.name = "op." + std::to_string(k);
      op.layer = static_cast<std::int32_t>(k);
      const BlockId first = k * o.operator_blocks;
      const BlockId end = std::min<BlockId>(first + o.operator_blocks, o.blocks);
      op.blocks.reserve(end - first);
      for (BlockId b = first; b < end; ++b) op.blocks.push_back(b);
      op.compute_ns = o.compute_ns * static_cast<Nanoseconds>(end - first);
    }
  }
  if (o.pattern == SyntheticPattern::zipf) {
    plan->sampler = ZipfSampler(o.blocks, o.zipf_exponent);
    plan->rank_to_block.resize(o.blocks);
    for (std::uint64_t k = 0; k < o.blocks; ++k) plan->rank_to_block[k] = static_cast<std::uint32_t>(k);
    Rng rng(derive_seed(o.seed, kPermutationTag));
    for (std::uint64_t k = o.blocks - 1; k > 0; --k) std::swap(plan->rank_to_block[k], plan->rank_to_block[rng.below(k + 1)]);
  } else if (o.pattern == SyntheticPattern::hot_scan) {
    plan->sampler = ZipfSampler(o.hot_blocks, o.zipf_exponent);
  }
  plan->o = std::move(o);
  plan_ = std::move(plan);
}

SyntheticWorkload::~SyntheticWorkload() = default;

const TraceMeta& SyntheticWorkload::meta() const { return plan_->meta; }

std::unique_ptr<ITraceSource> SyntheticWorkload::open() const { return std::make_unique<SyntheticSource>(plan_); }

const SyntheticOptions& SyntheticWorkload::options() const { return plan_->o; }
std::uint64_t SyntheticWorkload::accesses_per_token() const { return plan_->per_token; }
std::uint64_t SyntheticWorkload::total_accesses() const { return plan_->total; }

BlockId SyntheticWorkload::block_of_rank(std::uint64_t k) const {
  return plan_->rank_to_block.empty() ? k : plan_->rank_to_block.at(k);
}

}  // namespace flashsim
