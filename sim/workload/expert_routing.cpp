#include "sim/workload/expert_routing.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>

#include "sim/core/errors.h"
#include "sim/core/unit_parse.h"
#include "traces/atomic_file.h"

namespace flashsim {

namespace {

// Draws k distinct indices without replacement, each with probability
// proportional to weights among those left (Plackett–Luce), by a linear scan
// of the remaining mass: exact, and no rejection loop however skewed.
void draw_without_replacement(std::span<const double> weights, std::uint32_t k, Rng& rng,
                              std::span<std::uint32_t> out) {
  double remaining = 0.0;
  for (double w : weights) remaining += w;
  for (std::uint32_t j = 0; j < k; ++j) {
    double u = rng.uniform() * remaining;
    const auto n = static_cast<std::uint32_t>(weights.size());
    std::uint32_t pick = n, last_positive = n, first_free = n;
    for (std::uint32_t i = 0; i < n; ++i) {
      bool taken = false;
      for (std::uint32_t c = 0; c < j; ++c) taken |= out[c] == i;
      if (taken) continue;
      if (first_free == n) first_free = i;
      if (weights[i] <= 0.0) continue;
      last_positive = i;
      if (u < weights[i]) {
        pick = i;
        break;
      }
      u -= weights[i];
    }
    // Rounding at the end of the scan picks the last positive weight; when
    // only zero weights are left, the first item not yet taken.
    if (pick == n) pick = last_positive != n ? last_positive : first_free;
    out[j] = pick;
    remaining = std::max(0.0, remaining - std::max(0.0, weights[pick]));
  }
}

class SkewedRouter final : public IExpertRouter {
 public:
  SkewedRouter(std::uint32_t experts, std::uint32_t top_k, std::uint32_t layers, double exponent, double locality,
               std::uint64_t seed)
      : experts_(experts), top_k_(top_k), locality_(locality), weights_(zipf_probabilities(experts, exponent)) {
    ranking_.reserve(layers);
    for (std::uint32_t l = 0; l < layers; ++l) ranking_.push_back(skewed_router_ranking(experts, l, seed));
    picks_.resize(top_k);
  }
  void route(std::uint64_t, std::uint32_t layer, std::span<const ExpertId> previous, std::span<ExpertId> out,
             Rng& rng) override {
    if (!previous.empty() && locality_ > 0.0 && rng.uniform() < locality_) {
      std::copy_n(previous.begin(), top_k_, out.begin());
      return;
    }
    draw_without_replacement(weights_, top_k_, rng, picks_);
    const std::vector<ExpertId>& rank_to_expert = ranking_[layer % ranking_.size()];
    for (std::uint32_t j = 0; j < top_k_; ++j) out[j] = rank_to_expert[picks_[j]];
  }
  std::uint32_t experts() const override { return experts_; }
  std::uint32_t top_k() const override { return top_k_; }

 private:
  std::uint32_t experts_, top_k_;
  double locality_;
  std::vector<double> weights_;
  std::vector<std::vector<ExpertId>> ranking_;
  std::vector<std::uint32_t> picks_;
};

class MarkovRouter final : public IExpertRouter {
 public:
  MarkovRouter(TransitionMatrix m, double noise, std::uint32_t top_k)
      : m_(noisy_transition(m, noise)), top_k_(top_k), row_(m_.n), picks_(top_k) {}
  void route(std::uint64_t, std::uint32_t, std::span<const ExpertId> previous, std::span<ExpertId> out,
             Rng& rng) override {
    if (previous.empty()) {
      std::fill(row_.begin(), row_.end(), 1.0);
    } else {
      std::copy_n(m_.p.begin() + std::ptrdiff_t(previous[0]) * m_.n, m_.n, row_.begin());
    }
    draw_without_replacement(row_, top_k_, rng, picks_);
    for (std::uint32_t j = 0; j < top_k_; ++j) out[j] = static_cast<ExpertId>(picks_[j]);
  }
  std::uint32_t experts() const override { return m_.n; }
  std::uint32_t top_k() const override { return top_k_; }

 private:
  TransitionMatrix m_;
  std::uint32_t top_k_;
  std::vector<double> row_;
  std::vector<std::uint32_t> picks_;
};

class TableRouter final : public IExpertRouter {
 public:
  TableRouter(std::shared_ptr<const RoutingTable> table, std::uint32_t experts)
      : table_(std::move(table)), experts_(experts) {}
  void route(std::uint64_t token, std::uint32_t layer, std::span<const ExpertId>, std::span<ExpertId> out,
             Rng&) override {
    const auto row = table_->at(static_cast<std::uint32_t>(token % table_->tokens), layer);
    std::copy(row.begin(), row.end(), out.begin());
  }
  std::uint32_t experts() const override { return experts_; }
  std::uint32_t top_k() const override { return table_->top_k; }

 private:
  std::shared_ptr<const RoutingTable> table_;
  std::uint32_t experts_;
};

// Ordered draws of k distinct items (Plackett–Luce), enumerated: calls
// visit(items, probability) for every ordered k-tuple.
template <class Visit>
void enumerate_draws(std::span<const double> p, std::uint32_t k, Visit visit) {
  const double n = static_cast<double>(p.size());
  if (std::pow(n, k) > 1e7) throw Error("top-k enumeration: n^k exceeds 10^7");
  std::vector<std::uint32_t> items(k);
  std::vector<bool> used(p.size(), false);
  double total = 0.0;
  for (double x : p) total += x;
  auto recurse = [&](auto&& self, std::uint32_t depth, double probability, double remaining) -> void {
    if (depth == k) {
      visit(std::span<const std::uint32_t>(items), probability);
      return;
    }
    for (std::uint32_t i = 0; i < p.size(); ++i) {
      if (used[i] || p[i] <= 0.0) continue;
      used[i] = true;
      items[depth] = i;
      self(self, depth + 1, probability * p[i] / remaining, remaining - p[i]);
      used[i] = false;
    }
  };
  recurse(recurse, 0, 1.0, total);
}

std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> out;
  std::string field;
  for (char c : line) {
    if (c == ',') {
      out.push_back(field);
      field.clear();
    } else if (c != '\r') {
      field += c;
    }
  }
  out.push_back(field);
  for (auto& f : out) {
    const auto b = f.find_first_not_of(" \t");
    const auto e = f.find_last_not_of(" \t");
    f = b == std::string::npos ? "" : f.substr(b, e - b + 1);
  }
  return out;
}

bool skip_line(const std::string& line) {
  const auto b = line.find_first_not_of(" \t\r");
  return b == std::string::npos || line[b] == '#';
}

std::uint64_t parse_index(const std::string& text, const std::string& where, const char* what) {
  std::int64_t v = 0;
  try {
    v = parse_integer(text);
  } catch (const InputError&) {
    throw InputError(where + ": " + what + " '" + text + "' is not an integer");
  }
  if (v < 0) throw InputError(where + ": " + what + " " + text + " is negative");
  return static_cast<std::uint64_t>(v);
}

}  // namespace

// ------------------------------------------------------------ skewed

std::vector<ExpertId> skewed_router_ranking(std::uint32_t experts, std::uint32_t layer, std::uint64_t seed) {
  std::vector<ExpertId> order(experts);
  for (std::uint32_t i = 0; i < experts; ++i) order[i] = static_cast<ExpertId>(i);
  Rng rng(derive_seed(seed, 0x5ca1ab1e00000000ull + layer));
  for (std::uint32_t i = experts; i > 1; --i) std::swap(order[i - 1], order[rng.below(i)]);
  return order;
}

std::unique_ptr<IExpertRouter> make_skewed_router(std::uint32_t experts, std::uint32_t top_k, std::uint32_t layers,
                                                  double zipf_exponent, double locality, std::uint64_t seed) {
  if (experts == 0 || experts > 65535) throw InputError("expert routing: experts must be in 1..65535");
  if (top_k == 0 || top_k > experts) {
    throw InputError("expert routing: top_k " + std::to_string(top_k) + " must be in 1.." + std::to_string(experts));
  }
  if (!(zipf_exponent >= 0.0)) throw InputError("expert routing: zipf exponent must be >= 0");
  if (!(locality >= 0.0 && locality <= 1.0)) throw InputError("expert routing: locality must be in [0, 1]");
  return std::make_unique<SkewedRouter>(experts, top_k, std::max<std::uint32_t>(layers, 1), zipf_exponent, locality,
                                        seed);
}

std::vector<double> top_k_inclusion_probabilities(std::span<const double> p, std::uint32_t k) {
  std::vector<double> out(p.size(), 0.0);
  enumerate_draws(p, k, [&](std::span<const std::uint32_t> items, double probability) {
    for (std::uint32_t i : items) out[i] += probability;
  });
  return out;
}

double repeat_probability(std::span<const double> p, std::uint32_t k, double locality) {
  std::map<std::vector<std::uint32_t>, double> sets;
  enumerate_draws(p, k, [&](std::span<const std::uint32_t> items, double probability) {
    std::vector<std::uint32_t> key(items.begin(), items.end());
    std::sort(key.begin(), key.end());
    sets[key] += probability;
  });
  double same = 0.0;
  for (const auto& [set, probability] : sets) same += probability * probability;
  return locality + (1.0 - locality) * same;
}

// ------------------------------------------------------------ markov

void check_transition_matrix(const TransitionMatrix& m, const std::string& where) {
  if (m.n == 0 || m.n > 65535) throw InputError(where + ": a transition matrix needs 1..65535 rows");
  if (m.p.size() != std::size_t(m.n) * m.n) {
    throw InputError(where + ": transition matrix of " + std::to_string(m.n) + " rows has " +
                     std::to_string(m.p.size()) + " entries");
  }
  for (std::uint32_t i = 0; i < m.n; ++i) {
    double sum = 0.0;
    for (std::uint32_t j = 0; j < m.n; ++j) {
      const double x = m.at(i, j);
      if (!(x >= 0.0)) throw InputError(where + ": row " + std::to_string(i) + " has a negative entry");
      sum += x;
    }
    if (std::abs(sum - 1.0) > 1e-6) {
      throw InputError(where + ": row " + std::to_string(i) + " sums to " + std::to_string(sum) + ", not 1");
    }
  }
}

TransitionMatrix noisy_transition(const TransitionMatrix& m, double noise) {
  TransitionMatrix out = m;
  const double uniform = noise / static_cast<double>(m.n);
  for (double& x : out.p) x = (1.0 - noise) * x + uniform;
  return out;
}

std::vector<std::uint32_t> markov_expert_sequence(const TransitionMatrix& m, double noise, std::size_t length,
                                                  std::uint64_t seed, std::uint32_t first) {
  check_transition_matrix(m, "markov_expert_sequence");
  if (!(noise >= 0.0 && noise <= 1.0)) throw InputError("markov_expert_sequence: noise must be in [0, 1]");
  if (first >= m.n) throw InputError("markov_expert_sequence: first expert is not below n");
  std::vector<DiscreteSampler> rows;
  rows.reserve(m.n);
  for (std::uint32_t i = 0; i < m.n; ++i) {
    rows.emplace_back(std::span<const double>(m.p.data() + std::size_t(i) * m.n, m.n));
  }
  Rng rng(seed);
  std::vector<std::uint32_t> out;
  out.reserve(length);
  std::uint32_t current = first;
  for (std::size_t t = 0; t < length; ++t) {
    if (t > 0) {
      // The noise draw comes first, so the chain's steps do not depend on n.
      current = rng.uniform() < noise ? static_cast<std::uint32_t>(rng.below(m.n)) : rows[current].draw(rng);
    }
    out.push_back(current);
  }
  return out;
}

std::unique_ptr<IExpertRouter> make_markov_router(TransitionMatrix m, double noise, std::uint32_t top_k) {
  check_transition_matrix(m, "expert routing (markov)");
  if (!(noise >= 0.0 && noise <= 1.0)) throw InputError("expert routing (markov): noise must be in [0, 1]");
  if (top_k == 0 || top_k > m.n) throw InputError("expert routing (markov): top_k must be in 1..n");
  return std::make_unique<MarkovRouter>(std::move(m), noise, top_k);
}

TransitionMatrix load_transition_matrix(const std::filesystem::path& path) {
  const std::string file = path.string();
  std::ifstream in(path);
  if (!in) throw InputError(file + ": cannot open");
  TransitionMatrix m;
  std::string line;
  std::size_t line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (skip_line(line)) continue;
    const auto fields = split_csv(line);
    const std::string where = file + ":" + std::to_string(line_no);
    if (m.n == 0) m.n = static_cast<std::uint32_t>(fields.size());
    if (fields.size() != m.n) {
      throw InputError(where + ": expected " + std::to_string(m.n) + " probabilities, got " +
                       std::to_string(fields.size()));
    }
    for (const auto& f : fields) {
      try {
        m.p.push_back(parse_real(f));
      } catch (const InputError&) {
        throw InputError(where + ": '" + f + "' is not a number");
      }
    }
  }
  if (m.n == 0) throw InputError(file + ": no rows");
  if (m.p.size() != std::size_t(m.n) * m.n) {
    throw InputError(file + ": " + std::to_string(m.p.size() / m.n) + " rows of " + std::to_string(m.n) +
                     " columns: the matrix must be square");
  }
  check_transition_matrix(m, file);
  return m;
}

// ------------------------------------------------------------ routing table

std::uint32_t RoutingTable::max_expert_plus_one() const {
  std::uint32_t out = 0;
  for (ExpertId e : experts) out = std::max<std::uint32_t>(out, e + 1u);
  return out;
}

RoutingTable load_routing_table(const std::filesystem::path& path) {
  const std::string file = path.string();
  std::ifstream in(path);
  if (!in) throw InputError(file + ": cannot open");
  struct Row {
    std::uint32_t token, layer;
    std::size_t line;
    std::vector<ExpertId> experts;
  };
  std::vector<Row> rows;
  std::string line;
  std::size_t line_no = 0;
  std::size_t columns = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (line_no == 1 && line.starts_with("\xEF\xBB\xBF")) line = line.substr(3);  // byte-order mark
    if (skip_line(line)) continue;
    const auto fields = split_csv(line);
    const std::string where = file + ":" + std::to_string(line_no);
    if (columns == 0) {
      if (fields.size() < 3 || fields[0] != "token" || fields[1] != "layer") {
        throw InputError(where + ": expected the header 'token,layer,expert_0[,expert_1...]'");
      }
      columns = fields.size();
      continue;
    }
    if (fields.size() != columns) {
      throw InputError(where + ": expected " + std::to_string(columns) + " fields (token, layer and " +
                       std::to_string(columns - 2) + " experts), got " + std::to_string(fields.size()));
    }
    Row row;
    row.line = line_no;
    const std::uint64_t token = parse_index(fields[0], where, "token");
    const std::uint64_t layer = parse_index(fields[1], where, "layer");
    if (token >= (1ull << 31)) throw InputError(where + ": token " + fields[0] + " is too large");
    if (layer >= 65536) throw InputError(where + ": layer " + fields[1] + " is too large");
    row.token = static_cast<std::uint32_t>(token);
    row.layer = static_cast<std::uint32_t>(layer);
    for (std::size_t c = 2; c < columns; ++c) {
      const std::uint64_t e = parse_index(fields[c], where, "expert");
      if (e > 65535) throw InputError(where + ": expert " + fields[c] + " is above 65535");
      for (ExpertId seen : row.experts) {
        if (seen == e) throw InputError(where + ": expert " + fields[c] + " appears twice in the row");
      }
      row.experts.push_back(static_cast<ExpertId>(e));
    }
    rows.push_back(std::move(row));
  }
  if (columns == 0) throw InputError(file + ": empty (expected the header 'token,layer,expert_0[,...]')");
  if (rows.empty()) throw InputError(file + ": no rows");
  RoutingTable t;
  t.source = file;
  t.top_k = static_cast<std::uint32_t>(columns - 2);
  for (const Row& r : rows) {
    t.tokens = std::max(t.tokens, r.token + 1);
    t.layers = std::max(t.layers, r.layer + 1);
  }
  const std::size_t cells = std::size_t(t.tokens) * t.layers;
  if (cells > (std::size_t(1) << 32)) throw InputError(file + ": tokens × layers is too large");
  std::vector<std::size_t> line_of(cells, 0);
  t.experts.assign(cells * t.top_k, 0);
  for (const Row& r : rows) {
    const std::size_t cell = std::size_t(r.token) * t.layers + r.layer;
    if (line_of[cell] != 0) {
      throw InputError(file + ":" + std::to_string(r.line) + ": token " + std::to_string(r.token) + " layer " +
                       std::to_string(r.layer) + " given twice (first at line " + std::to_string(line_of[cell]) +
                       ")");
    }
    line_of[cell] = r.line;
    std::copy(r.experts.begin(), r.experts.end(), t.experts.begin() + std::ptrdiff_t(cell * t.top_k));
  }
  for (std::size_t cell = 0; cell < cells; ++cell) {
    if (line_of[cell] == 0) {
      throw InputError(file + ": token " + std::to_string(cell / t.layers) + " has no row for layer " +
                       std::to_string(cell % t.layers) + " (every token needs layers 0.." +
                       std::to_string(t.layers - 1) + ")");
    }
  }
  return t;
}

void save_routing_table(const RoutingTable& table, const std::filesystem::path& path) {
  AtomicFile out_file(path);
  {
    std::ofstream out(out_file.temp_path(), std::ios::trunc);
    out << "# flashsim expert routing: top-" << table.top_k << " experts per token and MoE layer\n";
    out << "token,layer";
    for (std::uint32_t i = 0; i < table.top_k; ++i) out << ",expert_" << i;
    out << '\n';
    for (std::uint32_t t = 0; t < table.tokens; ++t) {
      for (std::uint32_t l = 0; l < table.layers; ++l) {
        out << t << ',' << l;
        for (ExpertId e : table.at(t, l)) out << ',' << e;
        out << '\n';
      }
    }
    out.flush();
    if (!out) throw Error("cannot write '" + path.string() + "'");
  }
  out_file.commit();
}

std::unique_ptr<IExpertRouter> make_table_router(std::shared_ptr<const RoutingTable> table, std::uint32_t experts,
                                                 std::uint32_t layers) {
  if (table->layers != layers) {
    throw InputError(table->source + ": routing trace has " + std::to_string(table->layers) +
                     " MoE layers, the model has " + std::to_string(layers));
  }
  if (table->max_expert_plus_one() > experts) {
    throw InputError(table->source + ": routing trace names expert " + std::to_string(table->max_expert_plus_one() - 1) +
                     ", the model has " + std::to_string(experts) + " experts");
  }
  return std::make_unique<TableRouter>(std::move(table), experts);
}

}  // namespace flashsim
