#include "sim/workload/image_concepts.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "sim/core/errors.h"

namespace flashsim {

ImageConcepts::ImageConcepts(const ConceptOptions& options, std::uint64_t seed) : options_(options) {
  if (options.concepts == 0) throw InputError("image concepts: concepts must be > 0");
  if (options.clusters == 0) throw InputError("image concepts: clusters must be > 0");
  if (options.embedding_dim == 0) throw InputError("image concepts: embedding_dim must be > 0");
  if (!(options.locality >= 0.0 && options.locality <= 1.0)) {
    throw InputError("image concepts: concept_locality must be in [0, 1]");
  }
  if (!(options.popularity_exponent >= 0.0)) throw InputError("image concepts: concept_zipf must be >= 0");
  if (double(options.clusters) * options.embedding_dim > kMaxConceptCentreValues) {
    throw InputError("image concepts: concept_clusters x embedding_dim = " + std::to_string(options.clusters) + " x " +
                     std::to_string(options.embedding_dim) + " cluster-centre values, more than " +
                     std::to_string(static_cast<std::uint64_t>(kMaxConceptCentreValues)) +
                     " (128 MiB of centres); fewer clusters (more than concepts leaves clusters empty)");
  }
  // The nearest-neighbour table is an exhaustive scan: concepts^2 x dim
  // multiply-adds (about 1.5 ns each on one core).
  const double scan = double(options.concepts) * double(options.concepts) * double(options.embedding_dim);
  if (scan > kMaxConceptScan) {
    throw InputError("image concepts: concepts^2 x embedding_dim = " + std::to_string(options.concepts) + "^2 x " +
                     std::to_string(options.embedding_dim) + " = " + std::to_string(static_cast<std::uint64_t>(scan)) +
                     " for the neighbour search, more than " + std::to_string(static_cast<std::uint64_t>(kMaxConceptScan)) +
                     " (about 10 s); fewer concepts or a smaller embedding_dim");
  }
  Rng rng(derive_seed(seed, 0xc0ce7));
  const std::uint32_t d = options.embedding_dim;
  std::vector<std::vector<double>> centres(options.clusters, std::vector<double>(d));
  for (auto& c : centres) {
    for (double& x : c) x = rng.normal();
  }
  embeddings_.resize(options.concepts);
  for (std::uint32_t i = 0; i < options.concepts; ++i) {
    const auto& centre = centres[i % options.clusters];
    std::vector<double> v(d);
    double norm = 0.0;
    for (std::uint32_t k = 0; k < d; ++k) {
      v[k] = centre[k] + options.spread * rng.normal();
      norm += v[k] * v[k];
    }
    norm = std::sqrt(norm);
    embeddings_[i].resize(d);
    for (std::uint32_t k = 0; k < d; ++k) embeddings_[i][k] = static_cast<float>(v[k] / norm);
  }
  const std::uint32_t k_nn = std::min(options.neighbours, options.concepts - 1);
  neighbours_.resize(options.concepts);
  std::vector<std::pair<double, std::uint32_t>> by_similarity;
  for (std::uint32_t i = 0; i < options.concepts; ++i) {
    by_similarity.clear();
    for (std::uint32_t j = 0; j < options.concepts; ++j) {
      if (j == i) continue;
      double dot = 0.0;
      for (std::uint32_t k = 0; k < d; ++k) dot += double(embeddings_[i][k]) * embeddings_[j][k];
      by_similarity.emplace_back(-dot, j);
    }
    std::partial_sort(by_similarity.begin(), by_similarity.begin() + k_nn, by_similarity.end());
    for (std::uint32_t n = 0; n < k_nn; ++n) neighbours_[i].push_back(by_similarity[n].second);
  }
  popularity_order_.resize(options.concepts);
  std::iota(popularity_order_.begin(), popularity_order_.end(), 0u);
  for (std::uint32_t i = options.concepts; i > 1; --i) std::swap(popularity_order_[i - 1], popularity_order_[rng.below(i)]);
}

std::vector<std::uint32_t> ImageConcepts::request_concepts(std::uint32_t count, std::uint64_t seed) const {
  const DiscreteSampler popularity(zipf_probabilities(size(), options_.popularity_exponent));
  Rng rng(derive_seed(seed, 0xc0ce8));
  std::vector<std::uint32_t> out;
  out.reserve(count);
  for (std::uint32_t r = 0; r < count; ++r) {
    const bool drift = r > 0 && !neighbours_[out.back()].empty() && rng.uniform() < options_.locality;
    if (drift) {
      const auto& near = neighbours_[out.back()];
      out.push_back(near[rng.below(near.size())]);
    } else {
      out.push_back(popularity_order_[popularity.draw(rng)]);
    }
  }
  return out;
}

}  // namespace flashsim
