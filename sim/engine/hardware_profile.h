// What the simulator knows about the machine: the hierarchy of tiers and
// their links, the TLB, the L2 and the seed's contention term. Every
// constant comes from a hardware profile YAML (scenarios/hardware/), never
// from code: seed-defaults.yaml holds the seed article's figures,
// h200.yaml those measured on the H200 (../shared/hw/H200.md).
#pragma once
#include <map>
#include <string>
#include <vector>

#include "sim/core/params.h"
#include "sim/core/units.h"
#include "sim/engine/execution_spec.h"

namespace flashsim {

/// How concurrent transfers on one link share it.
enum class LinkSharing {
  fifo,  ///< one at a time, in request order (a single copy engine)
  fair,  ///< processor sharing: n active transfers each get bandwidth/n
};

/// A link from a tier to the next-faster one (e.g. PCIe host→HBM).
/// A transfer of b bytes alone on the link takes latency_ns + b/bandwidth.
struct LinkSpec {
  Nanoseconds latency_ns = 0;      ///< per-transfer fixed cost (DMA setup, PCIe round trip)
  BytesPerSecond bandwidth = 0;    ///< sustained, bytes/s
  LinkSharing sharing = LinkSharing::fifo;
  static const std::vector<ParamSpec>& param_specs();
  static LinkSpec from(const ParamValues& values);
};

/// One level of the hierarchy. tiers[0] is the fast tier; the last tier is
/// the backing tier and holds every block (its capacity is ignored).
struct TierSpec {
  std::string name;                 ///< "hbm", "host_dram", "nvme"
  ByteCount capacity_bytes = 0;     ///< for tiers[0] the scenario's cache capacity overrides it
  Nanoseconds hit_latency_ns = 0;   ///< latency of an access served by this tier
  std::string policy = "lru";       ///< eviction policy for intermediate tiers
  std::map<std::string, std::string> policy_params;
  LinkSpec link_to_faster;          ///< link toward tiers[i-1]; unused for tiers[0]
  static const std::vector<ParamSpec>& param_specs();  ///< scalar keys (name, capacity, hit_latency, policy)
};

/// Translation lookaside buffer in front of the fast tier (fully
/// associative, LRU). Disabled when entries == 0.
struct TlbSpec {
  std::size_t entries = 0;
  ByteCount page_bytes = 2 * kMiB;
  Nanoseconds miss_penalty_ns = 0;  ///< added to an access whose page is not in the TLB
  static const std::vector<ParamSpec>& param_specs();
  static TlbSpec from(const ParamValues& values);
};

/// Sectored set-associative L2 for address-level traces (records with an
/// address). Disabled when capacity_bytes == 0. Only `sampled_sets` of the
/// sets are simulated (set sampling, Kessler et al., 1994) so L2-level runs
/// stay fast; hit ratios are estimated from them.
struct L2Spec {
  ByteCount capacity_bytes = 0;
  ByteCount line_bytes = 128;
  ByteCount sector_bytes = 32;
  std::uint32_t associativity = 16;
  ByteCount persisting_bytes = 0;   ///< carve-out for the persisting access-policy window
  Nanoseconds hit_latency_ns = 0;   ///< one figure until calibration measures more
  Nanoseconds miss_latency_ns = 0;  ///< L2 miss served by HBM
  /// Sets simulated (set sampling, l2_model.h). kAutoSampledSets (the
  /// default, `auto`): every set up to kAutoSampledSetsLimit sets, else that
  /// many -- so a trace of whole-tensor copies (megabytes a record) stays
  /// fast; 0 = every set.
  std::uint32_t sampled_sets = 0xFFFFFFFFu;
  /// How an access is walked through the sets (l2_model.h): `range` fills
  /// a set's share of a long range at once, `line` is the per-line
  /// reference; the same counts either way.
  enum class Model { range, line };
  Model model = Model::range;
  static constexpr std::uint32_t kAutoSampledSets = 0xFFFFFFFFu;
  static constexpr std::uint32_t kAutoSampledSetsLimit = 256;
  /// Bounds that keep the model's tables (4 B a set, ~24 B a simulated line)
  /// under about 1.7 GB; real L2s are far below (H200: 25,600 sets).
  static constexpr std::uint64_t kMaxSets = std::uint64_t{1} << 24;
  static constexpr std::uint64_t kMaxSimulatedLines = std::uint64_t{1} << 26;
  static const std::vector<ParamSpec>& param_specs();
  static L2Spec from(const ParamValues& values);
};

/// The seed's contention term (seed 000 §2): each access pays ns_per_mib for
/// every MiB of fast-tier occupancy above baseline_bytes. Off when ns_per_mib == 0.
struct ContentionSpec {
  double ns_per_mib = 0.0;
  ByteCount baseline_bytes = 0;
  static const std::vector<ParamSpec>& param_specs();
  static ContentionSpec from(const ParamValues& values);
};

/// Compute throughput for roofline operator times (sim/model/roofline.h).
/// Profile defaults: the H200 datasheet, 989 TFLOP/s bf16 dense and 4.8
/// TB/s HBM3e; measured 790 TFLOP/s (bf16 matmul) and 4.47 TB/s (2 GiB
/// read-only kernel), ../shared/hw/H200.md. In code, 0 = unknown: that
/// roofline term counts nothing.
struct ComputeSpec {
  double peak_flops = 0.0;         ///< dense bf16 FLOP/s
  BytesPerSecond hbm_bandwidth = 0.0;  ///< bytes/s the operators' weights and activations stream at
  static const std::vector<ParamSpec>& param_specs();
  static ComputeSpec from(const ParamValues& values);
};

struct HardwareProfile {
  std::string name;
  std::string source;                 ///< where the numbers come from (citation)
  std::vector<TierSpec> tiers;        ///< at least two: fast tier, backing tier
  Nanoseconds miss_penalty_ns = 0;    ///< fixed cost of a fast-tier miss before the transfer (seed: 142 ns)
  TlbSpec tlb;
  L2Spec l2;
  ContentionSpec contention;
  ComputeSpec compute;
  ExecutionSpec execution;            ///< the execution model of real programs (program_executor.h)
};

}  // namespace flashsim
