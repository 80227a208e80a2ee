// markov: prefetch accuracy and coverage on an expert-routing sequence drawn
// from a KNOWN transition matrix with added noise match the values computed
// from that matrix; the sliding window follows a change of pattern; states
// map to blocks by the documented rules.
//
// Derivation of the expected values. The generator draws the expert of the
// next MoE layer from row i of Q = (1 - eps) P0 + eps U, where P0 is the
// clean routing matrix and U spreads eps uniformly over the next layer's E
// experts (the noise). Q is irreducible over the L x E expert states, so it
// has one stationary distribution pi (pi Q = pi, sum pi = 1) and by the
// ergodic theorem state i is visited with long-run frequency pi_i. Once the
// prefetcher's sliding window has filled, its estimate of row i has about
// W pi_i samples, standard error sqrt(Q_ij (1 - Q_ij) / (W pi_i)) <= 0.02
// here, far below the gaps between Q's entries and the threshold, so on a
// visit of i it predicts S_i = { the top_k j of row i with Q_ij >= theta }.
// The next state is drawn from row i whatever came before (Markov property),
// so a visit of i is followed by a predicted state with probability
// sum_{j in S_i} Q_ij. Hence
//   coverage = hits / transitions  = sum_i pi_i sum_{j in S_i} Q_ij
//   accuracy = hits / predictions  = coverage / sum_i pi_i |S_i|
// and for top-1 with theta = 0: accuracy = coverage = sum_i pi_i max_j Q_ij.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <iostream>
#include <random>
#include <set>

#include "tests/prefetch/fake_tier.h"

namespace flashsim::test {
namespace {

using Blocks = std::vector<BlockId>;

/// L layers x E experts; state s = layer * E + expert. Expert blocks: w1 =
/// 2s, w2 = 2s + 1 (kind "expert"); attention of layer l: 1000 + l.
struct ExpertChain {
  int layers = 4, experts = 8;
  double eps = 0.1;
  Eigen::MatrixXd q;  ///< n x n, n = L E; row s: next layer's experts

  int n() const { return layers * experts; }

  ExpertChain() {
    q = Eigen::MatrixXd::Zero(n(), n());
    for (int l = 0; l < layers; ++l) {
      const int next = (l + 1) % layers;
      for (int i = 0; i < experts; ++i) {
        // Clean routing P0: a favourite and a runner-up, the rest uniform.
        const int t1 = (3 * i + l + 1) % experts, t2 = (t1 + 4) % experts;
        const double p1 = i % 2 == 0 ? 0.50 : 0.75, p2 = i % 2 == 0 ? 0.32 : 0.08;
        const double rest = (1.0 - p1 - p2) / (experts - 2);
        for (int j = 0; j < experts; ++j) {
          const double p0 = j == t1 ? p1 : j == t2 ? p2 : rest;
          q(l * experts + i, next * experts + j) = (1.0 - eps) * p0 + eps / experts;
        }
      }
    }
  }

  Eigen::VectorXd stationary() const {
    Eigen::MatrixXd a = q.transpose() - Eigen::MatrixXd::Identity(n(), n());
    a.row(n() - 1).setOnes();
    Eigen::VectorXd b = Eigen::VectorXd::Zero(n());
    b(n() - 1) = 1.0;
    return a.fullPivLu().solve(b);
  }

  /// Expected (accuracy, coverage) of top_k prefetch above theta.
  std::pair<double, double> expected(int top_k, double theta) const {
    const Eigen::VectorXd pi = stationary();
    double cov = 0.0, predicted = 0.0;
    for (int i = 0; i < n(); ++i) {
      std::vector<double> row;
      for (int j = 0; j < n(); ++j) row.push_back(q(i, j));
      std::sort(row.rbegin(), row.rend());
      for (int r = 0; r < top_k && row[r] >= theta; ++r) {
        cov += pi(i) * row[r];
        predicted += pi(i);
      }
    }
    return {cov / predicted, cov};
  }

  TraceMeta meta() const {
    TraceMeta m;
    for (int s = 0; s < n(); ++s) {
      const int l = s / experts, e = s % experts;
      const std::string base = "layers." + std::to_string(l) + ".block_sparse_moe.experts." + std::to_string(e);
      m.catalog.push_back(block(2 * s, base + ".w1.weight", 100, "expert", l));
      m.catalog.push_back(block(2 * s + 1, base + ".w2.weight#1", 100, "expert", l));
    }
    for (int l = 0; l < layers; ++l)
      m.catalog.push_back(block(1000 + l, "layers." + std::to_string(l) + ".self_attn", 100, "weight", l));
    return m;
  }
};

struct Measured {
  double accuracy, coverage;
};

/// Runs `tokens` tokens through markov(state=expert) and measures
/// prediction accuracy and coverage at the state level after `warmup` transitions.
Measured measure(const ExpertChain& chain, int tokens, std::map<std::string, std::string> params, int warmup) {
  const TraceMeta m = chain.meta();
  FakeTier tier(m, 1 << 30, PrefetchLands::record_only);  // nothing lands: every prediction is asked for
  auto p = PrefetcherRegistry::instance().create("markov", params, PrefetcherContext{&m, 1 << 30, 1});
  std::mt19937_64 rng(12345);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  int state = 0;
  std::uint64_t index = 0;
  std::set<int> pending;
  bool have_pending = false;
  std::uint64_t transitions = 0, predictions = 0, hits = 0;
  int visits = 0;
  for (int t = 0; t < tokens; ++t) {
    for (int l = 0; l < chain.layers; ++l) {
      // Draw the expert of layer l from the row of the previous visit.
      if (visits > 0) {
        double x = u(rng), acc = 0.0;
        int next = -1;
        for (int j = 0; j < chain.n(); ++j) {
          acc += chain.q(state, j);
          if (chain.q(state, j) > 0.0) next = j;
          if (x < acc) {
            next = j;
            break;
          }
        }
        if (visits > warmup && have_pending) {
          ++transitions;
          predictions += pending.size();
          hits += pending.count(next);
        }
        state = next;
      } else {
        state = l * chain.experts;
      }
      ++visits;
      p->on_access(access_of(1000 + static_cast<BlockId>(l), kNoOperator, index++), tier, tier);
      EXPECT_TRUE(tier.prefetch_calls.empty());
      p->on_access(access_of(2 * static_cast<BlockId>(state), kNoOperator, index++), tier, tier);
      pending.clear();
      for (BlockId b : tier.take_prefetches()) pending.insert(static_cast<int>(b / 2));
      have_pending = true;
      p->on_access(access_of(2 * static_cast<BlockId>(state) + 1, kNoOperator, index++), tier, tier);
      EXPECT_TRUE(tier.prefetch_calls.empty()) << "w2 continues the visit";
    }
  }
  EXPECT_GT(transitions, 0u);
  return {predictions ? double(hits) / double(predictions) : 0.0, double(hits) / double(transitions)};
}

TEST(Markov, Top2AboveThresholdMatchesTheAnalyticAccuracyAndCoverage) {
  const ExpertChain chain;
  const auto [acc, cov] = chain.expected(2, 0.2);
  // Even rows predict 2 states (0.4625, 0.3005), odd rows 1 (0.6875): accuracy < coverage.
  EXPECT_GT(cov - acc, 0.1);
  const Measured got = measure(chain, 50000,
                               {{"state", "expert"}, {"window", "20000"}, {"refresh", "1000"}, {"top_k", "2"},
                                {"threshold", "0.2"}},
                               20000);
  std::cout << "top-2 >= 0.2: accuracy " << got.accuracy << " (analytic " << acc << "), coverage " << got.coverage
            << " (analytic " << cov << ")\n";
  EXPECT_NEAR(got.accuracy, acc, 0.02);
  EXPECT_NEAR(got.coverage, cov, 0.02);
}

TEST(Markov, Top1MatchesSumOfPiTimesRowMaximum) {
  const ExpertChain chain;
  const Eigen::VectorXd pi = chain.stationary();
  double expected = 0.0;
  for (int i = 0; i < chain.n(); ++i) expected += pi(i) * chain.q.row(i).maxCoeff();
  const auto [acc, cov] = chain.expected(1, 0.0);
  EXPECT_NEAR(acc, expected, 1e-12);
  EXPECT_NEAR(cov, expected, 1e-12);
  const Measured got = measure(
      chain, 50000, {{"state", "expert"}, {"window", "20000"}, {"refresh", "1000"}, {"top_k", "1"}, {"threshold", "0"}},
      20000);
  std::cout << "top-1: accuracy " << got.accuracy << ", coverage " << got.coverage << " (analytic " << expected
            << ")\n";
  EXPECT_NEAR(got.accuracy, expected, 0.02);
  EXPECT_NEAR(got.coverage, expected, 0.02);
}

TEST(Markov, ExpertStatesGroupBlocksByLayerAndExpertNumber) {
  const ExpertChain chain;
  const TraceMeta m = chain.meta();
  auto p = PrefetcherRegistry::instance().create("markov", {{"state", "expert"}}, PrefetcherContext{&m, 1, 1});
  PrefetcherStats s;
  ASSERT_TRUE(report_prefetcher_stats(*p, s));
  EXPECT_EQ(s.get("states"), 32.0);  // w1 and w2#1 of one expert are one state; attention is none
}

/// Block-state markov over a scripted block sequence; returns each access's prefetches.
std::vector<Blocks> run_blocks(const Blocks& trace, std::map<std::string, std::string> params) {
  TraceMeta m;
  for (BlockId b = 0; b < 8; ++b) m.catalog.push_back(block(b, "b" + std::to_string(b)));
  FakeTier tier(m, 1 << 20, PrefetchLands::record_only);
  auto p = PrefetcherRegistry::instance().create("markov", params, PrefetcherContext{&m, 1 << 20, 1});
  std::vector<Blocks> out;
  for (std::size_t i = 0; i < trace.size(); ++i) {
    p->on_access(access_of(trace[i], kNoOperator, i), tier, tier);
    out.push_back(tier.take_prefetches());
  }
  return out;
}

TEST(Markov, SlidingWindowFollowsAChangeOfPattern) {
  // 0 1 2 repeated 40 times, then 0 2 1 repeated 40 times. Window 30
  // transitions, refresh every access, top-1 above 0.5.
  Blocks trace;
  for (int r = 0; r < 40; ++r) trace.insert(trace.end(), {0, 1, 2});
  for (int r = 0; r < 40; ++r) trace.insert(trace.end(), {0, 2, 1});
  const auto got = run_blocks(trace, {{"state", "block"}, {"window", "30"}, {"refresh", "1"}, {"top_k", "1"},
                                      {"threshold", "0.5"}});
  EXPECT_TRUE(got[0].empty()) << "nothing learned yet";
  EXPECT_EQ(got[117], Blocks{1}) << "last visit of 0 in the old pattern";
  EXPECT_EQ(got[120], Blocks{1}) << "first visit of 0 in the new pattern: the window still says 0 -> 1";
  // The window holds 30 transitions, 10 of them out of 0. After 6 new-pattern
  // visits of 0 (0->2 seen 6 times, 0->1 at most 4), 0 -> 2 is the majority.
  EXPECT_EQ(got[120 + 3 * 6], Blocks{2});
  EXPECT_EQ(got.back(), Blocks{0}) << "1 -> 0 in the new pattern";
}

TEST(Markov, ThresholdOneSuppressesUncertainPredictions) {
  // 0 is followed by 1 or 2 alternately: P(0->1) = P(0->2) = 0.5 < 1.
  Blocks trace;
  for (int r = 0; r < 20; ++r) trace.insert(trace.end(), {0, BlockId(1 + r % 2), 3});
  const auto got = run_blocks(trace, {{"state", "block"}, {"refresh", "1"}, {"threshold", "1.0"}});
  for (std::size_t i = 0; i < trace.size(); ++i) {
    if (trace[i] == 0 && i > 4) {  // from the second visit of 0 on, both successors are in the window
      EXPECT_TRUE(got[i].empty()) << i;
    }
    if (i > 6 && trace[i] != 0) {
      EXPECT_EQ(got[i].size(), 1u) << i;  // 1 -> 3, 2 -> 3, 3 -> 0 are certain
    }
  }
}

TEST(Markov, NothingIsPredictedBeforeTheFirstRefresh) {
  Blocks trace;
  for (int r = 0; r < 10; ++r) trace.insert(trace.end(), {0, 1});
  const auto got = run_blocks(trace, {{"state", "block"}, {"refresh", "15"}});
  for (std::size_t i = 0; i < 14; ++i) EXPECT_TRUE(got[i].empty()) << i;
  EXPECT_EQ(got[14], Blocks{1});  // the 15th access refreshes, then predicts
}

TEST(Markov, OperatorStatesPrefetchTheOperatorsBlocks) {
  TraceMeta m;
  for (BlockId b = 0; b < 6; ++b) m.catalog.push_back(block(b, "b" + std::to_string(b)));
  for (std::uint32_t k = 0; k < 3; ++k) {
    OperatorEntry o;
    o.name = "op" + std::to_string(k);
    o.blocks = {2 * k, 2 * k + 1};
    m.operators.push_back(o);
  }
  FakeTier tier(m, 1 << 20, PrefetchLands::record_only);
  auto p = PrefetcherRegistry::instance().create("markov", {{"state", "operator"}, {"refresh", "1"}},
                                                 PrefetcherContext{&m, 1 << 20, 1});
  std::uint64_t i = 0;
  for (int token = 0; token < 3; ++token)
    for (std::uint32_t k = 0; k < 3; ++k)
      for (BlockId b : m.operators[k].blocks) p->on_access(access_of(b, k, i++), tier, tier);
  tier.take_prefetches();
  p->on_access(access_of(2, 1, i++), tier, tier);  // a visit of op 1 (after op 2)
  EXPECT_EQ(tier.take_prefetches(), (Blocks{4, 5}));  // 1 -> 2 always: op 2's blocks
}

}  // namespace
}  // namespace flashsim::test
