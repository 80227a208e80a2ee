// Parameter declarations of the hardware profile's parts (YAML keys, types,
// defaults). Defaults are neutral -- off or zero -- so that a profile states
// every figure it relies on; the one exception is link bandwidth, which
// cannot be zero: its default is the H200's measured pinned H2D rate
// (55 GB/s for a 256 MiB copy, ../shared/hw/H200.md, PCIe Gen5 x16).
#include "sim/engine/hardware_profile.h"

#include <string>

#include "sim/core/errors.h"

namespace flashsim {

namespace {
// A ParamSpec with every field named (aggregate init with omitted fields
// trips -Wmissing-field-initializers).
ParamSpec spec(std::string name, ParamType type, std::string default_value, std::string doc, double min = -1e300,
               double max = 1e300, std::vector<std::string> choices = {}) {
  return ParamSpec{std::move(name), type, std::move(default_value), std::move(doc), min, max, std::move(choices)};
}
}  // namespace

const std::vector<ParamSpec>& LinkSpec::param_specs() {
  static const std::vector<ParamSpec> specs{
      spec("latency", ParamType::duration, "0ns",
       "fixed cost of each transfer before its bytes flow (DMA set-up, PCIe round trip)", 0, kMaxPerAccessDurationNs),
      spec("bandwidth", ParamType::bandwidth, "55GB/s",
       "sustained bytes/s, at least 1 MB/s (below any real link; slower ones made transfer times overflow); "
       "default = H200 pinned H2D, 256 MiB copy (../shared/hw/H200.md)",
       1e6, 1e18),
      spec("sharing", ParamType::choice, "fifo",
       "fifo: one transfer at a time in request order; fair: processor sharing among concurrent transfers",
       -1e300, 1e300, {"fifo", "fair"}),
  };
  return specs;
}

LinkSpec LinkSpec::from(const ParamValues& v) {
  LinkSpec s;
  s.latency_ns = v.duration_ns("latency");
  s.bandwidth = v.bandwidth("bandwidth");
  s.sharing = v.text("sharing") == "fair" ? LinkSharing::fair : LinkSharing::fifo;
  return s;
}

const std::vector<ParamSpec>& TierSpec::param_specs() {
  static const std::vector<ParamSpec> specs{
      spec("name", ParamType::text, "", "tier name used in results: hbm, host_dram, nvme"),
      spec("capacity", ParamType::bytes, "0",
       "bytes the tier holds; ignored for the fast tier (cache.capacity) and the backing tier", 0, 1e18),
      spec("hit_latency", ParamType::duration, "0ns",
       "latency of an access served by this tier (fast tier: a hit; lower tiers: read before the transfer up)", 0,
       kMaxPerAccessDurationNs),
      spec("policy", ParamType::text, "lru", "eviction policy of an intermediate tier (PolicyRegistry name)"),
  };
  return specs;
}

const std::vector<ParamSpec>& TlbSpec::param_specs() {
  static const std::vector<ParamSpec> specs{
      spec("entries", ParamType::integer, "0", "fully associative LRU entries; 0 = no TLB modelled (at most 2^24)", 0, 16777216),
      spec("page_size", ParamType::bytes, "2MiB", "translation granule (2 MiB: the GPU's large pages)", 1, 1e18),
      spec("miss_penalty", ParamType::duration, "0ns", "added to an access whose page is not in the TLB", 0, kMaxPerAccessDurationNs),
  };
  return specs;
}

TlbSpec TlbSpec::from(const ParamValues& v) {
  TlbSpec s;
  s.entries = static_cast<std::size_t>(v.integer("entries"));
  s.page_bytes = v.bytes("page_size");
  s.miss_penalty_ns = v.duration_ns("miss_penalty");
  return s;
}

const std::vector<ParamSpec>& L2Spec::param_specs() {
  static const std::vector<ParamSpec> specs{
      spec("capacity", ParamType::bytes, "0", "L2 bytes; 0 = no L2 model (H200: 60 MiB, ../shared/hw/H200.md); at most 4 GiB", 0, 4294967296.0),
      spec("line_size", ParamType::bytes, "128B", "cache line (tag) size", 1, 1e9),
      spec("sector_size", ParamType::bytes, "32B", "sector (fill) size; line_size / sector_size <= 64", 1, 1e9),
      spec("associativity", ParamType::integer, "16", "ways per set", 1, 1e6),
      spec("persisting", ParamType::bytes, "0",
       "persisting carve-out, rounded down to whole ways (H200 max 37.5 MiB, ../shared/hw/H200.md)", 0, 1e18),
      spec("hit_latency", ParamType::duration, "0ns", "added to an address-level access whose sectors all hit", 0, kMaxPerAccessDurationNs),
      spec("miss_latency", ParamType::duration, "0ns", "added when a sector misses (served by HBM)", 0, kMaxPerAccessDurationNs),
      spec("sampled_sets", ParamType::text, "auto",
           "simulate only this many sets (set sampling); 0 = all; auto = all up to 256 sets, else 256", 0, 1e9),
      {"model", ParamType::choice, "range",
       "how an access walks the sets: range (a set's share of a long range at once) or line (every line: the "
       "reference); the same counts either way",
       -1e300, 1e300, {"range", "line"}},
  };
  return specs;
}

L2Spec L2Spec::from(const ParamValues& v) {
  L2Spec s;
  s.capacity_bytes = v.bytes("capacity");
  s.line_bytes = v.bytes("line_size");
  s.sector_bytes = v.bytes("sector_size");
  s.associativity = static_cast<std::uint32_t>(v.integer("associativity"));
  s.persisting_bytes = v.bytes("persisting");
  s.hit_latency_ns = v.duration_ns("hit_latency");
  s.miss_latency_ns = v.duration_ns("miss_latency");
  s.model = v.text("model") == "line" ? L2Spec::Model::line : L2Spec::Model::range;
  const std::string& sampled = v.text("sampled_sets");
  if (sampled == "auto") {
    s.sampled_sets = L2Spec::kAutoSampledSets;
  } else {
    std::size_t used = 0;
    unsigned long long n = 0;
    try {
      n = std::stoull(sampled, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != sampled.size() || n > 1'000'000'000ull) {
      throw InputError("l2.sampled_sets: '" + sampled + "' is not auto or a number of sets (0 = all)");
    }
    s.sampled_sets = static_cast<std::uint32_t>(n);
  }
  if (s.line_bytes % s.sector_bytes != 0 || s.line_bytes / s.sector_bytes > 64) {
    throw InputError("l2: line_size (" + std::to_string(s.line_bytes) +
                     " B) must be a multiple of sector_size (" + std::to_string(s.sector_bytes) +
                     " B), at most 64 sectors");
  }
  return s;
}

const std::vector<ParamSpec>& ContentionSpec::param_specs() {
  static const std::vector<ParamSpec> specs{
      spec("ns_per_mib", ParamType::real, "0",
       "ns added to each access per MiB of fast-tier occupancy above baseline; 0 = off (seed 000 §2: 4.3)", 0, 1e12),
      spec("baseline", ParamType::bytes, "0", "occupancy below which no contention is charged", 0, 1e18),
  };
  return specs;
}

ContentionSpec ContentionSpec::from(const ParamValues& v) {
  ContentionSpec s;
  s.ns_per_mib = v.real("ns_per_mib");
  s.baseline_bytes = v.bytes("baseline");
  return s;
}

const std::vector<ParamSpec>& ComputeSpec::param_specs() {
  static const std::vector<ParamSpec> specs{
      spec("peak_flops", ParamType::real, "989e12",
       "dense bf16 FLOP/s for roofline operator times; default = H200 datasheet 989e12 (measured ~790e12, "
       "../shared/hw/H200.md)", 0, 1e18),
      spec("hbm_bandwidth", ParamType::bandwidth, "4.8TB/s",
       "device-memory bytes/s for roofline operator times; default = H200 datasheet 4.8 TB/s (measured 4.47 TB/s, "
       "../shared/hw/H200.md)", 1, 1e18),
  };
  return specs;
}

ComputeSpec ComputeSpec::from(const ParamValues& v) {
  ComputeSpec s;
  s.peak_flops = v.real("peak_flops");
  s.hbm_bandwidth = v.bandwidth("hbm_bandwidth");
  return s;
}

}  // namespace flashsim
