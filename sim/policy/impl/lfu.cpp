// LFU: evict the block with the fewest accesses; ties broken by LRU (among
// blocks of equal count, the one accessed least recently goes first).
// In-cache LFU: a block's count is the number of accesses since it was last
// inserted (the insert counts as 1), and is forgotten when it is evicted.
// O(1) per operation with frequency buckets (Shah, Mitra, Matani, "An O(1)
// algorithm for implementing the LFU cache eviction scheme", 2010): a list
// of buckets in increasing count, each an LRU list of its blocks.
#include <memory>

#include "sim/policy/block_table.h"
#include "sim/policy/i_eviction_policy.h"
#include "sim/policy/intrusive_list.h"

namespace flashsim {
namespace {

constexpr std::uint32_t kNoBucket = 0xFFFFFFFFu;

struct LfuNode : ListLink {
  std::uint32_t bucket = kNoBucket;  ///< kNoBucket when not held
};

class LfuPolicy final : public IEvictionPolicy {
 public:
  explicit LfuPolicy(const PolicyContext& context) {
    nodes_.reserve(context.block_count);
  }

  std::string_view name() const override { return "lfu"; }
  void prefetch(BlockIndex block) const override {
    if (block < nodes_.size()) __builtin_prefetch(&nodes_[block], 1);
  }

  void on_hit(const PolicyAccess& a) override {
    const BlockIndex b = a.block;
    const std::uint32_t from = nodes_[b].bucket;
    const std::uint64_t f = buckets_[from].count + 1;
    std::uint32_t to = buckets_[from].next;
    if (to == kNoBucket || buckets_[to].count != f) to = new_bucket_after(from, f);
    buckets_[from].blocks.erase(nodes_, b);
    buckets_[to].blocks.push_front(nodes_, b);
    nodes_[b].bucket = to;
    if (buckets_[from].blocks.empty()) free_bucket(from);
  }

  void on_insert(const PolicyAccess& a) override {
    const BlockIndex b = a.block;
    grow_to_hold(nodes_, b);
    if (nodes_[b].bucket != kNoBucket) {
      on_hit(a);
      return;
    }
    std::uint32_t first = lowest_;
    if (first == kNoBucket || buckets_[first].count != 1) first = new_bucket_after(kNoBucket, 1);
    buckets_[first].blocks.push_front(nodes_, b);
    nodes_[b].bucket = first;
    ++held_;
  }

  std::optional<BlockIndex> evict(Nanoseconds, const EvictionFilter& filter) override {
    for (std::uint32_t k = lowest_; k != kNoBucket; k = buckets_[k].next) {
      for (BlockIndex b = buckets_[k].blocks.back(); b != kNoBlock; b = IntrusiveList::toward_front(nodes_, b)) {
        if (filter.allows(b)) {
          forget(b);
          return b;
        }
      }
    }
    return std::nullopt;
  }

  void remove(BlockIndex block) override {
    if (block < nodes_.size() && nodes_[block].bucket != kNoBucket) forget(block);
  }

  std::size_t size() const override { return held_; }

 private:
  struct Bucket {
    std::uint64_t count = 0;
    IntrusiveList blocks;  ///< front = most recently accessed
    std::uint32_t prev = kNoBucket;  ///< lower count
    std::uint32_t next = kNoBucket;  ///< higher count
  };

  void forget(BlockIndex b) {
    const std::uint32_t k = nodes_[b].bucket;
    buckets_[k].blocks.erase(nodes_, b);
    nodes_[b].bucket = kNoBucket;
    --held_;
    if (buckets_[k].blocks.empty()) free_bucket(k);
  }

  /// A new empty bucket of `count` placed after `after` (kNoBucket = as the lowest).
  std::uint32_t new_bucket_after(std::uint32_t after, std::uint64_t count) {
    std::uint32_t k;
    if (!free_.empty()) {
      k = free_.back();
      free_.pop_back();
      buckets_[k] = Bucket{};
    } else {
      k = static_cast<std::uint32_t>(buckets_.size());
      buckets_.emplace_back();
    }
    Bucket& n = buckets_[k];
    n.count = count;
    n.prev = after;
    n.next = (after == kNoBucket) ? lowest_ : buckets_[after].next;
    if (n.next != kNoBucket) buckets_[n.next].prev = k;
    if (after == kNoBucket) lowest_ = k; else buckets_[after].next = k;
    return k;
  }

  void free_bucket(std::uint32_t k) {
    const Bucket& o = buckets_[k];
    if (o.prev != kNoBucket) buckets_[o.prev].next = o.next; else lowest_ = o.next;
    if (o.next != kNoBucket) buckets_[o.next].prev = o.prev;
    free_.push_back(k);
  }

  std::vector<LfuNode> nodes_;
  std::vector<Bucket> buckets_;
  std::vector<std::uint32_t> free_;
  std::uint32_t lowest_ = kNoBucket;
  std::size_t held_ = 0;
};

}  // namespace

FLASHSIM_REGISTER_POLICY({"lfu",
                          "least frequently used, in-cache counts, ties broken by LRU "
                          "(O(1) buckets: Shah, Mitra, Matani 2010)",
                          {},
                          [](const ParamValues&, const PolicyContext& c) -> std::unique_ptr<IEvictionPolicy> {
                            return std::make_unique<LfuPolicy>(c);
                          }});

}  // namespace flashsim
