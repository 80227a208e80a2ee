#include "sim/prefetch/catalog_index.h"

#include <string>

#include "sim/core/errors.h"

namespace flashsim {

CatalogIndex::CatalogIndex(const std::vector<BlockCatalogEntry>* catalog) : catalog_(catalog) {
  if (catalog == nullptr) return;
  if (catalog->size() >= kNotInCatalog) throw InputError("block catalog too large for a prefetcher (>= 2^32 blocks)");
  size_ = static_cast<std::uint32_t>(catalog->size());
  for (std::uint32_t i = 0; i < size_; ++i) {
    if ((*catalog)[i].id != i) {
      dense_ = false;
      break;
    }
  }
  if (dense_) return;
  position_.reserve(size_);
  for (std::uint32_t i = 0; i < size_; ++i) {
    if (!position_.emplace((*catalog)[i].id, i).second)
      throw InputError("block catalog: duplicate block id " + std::to_string((*catalog)[i].id) + " at entry " +
                       std::to_string(i));
  }
}

}  // namespace flashsim
