#include "sim/placement/flexgen_lp.h"

#include <glpk.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "sim/core/errors.h"

namespace flashsim::placement {
namespace {

// The program is solved in GB and ms: fractions, GB of capacity and ms of
// time are all within a few orders of 1, which keeps the simplex's
// tolerances (1e-7 absolute on the primal) meaningful.
constexpr double kBytesUnit = 1e9;
constexpr double kNsUnit = 1e6;
constexpr double kTightRelative = 1e-6;

struct ProblemDeleter {
  void operator()(glp_prob* p) const { glp_delete_prob(p); }
};
using Problem = std::unique_ptr<glp_prob, ProblemDeleter>;

// Rows are collected as triplets and loaded at once (GLPK's arrays are 1-based).
class Matrix {
 public:
  void add(int row, int col, double value) {
    if (value == 0.0) return;
    rows_.push_back(row);
    cols_.push_back(col);
    values_.push_back(value);
  }
  void load(glp_prob* p) {
    rows_.insert(rows_.begin(), 0);
    cols_.insert(cols_.begin(), 0);
    values_.insert(values_.begin(), 0.0);
    glp_load_matrix(p, static_cast<int>(rows_.size()) - 1, rows_.data(), cols_.data(), values_.data());
  }

 private:
  std::vector<int> rows_, cols_;
  std::vector<double> values_;
};

void check_input(const PlacementInput& in) {
  if (in.groups.empty()) throw InputError("placement: no layer groups (the model has no weights)");
  if (in.tiers.size() < 2) {
    throw InputError("placement: " + std::to_string(in.tiers.size()) + " tier(s); the program needs a fast tier and a backing tier");
  }
  for (const LayerGroup& g : in.groups) {
    for (double v : {g.weight_bytes, g.weight_read_bytes, g.kv_bytes, g.kv_read_bytes, g.kv_written_bytes, g.compute_ns,
                     g.weight_block_bytes, g.kv_block_bytes}) {
      if (!(v >= 0.0) || !std::isfinite(v)) throw InputError("placement: group '" + g.name + "' has a negative or non-finite figure");
    }
  }
  for (std::size_t t = 0; t < in.tiers.size(); ++t) {
    const TierInput& tier = in.tiers[t];
    if (!(tier.capacity_bytes >= 0.0) || !(tier.latency_ns >= 0.0)) {
      throw InputError("placement: tier '" + tier.name + "' has a negative capacity or latency");
    }
    if (t > 0 && !(tier.up_bytes_per_s > 0.0 && tier.down_bytes_per_s > 0.0)) {
      throw InputError("placement: tier '" + tier.name + "' has a link of bandwidth 0 toward the faster tier");
    }
  }
  if (!(in.reserved_bytes >= 0.0) || !(in.stream_buffers >= 0.0)) {
    throw InputError("placement: reserved bytes and stream buffers must be >= 0");
  }
  if (in.batch == 0) throw InputError("placement: batch 0");
}

double max_of(const std::vector<LayerGroup>& groups, double LayerGroup::*field) {
  double m = 0.0;
  for (const LayerGroup& g : groups) m = std::max(m, g.*field);
  return m;
}

double sum_of(const std::vector<LayerGroup>& groups, double LayerGroup::*field) {
  double s = 0.0;
  for (const LayerGroup& g : groups) s += g.*field;
  return s;
}

// ns a byte costs on a link moving blocks of `block_bytes`: 1/bandwidth plus
// its share of the per-transfer latency.
double ns_per_byte(double bytes_per_s, const TierInput& tier, double block_bytes) {
  return 1e9 / bytes_per_s + (block_bytes > 0.0 ? tier.latency_ns / block_bytes : 0.0);
}

std::string up_name(const TierInput& t) { return "up:" + t.name; }
std::string down_name(const TierInput& t) { return "down:" + t.name; }

}  // namespace

double closed_form_weight_share(const PlacementInput& in, double kv_share0) {
  const double w = sum_of(in.groups, &LayerGroup::weight_bytes), kv = sum_of(in.groups, &LayerGroup::kv_bytes);
  const double wmax = max_of(in.groups, &LayerGroup::weight_bytes), kvmax = max_of(in.groups, &LayerGroup::kv_bytes);
  const double b = in.stream_buffers;
  // (W − b·Wmax)·w0 = C0 − reserved − b·Wmax − b·KVmax − (KV − b·KVmax)·c0
  const double rhs = in.tiers[0].capacity_bytes - in.reserved_bytes - b * wmax - b * kvmax - (kv - b * kvmax) * kv_share0;
  const double denom = w - b * wmax;
  if (denom <= 0.0) return rhs >= 0.0 ? 1.0 : 0.0;
  return std::clamp(rhs / denom, 0.0, 1.0);
}

PlacementResult solve_flexgen_lp(const PlacementInput& in) {
  check_input(in);
  const int K = static_cast<int>(in.tiers.size());
  const int N = static_cast<int>(in.groups.size());
  auto w_col = [](int t) { return 1 + t; };
  auto c_col = [K](int t) { return 1 + K + t; };
  auto t_col = [K](int i) { return 1 + 2 * K + i; };

  glp_term_out(GLP_OFF);
  Problem lp(glp_create_prob());
  glp_prob* p = lp.get();
  glp_set_obj_dir(p, GLP_MIN);
  glp_add_cols(p, 2 * K + N);
  for (int t = 0; t < K; ++t) {
    glp_set_col_bnds(p, w_col(t), GLP_DB, 0.0, 1.0);
    glp_set_col_bnds(p, c_col(t), GLP_DB, 0.0, 1.0);
  }
  for (int i = 0; i < N; ++i) {
    glp_set_col_bnds(p, t_col(i), GLP_LO, in.groups[i].compute_ns / kNsUnit, 0.0);  // T[i] >= compute
    glp_set_obj_coef(p, t_col(i), 1.0);
  }

  Matrix m;
  int row = 0;
  auto new_row = [&](int type, double lo, double hi) {
    row = glp_add_rows(p, 1);
    glp_set_row_bnds(p, row, type, lo, hi);
    return row;
  };
  // Shares sum to 1.
  const int w_sum = new_row(GLP_FX, 1.0, 1.0), c_sum = new_row(GLP_FX, 1.0, 1.0);
  for (int t = 0; t < K; ++t) {
    m.add(w_sum, w_col(t), 1.0);
    m.add(c_sum, c_col(t), 1.0);
  }
  // Link terms: T[i] − Σ_{u>=t} (coefficient · share) >= 0. Each term's
  // coefficient (ms per unit share) is also kept for the tie-break.
  std::vector<double> tie_w(K, 0.0), tie_c(K, 0.0);
  for (int i = 0; i < N; ++i) {
    const LayerGroup& g = in.groups[i];
    for (int t = 1; t < K; ++t) {
      const double up_w = g.weight_read_bytes * ns_per_byte(in.tiers[t].up_bytes_per_s, in.tiers[t], g.weight_block_bytes) / kNsUnit;
      const double up_c = g.kv_read_bytes * ns_per_byte(in.tiers[t].up_bytes_per_s, in.tiers[t], g.kv_block_bytes) / kNsUnit;
      const double down_c = g.kv_written_bytes * ns_per_byte(in.tiers[t].down_bytes_per_s, in.tiers[t], g.kv_block_bytes) / kNsUnit;
      if (up_w > 0.0 || up_c > 0.0) {
        const int r = new_row(GLP_LO, 0.0, 0.0);
        m.add(r, t_col(i), 1.0);
        for (int u = t; u < K; ++u) {
          m.add(r, w_col(u), -up_w);
          m.add(r, c_col(u), -up_c);
          tie_w[u] += up_w;
          tie_c[u] += up_c;
        }
      }
      if (down_c > 0.0) {
        const int r = new_row(GLP_LO, 0.0, 0.0);
        m.add(r, t_col(i), 1.0);
        for (int u = t; u < K; ++u) {
          m.add(r, c_col(u), -down_c);
          tie_c[u] += down_c;
        }
      }
    }
  }
  // Memory: the fast tier with its buffers and reserve, then each middle tier.
  const double W = sum_of(in.groups, &LayerGroup::weight_bytes), KV = sum_of(in.groups, &LayerGroup::kv_bytes);
  const double Wmax = max_of(in.groups, &LayerGroup::weight_bytes), KVmax = max_of(in.groups, &LayerGroup::kv_bytes);
  const double sb = in.stream_buffers;
  const double fixed0 = in.reserved_bytes + sb * Wmax + sb * KVmax;
  std::vector<int> mem_row(K, 0);
  mem_row[0] = new_row(GLP_UP, 0.0, (in.tiers[0].capacity_bytes - fixed0) / kBytesUnit);
  m.add(mem_row[0], w_col(0), (W - sb * Wmax) / kBytesUnit);
  m.add(mem_row[0], c_col(0), (KV - sb * KVmax) / kBytesUnit);
  for (int t = 1; t + 1 < K; ++t) {
    mem_row[t] = new_row(GLP_UP, 0.0, in.tiers[t].capacity_bytes / kBytesUnit);
    m.add(mem_row[t], w_col(t), W / kBytesUnit);
    m.add(mem_row[t], c_col(t), KV / kBytesUnit);
  }
  m.load(p);

  glp_smcp parm;
  glp_init_smcp(&parm);
  parm.msg_lev = GLP_MSG_OFF;
  parm.presolve = GLP_ON;  // also answers infeasibility without a basis
  auto solve = [&](const char* what) {
    const int rc = glp_simplex(p, &parm);
    const int status = glp_get_status(p);
    if (rc == GLP_ENOPFS || status == GLP_NOFEAS || status == GLP_INFEAS) {
      throw InputError("placement: fast tier '" + in.tiers[0].name + "' of " + std::to_string(in.tiers[0].capacity_bytes / 1e9) +
                       " GB cannot hold what streaming needs: " + std::to_string(fixed0 / 1e9) + " GB (" +
                       std::to_string(in.reserved_bytes / 1e9) + " GB reserved + " + std::to_string(sb) +
                       " x the largest group's weights and KV), nor can the middle tiers hold the rest");
    }
    if (rc != 0 || status != GLP_OPT) {
      throw Error(std::string("placement: GLPK's simplex failed on the ") + what + " program (rc " + std::to_string(rc) +
                  ", status " + std::to_string(status) + ")");
    }
  };
  solve("time");
  const double step_ms = glp_get_obj_val(p);

  // Tie-break at the same step time: least link time in all.
  const int cap = new_row(GLP_UP, 0.0, step_ms * (1.0 + 1e-9) + 1e-12);
  std::vector<int> ind(1 + N);
  std::vector<double> val(1 + N, 1.0);
  for (int i = 0; i < N; ++i) ind[1 + i] = t_col(i);
  glp_set_mat_row(p, cap, N, ind.data(), val.data());
  for (int i = 0; i < N; ++i) glp_set_obj_coef(p, t_col(i), 0.0);
  for (int t = 0; t < K; ++t) {
    glp_set_obj_coef(p, w_col(t), tie_w[t]);
    glp_set_obj_coef(p, c_col(t), tie_c[t]);
  }
  parm.presolve = GLP_OFF;  // warm start from the first basis
  solve("tie-break");

  PlacementResult r;
  for (int t = 0; t < K; ++t) {
    r.weight_share.push_back(std::clamp(glp_get_col_prim(p, w_col(t)), 0.0, 1.0));
    r.kv_share.push_back(std::clamp(glp_get_col_prim(p, c_col(t)), 0.0, 1.0));
  }
  // Times from the shares (not T[i], which the tie-break leaves slack).
  std::vector<std::pair<std::string, std::size_t>> counts;
  auto count = [&](const std::string& name) {
    auto it = std::find_if(counts.begin(), counts.end(), [&](const auto& c) { return c.first == name; });
    if (it == counts.end()) {
      counts.emplace_back(name, 1);
    } else {
      ++it->second;
    }
  };
  for (int i = 0; i < N; ++i) {
    const LayerGroup& g = in.groups[i];
    std::vector<std::pair<std::string, double>> terms{{"compute", g.compute_ns}};
    for (int t = 1; t < K; ++t) {
      double w_below = 0.0, c_below = 0.0;
      for (int u = t; u < K; ++u) {
        w_below += r.weight_share[u];
        c_below += r.kv_share[u];
      }
      const TierInput& tier = in.tiers[t];
      terms.emplace_back(up_name(tier),
                         g.weight_read_bytes * w_below * ns_per_byte(tier.up_bytes_per_s, tier, g.weight_block_bytes) +
                             g.kv_read_bytes * c_below * ns_per_byte(tier.up_bytes_per_s, tier, g.kv_block_bytes));
      terms.emplace_back(down_name(tier), g.kv_written_bytes * c_below * ns_per_byte(tier.down_bytes_per_s, tier, g.kv_block_bytes));
    }
    GroupTime gt;
    for (const auto& term : terms) gt.time_ns = std::max(gt.time_ns, term.second);
    for (const auto& term : terms) {
      if (gt.time_ns > 0.0 && term.second >= gt.time_ns * (1.0 - kTightRelative)) {
        gt.binding.push_back(term.first);
        count(term.first);
      }
    }
    r.step_ns += gt.time_ns;
    r.groups.push_back(std::move(gt));
  }
  r.binding_counts = std::move(counts);
  r.tokens_per_s = r.step_ns > 0.0 ? static_cast<double>(in.batch) / (r.step_ns / 1e9) : 0.0;
  for (int t = 0; t < K; ++t) {
    double used = W * r.weight_share[t] + KV * r.kv_share[t];
    if (t == 0) used += in.reserved_bytes + sb * (Wmax * (1.0 - r.weight_share[0]) + KVmax * (1.0 - r.kv_share[0]));
    r.tier_used_bytes.push_back(used);
    if (t + 1 < K && used >= in.tiers[t].capacity_bytes * (1.0 - kTightRelative)) r.full_tiers.push_back(in.tiers[t].name);
  }
  return r;
}

}  // namespace flashsim::placement
