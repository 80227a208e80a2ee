// FlexGen's placement by linear program (Sheng et al., "FlexGen:
// High-Throughput Generative Inference of Large Language Models with a
// Single GPU", ICML 2023, §4.2 "Cost model and policy search"), on
// flashsim's tiers: which fraction of the weights and of the KV cache lives
// on each tier (fast tier, then every slower tier, the last the backing
// tier) so that one decode step takes least time. docs/placement.md gives
// the program term by term and where it differs from FlexGen's.
//
// Decision variables: w[t] and c[t], the shares of the weights and of the
// KV cache on tier t (Σ_t w[t] = Σ_t c[t] = 1, all >= 0; the same shares in
// every layer, as FlexGen's wg/wc/wd and cg/cc/cd), and T[i], the time of
// layer group i in one decode step.
//
// Time (FlexGen's T_gen = max(ctog, gtoc, dtoc, ctod, comp) per layer, all
// overlapped): for every group i
//   T[i] >= compute_ns[i]
//   T[i] >= (weight_read[i] · Σ_{u>=t} w[u] + kv_read[i] · Σ_{u>=t} c[u]) / up_bandwidth[t]   for each link t >= 1
//   T[i] >= kv_written[i] · Σ_{u>=t} c[u] / down_bandwidth[t]                                 for each link t >= 1
// (what is not on tiers 0..t-1 crosses link t, the link from tier t to
// tier t-1, every step). A link with a latency also charges it per
// transfer: bytes/bandwidth becomes bytes · (1/bandwidth + latency/block
// bytes), still linear in the shares. Objective: minimise Σ_i T[i], the time of one
// step, in which every sequence of the batch gains one token.
//
// Memory: the fast tier holds its shares, FlexGen's double buffer for what
// streams (2 × the largest group's streamed part), and `reserved_bytes`:
//   Σ_i weight_bytes[i]·w[0] + Σ_i kv_bytes[i]·c[0]
//     + stream_buffers · (max_i weight_bytes[i]·(1 − w[0]) + max_i kv_bytes[i]·(1 − c[0]))
//     + reserved_bytes <= capacity[0]
// and every tier between it and the backing tier its shares:
//   Σ_i weight_bytes[i]·w[t] + Σ_i kv_bytes[i]·c[t] <= capacity[t].
// The backing tier holds anything.
//
// Ties (compute binding, or a slow link with room to spare) are broken by a
// second program: the least link time summed over links and groups at the
// first one's step time, so that the fast tier fills first, then the next.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "sim/core/units.h"

namespace flashsim::placement {

/// One group of weights that runs as a unit: a transformer layer, or the
/// model's layer-less weights (embeddings, final norm, lm_head) as one more.
struct LayerGroup {
  std::string name;             ///< "layers.3", "other"
  double weight_bytes = 0;      ///< stored: the group's weight blocks (catalog bytes)
  double weight_read_bytes = 0; ///< read per decode step (MoE: the experts a step routes to, expected)
  double kv_bytes = 0;          ///< stored KV of the batch at its peak, this group
  double kv_read_bytes = 0;     ///< KV read per decode step
  double kv_written_bytes = 0;  ///< KV appended per decode step
  double compute_ns = 0;        ///< the group's operators' time for one decode step of the batch
  /// Bytes of one transfer (a weight block, a KV page): each pays its link's
  /// latency once. 0: no latency term.
  double weight_block_bytes = 0;
  double kv_block_bytes = 0;
};

/// One tier, fast tier first. The link of tier t >= 1 is the one toward
/// tier t − 1 (hardware profile `tiers[t].link`).
struct TierInput {
  std::string name;              ///< "hbm", "host_dram", "nvme"
  double capacity_bytes = 0;     ///< ignored for the last tier (backing: holds everything)
  double up_bytes_per_s = 0;     ///< reads toward the faster tier (H2D for tier 1); unused for tier 0
  double down_bytes_per_s = 0;   ///< writes from the faster tier (D2H for tier 1); unused for tier 0
  double latency_ns = 0;         ///< per transfer on the link, both directions (one transfer at a time)
};

struct PlacementInput {
  std::vector<LayerGroup> groups;  ///< at least one
  std::vector<TierInput> tiers;    ///< at least two
  double reserved_bytes = 0;       ///< fast tier: held outside the placement (request buffers)
  double stream_buffers = 2;       ///< FlexGen's double buffer: streamed groups held at once
  std::uint64_t batch = 1;         ///< sequences of a step (tokens per step), for tokens_per_s
};

/// What binds a group's time: "compute", "up:TIER" (reads over TIER's link
/// toward the faster tier) or "down:TIER" (writes over it).
struct GroupTime {
  double time_ns = 0;
  std::vector<std::string> binding;  ///< every term within 1e-6 relative of time_ns
};

struct PlacementResult {
  std::vector<double> weight_share;  ///< per tier, sums to 1
  std::vector<double> kv_share;      ///< per tier, sums to 1
  std::vector<GroupTime> groups;     ///< per group, in input order
  double step_ns = 0;                ///< Σ group times: one decode step (one token per sequence)
  double tokens_per_s = 0;           ///< batch / step
  /// Per term name, the groups it binds (a group may count for several).
  std::vector<std::pair<std::string, std::size_t>> binding_counts;
  std::vector<std::string> full_tiers;  ///< tiers whose memory row is tight (slack < 1e-6 relative)
  std::vector<double> tier_used_bytes;  ///< bytes the placement holds on each tier (fast tier: buffers and reserve too)
};

/// Solves the program above with GLPK's simplex. Throws InputError when the
/// input is malformed (no groups, fewer than two tiers, a negative figure, a
/// link of bandwidth 0 that something must cross) or infeasible: the fast
/// tier smaller than its reserve and buffers (message with both figures);
/// Error when GLPK fails.
PlacementResult solve_flexgen_lp(const PlacementInput& input);

/// The fast tier's memory row with w[0] (c[0] fixed at `kv_share0`) solved
/// for w[0], clamped to [0, 1]: the closed form the LP reaches when
/// weights bind the fast tier. For tests and the command's cross-check.
double closed_form_weight_share(const PlacementInput& input, double kv_share0);

}  // namespace flashsim::placement
