// Image concepts for multimodal (LLaVA) workloads. A concept stands for one
// image (or images the semantic cache treats as the same): requests that
// show the same concept can reuse its vision features. Each concept has an
// embedding (unit vector) so that semantic prefetch and similarity-aware
// eviction can find its neighbours: concepts are drawn around `clusters`
// random centres (centre + spread · Gaussian noise, normalised), so
// neighbours by cosine similarity are mostly concepts of the same cluster.
// Popularity is Zipf(popularity_exponent) over concepts, and with
// probability `locality` a request shows one of the previous request's
// `neighbours` nearest concepts instead (a conversation drifting between
// related images).
#pragma once
#include <cstdint>
#include <vector>

#include "sim/workload/random.h"

namespace flashsim {

struct ConceptOptions {
  std::uint32_t concepts = 64;
  std::uint32_t clusters = 8;
  std::uint32_t embedding_dim = 16;
  double spread = 0.35;               ///< noise around a cluster centre (before normalising)
  double popularity_exponent = 1.0;   ///< Zipf exponent of concept popularity
  double locality = 0.5;              ///< P(next request shows a neighbour of the previous concept)
  std::uint32_t neighbours = 5;       ///< neighbourhood size (the issue's "5 nearest neighbours")
};

/// Largest concepts^2 x embedding_dim of the exhaustive neighbour search
/// (20,000 concepts of 16 floats: 6.4e9 multiply-adds, ~10 s on one core).
inline constexpr double kMaxConceptScan = 6.4e9;
/// Largest clusters x embedding_dim (2^24 doubles, 128 MiB of centres).
inline constexpr double kMaxConceptCentreValues = 16777216.0;

class ImageConcepts {
 public:
  /// Throws InputError when concepts == 0, clusters == 0, embedding_dim == 0,
  /// clusters x embedding_dim > kMaxConceptCentreValues, concepts^2 x
/// embedding_dim > kMaxConceptScan,
  /// locality outside [0, 1] or an exponent < 0.
  ImageConcepts(const ConceptOptions& options, std::uint64_t seed);

  std::uint32_t size() const { return static_cast<std::uint32_t>(embeddings_.size()); }
  const std::vector<float>& embedding(std::uint32_t concept_id) const { return embeddings_[concept_id]; }
  /// The `neighbours` concepts nearest to `concept_id` by cosine similarity, nearest first (ties: lower id).
  const std::vector<std::uint32_t>& neighbours(std::uint32_t concept_id) const { return neighbours_[concept_id]; }

  /// Concepts of `count` requests, in request order (deterministic in the seed).
  std::vector<std::uint32_t> request_concepts(std::uint32_t count, std::uint64_t seed) const;

 private:
  ConceptOptions options_;
  std::vector<std::vector<float>> embeddings_;
  std::vector<std::vector<std::uint32_t>> neighbours_;
  std::vector<std::uint32_t> popularity_order_;  ///< rank -> concept (a random permutation)
};

}  // namespace flashsim
