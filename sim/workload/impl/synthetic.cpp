// Generator "synthetic": block-access patterns without a model (cyclic scan,
// iid Zipf, scan with Zipf-hot replacements) at any block size, for the
// validation suite's block-size and capacity sweeps. The patterns and the
// record fields are in sim/workload/synthetic_pattern.h.
#include "sim/workload/synthetic_pattern.h"

namespace flashsim {

namespace {

std::vector<ParamSpec> synthetic_specs() {
  return {
      {"block_bytes", ParamType::bytes, "1MiB", "bytes of every block (256B .. 64MiB in the validation sweep)", 1,
       static_cast<double>(kMaxSyntheticBlockBytes), {}},
      {"blocks", ParamType::integer, "1024", "distinct blocks, ids 0..blocks-1 (footprint = blocks · block_bytes)", 1,
       static_cast<double>(kMaxSyntheticBlocks), {}},
      {"tokens", ParamType::integer, "8", "passes (decode steps); token_index of the records", 1, 2147483647.0, {}},
      {"accesses_per_token", ParamType::integer, "0", "accesses per token; 0 = blocks (one full scan per token)", 0,
       1e12, {}},
      {"pattern", ParamType::choice, "scan",
       "scan: blocks 0..blocks-1 cyclically (defeats LRU); zipf: iid Zipf draws, ranks permuted by the seed; "
       "hot_scan: the scan with each access replaced, with probability hot_share, by a Zipf draw from the first "
       "hot_blocks",
       -1e300, 1e300, {"scan", "zipf", "hot_scan"}},
      {"zipf", ParamType::real, "0.9", "Zipf exponent s of zipf and hot_scan draws: p_k ∝ k^-s (0 = uniform)", 0, 20,
       {}},
      {"hot_share", ParamType::real, "0.5", "hot_scan: probability an access is a hot draw", 0, 1, {}},
      {"hot_blocks", ParamType::integer, "0", "hot_scan: the hot set, block ids 0..hot_blocks-1; 0 = max(1, blocks/8)",
       0, static_cast<double>(kMaxSyntheticBlocks), {}},
      {"operator_blocks", ParamType::integer, "0",
       "scan, hot_scan: blocks per operator of TraceMeta::operators (lookahead walks them); 0 = 1, or "
       "ceil(blocks/65536) past 65536 blocks",
       0, static_cast<double>(kMaxSyntheticBlocks), {}},
      {"compute", ParamType::duration, "0ns", "compute_ns of every access; 0 = the scenario's closed-loop gap applies",
       0, 1e15, {}},
      {"kind", ParamType::text, "weight", "catalog kind of every block (weight, expert, kv_page, ...)", -1e300, 1e300,
       {}},
      {"seed", ParamType::integer, "-1", "random seed; -1 = the scenario's", -1, 9.2e18, {}},
  };
}

std::unique_ptr<IWorkloadGenerator> make_synthetic(const ParamValues& v, const WorkloadContext& c) {
  SyntheticOptions o;
  o.block_bytes = v.bytes("block_bytes");
  o.blocks = static_cast<std::uint64_t>(v.integer("blocks"));
  o.tokens = static_cast<std::uint64_t>(v.integer("tokens"));
  o.accesses_per_token = static_cast<std::uint64_t>(v.integer("accesses_per_token"));
  o.pattern = parse_synthetic_pattern(v.text("pattern"));
  o.zipf_exponent = v.real("zipf");
  o.hot_share = v.real("hot_share");
  o.hot_blocks = static_cast<std::uint64_t>(v.integer("hot_blocks"));
  o.operator_blocks = static_cast<std::uint64_t>(v.integer("operator_blocks"));
  o.compute_ns = v.duration_ns("compute");
  o.kind = v.text("kind");
  const std::int64_t seed = v.integer("seed");
  o.seed = seed < 0 ? c.seed : static_cast<std::uint64_t>(seed);
  return std::make_unique<SyntheticWorkload>(std::move(o));
}

}  // namespace

FLASHSIM_REGISTER_WORKLOAD({"synthetic",
                            "block patterns without a model at any block size: cyclic scan, iid Zipf (Hörmann & "
                            "Derflinger rejection-inversion), scan with Zipf-hot replacements",
                            synthetic_specs(), make_synthetic});

}  // namespace flashsim
