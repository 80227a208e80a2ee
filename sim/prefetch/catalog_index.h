// BlockId -> position in TraceMeta::catalog, for prefetchers that keep
// per-block metadata in dense vectors. Generated catalogs number their
// blocks 0..n-1 in order; then lookup is an array bound check, otherwise a
// hash lookup.
#pragma once
#include <cstdint>
#include <limits>
#include <vector>

#include "sim/core/hash_map.h"
#include "traces/access_record.h"

namespace flashsim {

class CatalogIndex {
 public:
  static constexpr std::uint32_t kNotInCatalog = std::numeric_limits<std::uint32_t>::max();

  CatalogIndex() = default;
  /// `catalog` may be null or empty (every find() is then kNotInCatalog); it
  /// must outlive this index. Throws InputError on a duplicate id.
  explicit CatalogIndex(const std::vector<BlockCatalogEntry>* catalog);

  /// Position of `id` in the catalog, or kNotInCatalog.
  std::uint32_t find(BlockId id) const {
    if (dense_) return id < size_ ? static_cast<std::uint32_t>(id) : kNotInCatalog;
    auto it = position_.find(id);
    return it == position_.end() ? kNotInCatalog : it->second;
  }
  std::uint32_t size() const { return size_; }
  const BlockCatalogEntry& entry(std::uint32_t position) const { return (*catalog_)[position]; }
  /// Bytes of catalog block `id`; 0 when it is not in the catalog.
  ByteCount bytes_of(BlockId id) const {
    const std::uint32_t p = find(id);
    return p == kNotInCatalog ? 0 : entry(p).bytes;
  }

 private:
  const std::vector<BlockCatalogEntry>* catalog_ = nullptr;
  std::uint32_t size_ = 0;
  bool dense_ = true;
  HashMap<BlockId, std::uint32_t> position_;
};

}  // namespace flashsim
