// MoE expert routing: which top-k experts each token uses in each MoE layer.
// Three sources, one interface (IExpertRouter):
//  - skewed:  expert popularity follows Zipf(exponent) over a per-layer
//             random ranking of the experts, drawn top-k without replacement
//             (Plackett–Luce), and with probability `locality` a token
//             reuses the previous token's experts (temporal locality);
//  - markov:  the first expert follows a given transition matrix from the
//             previous token's first expert, with a noise share drawn
//             uniformly (what the Markov prefetcher is tested against);
//  - table:   a recorded routing trace (CSV, format below).
// Routing within a request's sequence: "previous" is the same request's
// previous token at the same layer.
#pragma once
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "sim/workload/random.h"

namespace flashsim {

using ExpertId = std::uint16_t;

/// Chooses experts. Implementations are deterministic given the Rng's state.
class IExpertRouter {
 public:
  virtual ~IExpertRouter() = default;
  /// Writes the top_k() distinct experts (each < experts()) of `token` at
  /// MoE layer `layer` into out[0..top_k()). `token` counts routed tokens
  /// over the whole workload, from 0, in generation order (the table router
  /// indexes its rows with it); `previous` holds the same sequence's
  /// previous token's experts at this layer, empty for its first token.
  virtual void route(std::uint64_t token, std::uint32_t layer, std::span<const ExpertId> previous,
                     std::span<ExpertId> out, Rng& rng) = 0;
  virtual std::uint32_t experts() const = 0;
  virtual std::uint32_t top_k() const = 0;
};

// ------------------------------------------------------------ skewed

/// Zipf popularity plus temporal locality. `layers` MoE layers each get
/// their own ranking of experts (a permutation drawn from `seed`), so the
/// hot experts differ between layers as in Mixtral's measured routing.
/// Throws InputError when top_k > experts, experts > 65535, exponent < 0 or
/// locality outside [0, 1].
std::unique_ptr<IExpertRouter> make_skewed_router(std::uint32_t experts, std::uint32_t top_k, std::uint32_t layers,
                                                  double zipf_exponent, double locality, std::uint64_t seed);

/// The expert id holding popularity rank `rank` at `layer` in a router made
/// by make_skewed_router with the same arguments (tests map ranks back).
std::vector<ExpertId> skewed_router_ranking(std::uint32_t experts, std::uint32_t layer, std::uint64_t seed);

/// Analytic: probability that the item of rank i is among k items drawn
/// without replacement with probabilities proportional to p (Plackett–Luce),
/// by exact enumeration of the ordered draws. Throws Error when n^k > 10^7.
std::vector<double> top_k_inclusion_probabilities(std::span<const double> p, std::uint32_t k);

/// Analytic: probability that a token's expert set equals the previous
/// token's under the skewed router (locality + (1 - locality) · Σ_S P(S)²,
/// the sum over k-sets S drawn as above). Same limit as above.
double repeat_probability(std::span<const double> p, std::uint32_t k, double locality);

// ------------------------------------------------------------ markov

/// A row-stochastic matrix over experts, row-major: at(i, j) = P(next = j | current = i).
struct TransitionMatrix {
  std::uint32_t n = 0;
  std::vector<double> p;  ///< n·n entries
  double at(std::uint32_t i, std::uint32_t j) const { return p[std::size_t(i) * n + j]; }
  double& at(std::uint32_t i, std::uint32_t j) { return p[std::size_t(i) * n + j]; }
};

/// Throws InputError naming `where` when a row is negative, does not sum to
/// 1 within 1e-6, or n == 0 / n > 65535.
void check_transition_matrix(const TransitionMatrix& m, const std::string& where);

/// (1 - noise) · m + noise / n: the chain markov_expert_sequence really follows.
TransitionMatrix noisy_transition(const TransitionMatrix& m, double noise);

/// An expert sequence of `length` (first = `first`): each next expert is drawn
/// with probability 1 - noise from row m[current], else uniformly over the n
/// experts. Deterministic in `seed`. Throws InputError on a bad matrix,
/// noise outside [0, 1] or first >= n.
std::vector<std::uint32_t> markov_expert_sequence(const TransitionMatrix& m, double noise, std::size_t length,
                                                  std::uint64_t seed, std::uint32_t first = 0);

/// A router whose first expert follows the noisy chain from the previous
/// token's first expert (uniform for a sequence's first token); the other
/// k-1 experts are drawn without replacement from the same noisy row.
/// One matrix serves every layer.
std::unique_ptr<IExpertRouter> make_markov_router(TransitionMatrix m, double noise, std::uint32_t top_k);

/// Reads a transition matrix: a CSV of n rows of n probabilities ('#'
/// comments and blank lines skipped). Throws InputError "<file>:<line>: ...".
TransitionMatrix load_transition_matrix(const std::filesystem::path& path);

// ------------------------------------------------------------ routing trace file

/// A recorded routing: for token t (0..tokens-1) and MoE layer l
/// (0..layers-1), the top_k experts.
///
/// CSV file format (docs/workloads.md, "routing trace"):
///   # optional comment lines start with '#'; blank lines are skipped
///   token,layer,expert_0,...,expert_{k-1}      <- header; k = columns - 2
///   0,0,3,5
///   0,1,2,7
/// Every token 0..T-1 has exactly one row per layer 0..L-1 (L = 1 + the
/// largest layer in the file), rows in any order; experts of a row are
/// distinct non-negative integers < 65536.
struct RoutingTable {
  std::uint32_t tokens = 0;
  std::uint32_t layers = 0;
  std::uint32_t top_k = 0;
  std::vector<ExpertId> experts;  ///< (token · layers + layer) · top_k + i
  std::string source;             ///< file it came from (for messages)
  std::span<const ExpertId> at(std::uint32_t token, std::uint32_t layer) const {
    return {experts.data() + (std::size_t(token) * layers + layer) * top_k, top_k};
  }
  /// 1 + the largest expert id.
  std::uint32_t max_expert_plus_one() const;
};

/// Throws InputError "<file>:<line>: ..." for a bad header, a wrong field
/// count, a non-integer, a duplicate (token, layer) (naming the first
/// line), a repeated expert in a row; "<file>: token T has no row for layer
/// L" when a row is missing; "<file>: no rows".
RoutingTable load_routing_table(const std::filesystem::path& path);

/// Writes `table` in the format above (atomically: temp file, rename).
/// Throws Error naming the file.
void save_routing_table(const RoutingTable& table, const std::filesystem::path& path);

/// Routes from `table`: token t uses row t mod tokens (a workload longer
/// than the table cycles through it). Throws InputError naming the file
/// when the table's layers differ from `layers` or an expert is >= `experts`.
std::unique_ptr<IExpertRouter> make_table_router(std::shared_ptr<const RoutingTable> table, std::uint32_t experts,
                                                 std::uint32_t layers);

}  // namespace flashsim
