// Expert routing: skew and locality statistics against their analytic
// values, the Markov chain against its matrix, the routing-trace file
// round trip and its errors.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>

#include "sim/core/errors.h"
#include "sim/workload/expert_routing.h"
#include "tests/support/temp_dir.h"

namespace flashsim {
namespace {

using test::TempDir;

// Frequencies of each popularity rank among `tokens` routed tokens at layer 0.
std::vector<double> rank_frequencies(std::uint32_t experts, std::uint32_t k, double exponent, double locality,
                                     std::size_t tokens, double* repeat_rate = nullptr) {
  auto router = make_skewed_router(experts, k, 1, exponent, locality, 42);
  const std::vector<ExpertId> ranking = skewed_router_ranking(experts, 0, 42);
  std::vector<std::uint32_t> rank_of(experts);
  for (std::uint32_t r = 0; r < experts; ++r) rank_of[ranking[r]] = r;
  std::vector<double> freq(experts, 0.0);
  std::vector<ExpertId> previous(k), out(k);
  Rng rng(9);
  std::size_t repeats = 0;
  for (std::size_t t = 0; t < tokens; ++t) {
    router->route(t, 0, t == 0 ? std::span<const ExpertId>() : std::span<const ExpertId>(previous), out, rng);
    std::set<ExpertId> distinct(out.begin(), out.end());
    EXPECT_EQ(distinct.size(), k);
    for (ExpertId e : out) freq[rank_of[e]] += 1.0 / static_cast<double>(tokens);
    if (t > 0 && std::set<ExpertId>(previous.begin(), previous.end()) == distinct) ++repeats;
    previous = out;
  }
  if (repeat_rate) *repeat_rate = static_cast<double>(repeats) / static_cast<double>(tokens - 1);
  return freq;
}

TEST(Routing, TopOneFrequenciesFollowZipf) {
  const auto freq = rank_frequencies(8, 1, 1.2, 0.0, 200000);
  const auto p = zipf_probabilities(8, 1.2);
  for (std::size_t i = 0; i < 8; ++i) EXPECT_NEAR(freq[i], p[i], 0.005) << "rank " << i;
  EXPECT_NEAR(p[0], 1.0 / (1.0 + std::pow(2, -1.2) + std::pow(3, -1.2) + std::pow(4, -1.2) + std::pow(5, -1.2) +
                           std::pow(6, -1.2) + std::pow(7, -1.2) + std::pow(8, -1.2)),
              1e-12);
}

TEST(Routing, TopTwoInclusionMatchesPlackettLuce) {
  const auto p = zipf_probabilities(8, 1.0);
  const auto analytic = top_k_inclusion_probabilities(p, 2);
  double sum = 0.0;
  for (double x : analytic) sum += x;
  EXPECT_NEAR(sum, 2.0, 1e-12);  // two experts per token
  // Hand value for rank 0: p0 + Σ_{j≠0} p_j · p0 / (1 - p_j).
  double hand = p[0];
  for (std::size_t j = 1; j < 8; ++j) hand += p[j] * p[0] / (1.0 - p[j]);
  EXPECT_NEAR(analytic[0], hand, 1e-12);
  const auto freq = rank_frequencies(8, 2, 1.0, 0.0, 200000);
  for (std::size_t i = 0; i < 8; ++i) EXPECT_NEAR(freq[i] , analytic[i], 0.006) << "rank " << i;
}

TEST(Routing, LocalityRaisesTheRepeatRateToItsAnalyticValue) {
  const auto p = zipf_probabilities(8, 0.8);
  for (double locality : {0.0, 0.3, 0.7}) {
    double measured = 0.0;
    const auto freq = rank_frequencies(8, 2, 0.8, locality, 100000, &measured);
    EXPECT_NEAR(measured, repeat_probability(p, 2, locality), 0.01) << "locality " << locality;
    // Copying the previous set keeps the marginal popularity.
    const auto analytic = top_k_inclusion_probabilities(p, 2);
    for (std::size_t i = 0; i < 8; ++i) EXPECT_NEAR(freq[i], analytic[i], 0.02);
  }
  EXPECT_NEAR(repeat_probability(std::vector<double>(4, 0.25), 1, 0.5), 0.5 + 0.5 * 0.25, 1e-12);
}

TEST(Routing, LayersRankExpertsDifferently) {
  std::set<std::vector<ExpertId>> rankings;
  for (std::uint32_t l = 0; l < 8; ++l) rankings.insert(skewed_router_ranking(8, l, 3));
  EXPECT_GT(rankings.size(), 4u);
}

TEST(Routing, MarkovSequenceFollowsTheNoisyMatrix) {
  TransitionMatrix m;
  m.n = 3;
  m.p = {0.0, 0.9, 0.1,  //
         0.2, 0.0, 0.8,  //
         0.5, 0.5, 0.0};
  const double noise = 0.15;
  const auto seq = markov_expert_sequence(m, noise, 300000, 5, 0);
  ASSERT_EQ(seq.size(), 300000u);
  EXPECT_EQ(seq[0], 0u);
  std::vector<double> counts(9, 0.0), from(3, 0.0);
  for (std::size_t t = 1; t < seq.size(); ++t) {
    counts[seq[t - 1] * 3 + seq[t]] += 1;
    from[seq[t - 1]] += 1;
  }
  const TransitionMatrix expected = noisy_transition(m, noise);
  EXPECT_NEAR(expected.at(0, 0), 0.05, 1e-12);
  EXPECT_NEAR(expected.at(0, 1), 0.85 * 0.9 + 0.05, 1e-12);
  for (std::uint32_t i = 0; i < 3; ++i) {
    for (std::uint32_t j = 0; j < 3; ++j) {
      EXPECT_NEAR(counts[i * 3 + j] / from[i], expected.at(i, j), 0.01) << i << "->" << j;
    }
  }
  EXPECT_EQ(markov_expert_sequence(m, noise, 50, 5, 0), std::vector<std::uint32_t>(seq.begin(), seq.begin() + 50));
  EXPECT_NE(markov_expert_sequence(m, noise, 50, 6, 0), std::vector<std::uint32_t>(seq.begin(), seq.begin() + 50));
  TransitionMatrix bad = m;
  bad.p[0] = 0.5;
  EXPECT_THROW(markov_expert_sequence(bad, noise, 10, 1), InputError);
  EXPECT_THROW(markov_expert_sequence(m, 1.5, 10, 1), InputError);
}

TEST(Routing, MarkovRouterFirstExpertFollowsTheChain) {
  TransitionMatrix m;
  m.n = 4;
  m.p = {0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 1, 0, 0, 0};  // a cycle 0->1->2->3->0
  auto router = make_markov_router(m, 0.0, 2);
  Rng rng(1);
  std::vector<ExpertId> prev = {2, 0}, out(2);
  for (int t = 0; t < 20; ++t) {
    router->route(t, 0, prev, out, rng);
    EXPECT_EQ(out[0], (prev[0] + 1) % 4);
    EXPECT_NE(out[1], out[0]);
    prev = out;
  }
}

TEST(Routing, TableFileRoundTripAndReplay) {
  TempDir dir;
  RoutingTable t;
  t.tokens = 3;
  t.layers = 2;
  t.top_k = 2;
  t.experts = {0, 1, 2, 3, 4, 5, 6, 7, 1, 3, 5, 7};
  save_routing_table(t, dir / "r.csv");
  const RoutingTable back = load_routing_table(dir / "r.csv");
  EXPECT_EQ(back.tokens, 3u);
  EXPECT_EQ(back.layers, 2u);
  EXPECT_EQ(back.top_k, 2u);
  EXPECT_EQ(back.experts, t.experts);
  auto router = make_table_router(std::make_shared<RoutingTable>(back), 8, 2);
  Rng rng(1);
  std::vector<ExpertId> out(2);
  router->route(4, 1, {}, out, rng);  // token 4 cycles to row 1
  EXPECT_EQ(out, (std::vector<ExpertId>{6, 7}));
  EXPECT_THROW(make_table_router(std::make_shared<RoutingTable>(back), 7, 2), InputError);  // expert 7 >= 7
  EXPECT_THROW(make_table_router(std::make_shared<RoutingTable>(back), 8, 3), InputError);  // layers differ
}

std::string load_error(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path) << text;
  try {
    load_routing_table(path);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(Routing, BadTableFilesNameFileAndLine) {
  TempDir dir;
  const auto f = dir / "bad.csv";
  const std::string name = f.string();
  EXPECT_EQ(load_error(f, "tok,layer,e0\n0,0,1\n"),
            name + ":1: expected the header 'token,layer,expert_0[,expert_1...]'");
  EXPECT_EQ(load_error(f, "# c\ntoken,layer,e0,e1\n0,0,1\n"),
            name + ":3: expected 4 fields (token, layer and 2 experts), got 3");
  EXPECT_EQ(load_error(f, "token,layer,e0\n0,x,1\n"), name + ":2: layer 'x' is not an integer");
  EXPECT_EQ(load_error(f, "token,layer,e0\n0,0,-1\n"), name + ":2: expert -1 is negative");
  EXPECT_EQ(load_error(f, "token,layer,e0,e1\n0,0,3,3\n"), name + ":2: expert 3 appears twice in the row");
  EXPECT_EQ(load_error(f, "token,layer,e0\n0,0,1\n\n0,0,2\n"),
            name + ":4: token 0 layer 0 given twice (first at line 2)");
  EXPECT_EQ(load_error(f, "token,layer,e0\n0,0,1\n0,1,1\n1,0,2\n"),
            name + ": token 1 has no row for layer 1 (every token needs layers 0..1)");
  EXPECT_EQ(load_error(f, "token,layer,e0\n"), name + ": no rows");
  EXPECT_EQ(load_error(f, ""), name + ": empty (expected the header 'token,layer,expert_0[,...]')");
  EXPECT_THROW(load_routing_table(dir / "missing.csv"), InputError);
}

TEST(Routing, TransitionMatrixFileErrorsNameFileAndLine) {
  TempDir dir;
  const auto f = dir / "m.csv";
  std::ofstream(f) << "# matrix\n0.5,0.5\n1.0\n";
  try {
    load_transition_matrix(f);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), f.string() + ":3: expected 2 probabilities, got 1");
  }
  std::ofstream(f) << "0.5,0.5\n0.2,0.7\n";
  EXPECT_THROW(load_transition_matrix(f), InputError);  // row 1 sums to 0.9
  std::ofstream(f) << "0.5,0.5\n0.25,0.75\n";
  const TransitionMatrix m = load_transition_matrix(f);
  EXPECT_EQ(m.n, 2u);
  EXPECT_DOUBLE_EQ(m.at(1, 1), 0.75);
}

}  // namespace
}  // namespace flashsim
