// Synthetic block-access patterns without a model: a cyclic scan (a layer-
// weights stream, the pattern that defeats LRU), iid Zipf draws, and a scan
// with Zipf-hot replacements. They give any block size (256 B .. GiB) at a
// chosen access count, for validation sweeps where the model-based
// generators (serving, decode) cannot (docs/workloads.md, "synthetic").
//
// Access j of the trace (j = 0 .. tokens·A − 1, A = accesses per token) is
// access i = j mod A of token t = j / A. The scan position is p = j mod
// blocks: the scan runs on across token boundaries, so with A = blocks
// (the default) every token reads blocks 0..blocks−1 in order, and with any
// A every block is read in turn.
//   scan:      block p.
//   zipf:      block perm[k], k a Zipf(exponent) rank over all blocks drawn
//              iid; perm a seeded permutation (popular ≠ low ids).
//   hot_scan:  with probability hot_share, block k for a Zipf(exponent)
//              rank k over the first hot_blocks ids (block 0 most popular);
//              otherwise block p.
// Records: stream 0, request_id 0, token_index t, phase decode, op read,
// bytes = block_bytes, compute_ns = the per-access compute, time_ns = j ·
// compute (the stall-free timeline). scan and hot_scan: operator k holds
// blocks [k·operator_blocks, (k+1)·operator_blocks) in read order, an access
// names the operator of its scan position p, so the lookahead prefetcher
// walks the scan (docs/prefetch.md). zipf: no operators (kNoOperator).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sim/core/units.h"
#include "sim/workload/i_workload_generator.h"
#include "sim/workload/random.h"

namespace flashsim {

enum class SyntheticPattern { scan, zipf, hot_scan };

/// Throws InputError (naming parameter 'pattern') for any other text.
SyntheticPattern parse_synthetic_pattern(const std::string& text);

inline constexpr std::uint64_t kMaxSyntheticBlocks = std::uint64_t{1} << 24;
inline constexpr ByteCount kMaxSyntheticBlockBytes = ByteCount{4} << 30;  // 4 GiB
/// operator_blocks 0 (auto) keeps the operator list at most this long: one
/// block per operator up to 65536 blocks, then ceil(blocks / 65536).
inline constexpr std::uint64_t kMaxAutoSyntheticOperators = 65536;

struct SyntheticOptions {
  ByteCount block_bytes = kMiB;           ///< 1 .. 4 GiB
  std::uint64_t blocks = 1024;            ///< distinct blocks, ids 0..blocks−1; 1 .. 2^24
  std::uint64_t tokens = 8;               ///< passes / decode steps; 1 .. 2^31−1
  std::uint64_t accesses_per_token = 0;   ///< 0 = blocks
  SyntheticPattern pattern = SyntheticPattern::scan;
  double zipf_exponent = 0.9;             ///< zipf, hot_scan; >= 0 (0 = uniform)
  double hot_share = 0.5;                 ///< hot_scan: probability an access is a hot draw, [0, 1]
  std::uint64_t hot_blocks = 0;           ///< hot_scan: the hot set 0..hot_blocks−1; 0 = max(1, blocks/8)
  std::uint64_t operator_blocks = 0;      ///< blocks per operator; 0 = auto (kMaxAutoSyntheticOperators)
  Nanoseconds compute_ns = 0;             ///< per access; 0 = the scenario's closed-loop gap applies
  std::string kind = "weight";            ///< catalog kind of every block
  std::uint64_t seed = 1;
};

/// Zipf(s) ranks over {0, .., n−1}: P(k) = (k+1)^−s / H(n, s), rank 0 most
/// popular, in O(1) memory and O(1) expected time per draw, by rejection-
/// inversion (W. Hörmann, G. Derflinger, "Rejection-inversion to generate
/// variates from monotone discrete distributions", ACM TOMACS 6(3), 1996;
/// the form of Apache Commons RNG's RejectionInversionZipfSampler).
/// s = 0 draws uniformly.
class ZipfSampler {
 public:
  /// n >= 1, s >= 0 (Error otherwise).
  ZipfSampler(std::uint64_t n, double exponent);
  std::uint64_t draw(Rng& rng) const;
  std::uint64_t size() const { return n_; }

 private:
  double h(double x) const;
  double h_integral(double x) const;
  double h_integral_inverse(double x) const;
  std::uint64_t n_;
  double exponent_;
  double h_integral_x1_ = 0, h_integral_n_ = 0, s_ = 0;
};

/// The `synthetic` generator's workload: the patterns above as a streaming
/// trace (nothing stored but the catalog, the operators and, for zipf, the
/// rank permutation: 4 B per block).
class SyntheticWorkload final : public IWorkloadGenerator {
 public:
  /// Throws InputError naming the parameter (blocks, block_bytes, tokens,
  /// hot_blocks, hot_share, zipf, operator_blocks) when out of range.
  explicit SyntheticWorkload(SyntheticOptions options);
  ~SyntheticWorkload() override;

  const TraceMeta& meta() const override;
  std::unique_ptr<ITraceSource> open() const override;

  /// Options with the defaults (0 = ...) resolved.
  const SyntheticOptions& options() const;
  std::uint64_t accesses_per_token() const;
  std::uint64_t total_accesses() const;  ///< tokens · accesses_per_token
  /// zipf: the block of popularity rank k (0 = most popular); identity otherwise.
  BlockId block_of_rank(std::uint64_t k) const;

  struct Plan;  // shared, read-only state of every reader

 private:
  std::shared_ptr<const Plan> plan_;
};

}  // namespace flashsim
