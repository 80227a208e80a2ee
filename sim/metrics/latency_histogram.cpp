#include <algorithm>
#include <bit>
#include <cmath>

#include "sim/core/saturating.h"
#include "sim/metrics/metrics.h"

namespace flashsim {
namespace {

constexpr int kExactBits = 7;      // values < 128 have their own bucket
constexpr int kSubBits = 6;        // 64 sub-buckets per power of two above that
constexpr std::uint64_t kExact = 1u << kExactBits;

std::size_t bucket_of(std::uint64_t v) {
  if (v < kExact) return static_cast<std::size_t>(v);
  const int e = std::bit_width(v) - 1;  // floor(log2 v) >= 7
  const std::uint64_t sub = (v >> (e - kSubBits)) & ((1u << kSubBits) - 1);
  return kExact + static_cast<std::size_t>(e - kExactBits) * (1u << kSubBits) + static_cast<std::size_t>(sub);
}

std::uint64_t upper_edge(std::size_t bucket) {
  if (bucket < kExact) return bucket;
  const std::size_t rel = bucket - kExact;
  const int e = static_cast<int>(rel >> kSubBits) + kExactBits;
  const std::uint64_t sub = rel & ((1u << kSubBits) - 1);
  return (((1ull << kSubBits) + sub + 1) << (e - kSubBits)) - 1;
}

}  // namespace

void LatencyHistogram::add(Nanoseconds value_ns) {
  const auto v = static_cast<std::uint64_t>(std::max<Nanoseconds>(value_ns, 0));
  const std::size_t b = bucket_of(v);
  if (b >= buckets_.size()) buckets_.resize(b + 1, 0);
  ++buckets_[b];
  ++count_;
  max_ns_ = std::max<Nanoseconds>(max_ns_, static_cast<Nanoseconds>(v));
}

void LatencyHistogram::merge(const LatencyHistogram& other) {
  if (other.buckets_.size() > buckets_.size()) buckets_.resize(other.buckets_.size(), 0);
  for (std::size_t i = 0; i < other.buckets_.size(); ++i) buckets_[i] += other.buckets_[i];
  count_ += other.count_;
  max_ns_ = std::max(max_ns_, other.max_ns_);
}

Nanoseconds LatencyHistogram::quantile_ns(double q) const {
  if (count_ == 0) return 0;
  q = std::clamp(q, 0.0, 1.0);
  const auto rank = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::ceil(q * static_cast<double>(count_))));
  std::uint64_t seen = 0;
  for (std::size_t b = 0; b < buckets_.size(); ++b) {
    seen += buckets_[b];
    if (seen >= rank) return std::min<Nanoseconds>(static_cast<Nanoseconds>(upper_edge(b)), max_ns_);
  }
  return max_ns_;
}

void AccessCounters::merge(const AccessCounters& o) {
  accesses += o.accesses;
  hits += o.hits;
  delayed_hits += o.delayed_hits;
  misses += o.misses;
  bypasses += o.bypasses;
  bytes_accessed += o.bytes_accessed;
  bytes_hit += o.bytes_hit;
  bytes_fetched += o.bytes_fetched;
  bytes_prefetched += o.bytes_prefetched;
  evictions += o.evictions;
  bytes_evicted += o.bytes_evicted;
  stall_ns = saturating_add_nonnegative(stall_ns, o.stall_ns);
  prefetches += o.prefetches;
  prefetch_used_timely += o.prefetch_used_timely;
  prefetch_used_late += o.prefetch_used_late;
  prefetch_unused += o.prefetch_unused;
  write_allocations += o.write_allocations;
  bytes_written_back += o.bytes_written_back;
}

}  // namespace flashsim
