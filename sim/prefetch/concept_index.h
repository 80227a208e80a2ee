// The multimodal concepts of a block catalog (BlockCatalogEntry::concept_id)
// with their embeddings, and nearest neighbours by cosine similarity: what
// the seed's semantic prefetch and similarity-aware eviction query
// (seeds/000 §3.3, where a FAISS index plays this role; a brute-force scan
// here: exact, O(concepts x dim) once per concept, then cached).
#pragma once
#include <cstdint>
#include <limits>
#include <vector>

#include <Eigen/Dense>

#include "sim/prefetch/catalog_index.h"
#include "traces/access_record.h"

namespace flashsim {

class ConceptIndex {
 public:
  static constexpr std::uint32_t kNoConcept = std::numeric_limits<std::uint32_t>::max();

  /// Groups catalog blocks by concept_id (>= 0). A concept's embedding is
  /// the first non-empty BlockCatalogEntry::embedding among its blocks;
  /// concepts without one have no neighbours and are nobody's neighbour.
  /// Neighbour lists are cut at `max_neighbours`.
  /// Throws InputError when embeddings differ in dimension (naming the block)
  /// or an embedding has zero norm.
  ConceptIndex(const CatalogIndex& catalog, std::size_t max_neighbours);

  std::uint32_t concept_count() const { return static_cast<std::uint32_t>(concept_ids_.size()); }
  /// Dense concept index of catalog position `pos`, or kNoConcept.
  std::uint32_t concept_of(std::uint32_t catalog_pos) const {
    return catalog_pos < block_concept_.size() ? block_concept_[catalog_pos] : kNoConcept;
  }
  std::int32_t concept_id(std::uint32_t cpt) const { return concept_ids_[cpt]; }
  /// Block ids of a concept, in catalog order.
  const std::vector<BlockId>& blocks(std::uint32_t cpt) const { return blocks_[cpt]; }
  bool has_embedding(std::uint32_t cpt) const { return has_embedding_[cpt] != 0; }

  /// The other concepts with embeddings, most similar (cosine) first; ties
  /// go to the lower concept index. At most max_neighbours; empty when
  /// `cpt` has no embedding. Computed on first request, then cached.
  const std::vector<std::uint32_t>& nearest(std::uint32_t cpt);
  /// Cosine similarity of two concepts with embeddings.
  double similarity(std::uint32_t a, std::uint32_t b) const {
    return static_cast<double>(unit_.col(a).dot(unit_.col(b)));
  }

 private:
  std::size_t max_neighbours_;
  std::vector<std::uint32_t> block_concept_;  ///< by catalog position
  std::vector<std::int32_t> concept_ids_;
  std::vector<std::vector<BlockId>> blocks_;
  std::vector<std::uint8_t> has_embedding_;
  Eigen::MatrixXf unit_;  ///< dim x concepts, unit-norm columns (zero where no embedding)
  std::vector<std::vector<std::uint32_t>> nearest_;
  std::vector<std::uint8_t> nearest_done_;
};

}  // namespace flashsim
