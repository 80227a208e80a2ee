#include "sim/prefetch/concept_index.h"

#include <algorithm>
#include <numeric>
#include <string>

#include "sim/core/errors.h"
#include "sim/core/hash_map.h"

namespace flashsim {

ConceptIndex::ConceptIndex(const CatalogIndex& catalog, std::size_t max_neighbours)
    : max_neighbours_(max_neighbours) {
  block_concept_.assign(catalog.size(), kNoConcept);
  HashMap<std::int32_t, std::uint32_t> dense;
  std::vector<std::uint32_t> embedding_source;  // catalog position of each concept's embedding
  std::size_t dim = 0;
  for (std::uint32_t pos = 0; pos < catalog.size(); ++pos) {
    const BlockCatalogEntry& e = catalog.entry(pos);
    if (e.concept_id < 0) continue;
    auto [it, fresh] = dense.try_emplace(e.concept_id, static_cast<std::uint32_t>(concept_ids_.size()));
    if (fresh) {
      concept_ids_.push_back(e.concept_id);
      blocks_.emplace_back();
      embedding_source.push_back(CatalogIndex::kNotInCatalog);
    }
    const std::uint32_t c = it->second;
    block_concept_[pos] = c;
    blocks_[c].push_back(e.id);
    if (e.embedding.empty()) continue;
    if (dim == 0) dim = e.embedding.size();
    if (e.embedding.size() != dim)
      throw InputError("block catalog: block " + std::to_string(e.id) + " ('" + e.name + "') has a " +
                       std::to_string(e.embedding.size()) + "-dimensional embedding, earlier ones have " +
                       std::to_string(dim));
    if (embedding_source[c] == CatalogIndex::kNotInCatalog) embedding_source[c] = pos;
  }
  const std::size_t n = concept_ids_.size();
  has_embedding_.assign(n, 0);
  unit_ = Eigen::MatrixXf::Zero(static_cast<Eigen::Index>(dim), static_cast<Eigen::Index>(n));
  for (std::size_t c = 0; c < n; ++c) {
    if (embedding_source[c] == CatalogIndex::kNotInCatalog) continue;
    const BlockCatalogEntry& e = catalog.entry(embedding_source[c]);
    Eigen::VectorXf v = Eigen::Map<const Eigen::VectorXf>(e.embedding.data(), static_cast<Eigen::Index>(dim));
    const float norm = v.norm();
    if (!(norm > 0.0f))
      throw InputError("block catalog: block " + std::to_string(e.id) + " ('" + e.name +
                       "') has an embedding of zero norm (cosine similarity undefined)");
    unit_.col(static_cast<Eigen::Index>(c)) = v / norm;
    has_embedding_[c] = 1;
  }
  nearest_.resize(n);
  nearest_done_.assign(n, 0);
}

const std::vector<std::uint32_t>& ConceptIndex::nearest(std::uint32_t cpt) {
  if (nearest_done_[cpt]) return nearest_[cpt];
  nearest_done_[cpt] = 1;
  std::vector<std::uint32_t>& out = nearest_[cpt];
  if (!has_embedding_[cpt] || max_neighbours_ == 0) return out;
  const Eigen::VectorXf sims = unit_.transpose() * unit_.col(cpt);
  std::vector<std::uint32_t> others;
  others.reserve(concept_ids_.size());
  for (std::uint32_t c = 0; c < concept_ids_.size(); ++c)
    if (c != cpt && has_embedding_[c]) others.push_back(c);
  const std::size_t k = std::min(max_neighbours_, others.size());
  std::partial_sort(others.begin(), others.begin() + static_cast<std::ptrdiff_t>(k), others.end(),
                    [&](std::uint32_t a, std::uint32_t b) {
                      if (sims[a] != sims[b]) return sims[a] > sims[b];
                      return a < b;
                    });
  others.resize(k);
  out = std::move(others);
  return out;
}

}  // namespace flashsim
