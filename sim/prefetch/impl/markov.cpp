// Markov transition prefetch (seeds/000 §3.1, "pre-warm strategy": a
// probability transition matrix built from sliding-window statistics of past
// requests, refreshed periodically; on seeing a state, pre-warm the weights
// of its likely successors — the seed's example prefetches all three of
// 62% / 28% / 10%).
//
// States (param `state`):
//   block    — every block is a state (numbered on first sight); its blocks: itself.
//   expert   — MoE experts: catalog blocks of kind "expert", one state per
//              (layer, expert key), where the key is the block name up to and
//              including the number after "experts." (so
//              "layers.3.mlp.experts.5.w1.weight#2" -> layer 3, "layers.3.mlp.experts.5");
//              a name without "experts.<n>" is its own key. Other accesses
//              are not states.
//   operator — TraceMeta::operators entries, by PrefetchAccess::operator_id;
//              its blocks: OperatorEntry::blocks (not the routed ones).
// Transitions: per stream, consecutive accesses of the same state form one
// visit (an expert's w1, w2, w3 blocks; a block read twice); a visit of s
// after a visit of r (other accesses in between are ignored) is the
// transition r -> s. Counts cover the last `window` transitions (a ring).
// Every `refresh` accesses the counts become a row-normalised Eigen sparse
// matrix P (P_rs = count(r->s) / count(r->*)) and each row's candidates: the
// top_k successors with P_rs >= threshold (ties: the lower state number).
// Before the first refresh nothing is predicted. On the first access of a
// visit of s, the absent blocks of s's candidates are prefetched.
#include <Eigen/SparseCore>
#include <algorithm>
#include <limits>
#include <memory>
#include <string>

#include "sim/core/errors.h"
#include "sim/core/hash_map.h"
#include "sim/prefetch/catalog_index.h"
#include "sim/prefetch/i_prefetcher.h"
#include "sim/prefetch/per_stream.h"
#include "sim/prefetch/prefetcher_stats.h"

namespace flashsim {
namespace {

constexpr std::uint32_t kNoState = std::numeric_limits<std::uint32_t>::max();
enum class StateKind { block, expert, op };

/// "layers.3.mlp.experts.5.w1" -> "layers.3.mlp.experts.5"; the name itself when no "experts.<n>".
std::string expert_key(const std::string& name) {
  const std::string tag = "experts.";
  for (std::size_t at = name.find(tag); at != std::string::npos; at = name.find(tag, at + 1)) {
    std::size_t end = at + tag.size();
    while (end < name.size() && name[end] >= '0' && name[end] <= '9') ++end;
    if (end > at + tag.size()) return name.substr(0, end);
  }
  return name;
}

struct StreamState {
  std::uint32_t last_state = kNoState;   ///< state of the last visit
  std::uint32_t last_access = kNoState;  ///< state of the previous access (kNoState: not a state)
};

class MarkovPrefetcher final : public IPrefetcher, public IPrefetcherReport {
 public:
  MarkovPrefetcher(const ParamValues& p, const PrefetcherContext& c)
      : window_(static_cast<std::uint64_t>(p.integer("window"))),
        refresh_(static_cast<std::uint64_t>(p.integer("refresh"))),
        top_k_(static_cast<std::uint32_t>(p.integer("top_k"))),
        threshold_(p.real("threshold")),
        catalog_(c.meta ? &c.meta->catalog : nullptr) {
    const std::string& kind = p.text("state");
    kind_ = kind == "block" ? StateKind::block : kind == "expert" ? StateKind::expert : StateKind::op;
    if (kind_ == StateKind::expert) build_expert_states();
    if (kind_ == StateKind::op && c.meta != nullptr) {
      for (const OperatorEntry& op : c.meta->operators) state_blocks_.push_back(op.blocks);
    }
  }

  std::string_view name() const override { return "markov"; }

  void on_access(const PrefetchAccess& a, const IFastTierView& view, IPrefetchActions& actions) override {
    if (++since_refresh_ >= refresh_) {
      since_refresh_ = 0;
      rebuild();
    }
    const std::uint32_t s = state_of(a);
    StreamState& st = streams_.at(a.stream_id);
    if (s == kNoState || s == st.last_access) {
      st.last_access = s;
      return;
    }
    st.last_access = s;
    if (st.last_state != kNoState) add_transition(st.last_state, s);
    st.last_state = s;
    if (s >= row_of_state_.size() || row_of_state_[s] == kNoState) return;
    const std::uint32_t row = row_of_state_[s];
    for (std::uint32_t i = cand_begin_[row]; i < cand_begin_[row + 1]; ++i) {
      ++predictions_;
      const std::uint32_t c = cand_state_[i];
      if (kind_ == StateKind::block) {
        request(block_of_state_[c], view, actions);
      } else {
        for (BlockId b : state_blocks_[c]) request(b, view, actions);
      }
    }
  }

  void report(PrefetcherStats& out) const override {
    out.add("states", static_cast<double>(state_count()));
    out.add("transitions", static_cast<double>(transitions_));
    out.add("refreshes", static_cast<double>(refreshes_));
    out.add("matrix_rows", static_cast<double>(matrix_.rows()));
    out.add("matrix_nonzeros", static_cast<double>(matrix_.nonZeros()));
    out.add("predicted_states", static_cast<double>(predictions_));
    out.add("prefetch_requests", static_cast<double>(requests_));
    out.add("prefetch_accepted", static_cast<double>(accepted_));
  }

 private:
  std::size_t state_count() const {
    return kind_ == StateKind::block ? block_of_state_.size() : state_blocks_.size();
  }

  void request(BlockId b, const IFastTierView& view, IPrefetchActions& actions) {
    if (view.state(b) != BlockState::absent) return;
    ++requests_;
    if (actions.prefetch(b)) ++accepted_;
  }

  void build_expert_states() {
    HashMap<std::string, std::uint32_t> by_key;
    block_state_.assign(catalog_.size(), kNoState);
    for (std::uint32_t pos = 0; pos < catalog_.size(); ++pos) {
      const BlockCatalogEntry& e = catalog_.entry(pos);
      if (e.kind != "expert") continue;
      const std::string key = std::to_string(e.layer) + "|" + expert_key(e.name);
      auto [it, fresh] = by_key.try_emplace(key, static_cast<std::uint32_t>(state_blocks_.size()));
      if (fresh) state_blocks_.emplace_back();
      block_state_[pos] = it->second;
      state_blocks_[it->second].push_back(e.id);
    }
  }

  std::uint32_t state_of(const PrefetchAccess& a) {
    switch (kind_) {
      case StateKind::op:
        return a.operator_id < state_blocks_.size() ? a.operator_id : kNoState;
      case StateKind::expert: {
        const std::uint32_t pos = catalog_.find(a.block_id);
        return pos == CatalogIndex::kNotInCatalog ? kNoState : block_state_[pos];
      }
      case StateKind::block: {
        auto [it, fresh] = block_states_.try_emplace(a.block_id, static_cast<std::uint32_t>(block_of_state_.size()));
        if (fresh) {
          if (block_of_state_.size() + 1 >= kNoState) throw InputError("markov: more than 2^32 - 1 block states");
          block_of_state_.push_back(a.block_id);
        }
        return it->second;
      }
    }
    return kNoState;
  }

  /// Counts one transition; the ring of the last `window` transitions holds
  /// slot numbers, so dropping the oldest needs no hash lookup.
  void add_transition(std::uint32_t from, std::uint32_t to) {
    const std::uint64_t key = (std::uint64_t{from} << 32) | to;
    ++transitions_;
    if (window_ == 0) return;
    if (filled_ == window_) {
      const std::uint32_t old = ring_[head_];
      if (--slot_count_[old] == 0) {
        slot_of_.erase(slot_key_[old]);
        free_slots_.push_back(old);
      }
    } else {
      ++filled_;
      ring_.push_back(0);  // grows with the transitions seen: a window of 10^9 costs nothing up front
    }
    auto [it, fresh] = slot_of_.try_emplace(key, 0u);
    if (fresh) {
      if (free_slots_.empty()) {
        it->second = static_cast<std::uint32_t>(slot_key_.size());
        slot_key_.push_back(key);
        slot_count_.push_back(0);
      } else {
        it->second = free_slots_.back();
        free_slots_.pop_back();
        slot_key_[it->second] = key;
      }
    }
    ++slot_count_[it->second];
    ring_[head_] = it->second;
    head_ = (head_ + 1 == window_) ? 0 : head_ + 1;
  }

  /// Counts -> row-normalised sparse matrix over the active rows -> candidates.
  /// O(distinct transitions): the counts are bucketed by row (rows in state
  /// order, so neither the matrix nor ties depend on hash order) and each
  /// row's few columns sorted, then written straight into compressed storage.
  void rebuild() {
    ++refreshes_;
    for (std::uint32_t s : active_states_) row_of_state_[s] = kNoState;
    active_states_.clear();
    if (row_of_state_.size() < state_count()) row_of_state_.resize(state_count(), kNoState);
    const std::size_t slots = slot_key_.size();
    for (std::size_t i = 0; i < slots; ++i) {
      if (slot_count_[i] == 0) continue;
      const auto from = static_cast<std::uint32_t>(slot_key_[i] >> 32);
      if (row_of_state_[from] == kNoState) {
        row_of_state_[from] = 0;
        active_states_.push_back(from);
      }
    }
    std::sort(active_states_.begin(), active_states_.end());
    const std::size_t rows = active_states_.size();
    for (std::uint32_t r = 0; r < rows; ++r) row_of_state_[active_states_[r]] = r;
    row_start_.assign(rows + 1, 0);
    for (std::size_t i = 0; i < slots; ++i)
      if (slot_count_[i] != 0) ++row_start_[row_of_state_[slot_key_[i] >> 32] + 1];
    for (std::size_t r = 0; r < rows; ++r) row_start_[r + 1] += row_start_[r];
    sorted_.resize(slot_of_.size());
    cursor_.assign(row_start_.begin(), row_start_.end() - 1);
    for (std::size_t i = 0; i < slots; ++i) {
      if (slot_count_[i] == 0) continue;
      const std::uint64_t key = slot_key_[i];
      sorted_[cursor_[row_of_state_[key >> 32]]++] = {static_cast<std::uint32_t>(key & 0xFFFFFFFFu),
                                                      static_cast<double>(slot_count_[i])};
    }
    matrix_.resize(static_cast<Eigen::Index>(rows), static_cast<Eigen::Index>(state_count()));
    matrix_.reserve(static_cast<Eigen::Index>(sorted_.size()));
    cand_begin_.assign(rows + 1, 0);
    cand_state_.clear();
    for (std::size_t r = 0; r < rows; ++r) {
      const auto first = sorted_.begin() + row_start_[r], last = sorted_.begin() + row_start_[r + 1];
      std::sort(first, last, [](const Count& x, const Count& y) { return x.to < y.to; });
      double sum = 0.0;
      for (auto it = first; it != last; ++it) sum += it->n;
      matrix_.startVec(static_cast<Eigen::Index>(r));
      for (auto it = first; it != last; ++it)
        matrix_.insertBack(static_cast<Eigen::Index>(r), static_cast<Eigen::Index>(it->to)) = it->n / sum;
      // The row's candidates (the same values as the matrix row): top_k with P >= threshold, ties to the lower state.
      row_.clear();
      for (auto it = first; it != last; ++it) {
        const double p = it->n / sum;
        if (p >= threshold_) row_.push_back({p, it->to});
      }
      const std::size_t k = std::min<std::size_t>(top_k_, row_.size());
      std::partial_sort(row_.begin(), row_.begin() + static_cast<std::ptrdiff_t>(k), row_.end(),
                        [](const Candidate& x, const Candidate& y) {
                          return x.p != y.p ? x.p > y.p : x.state < y.state;
                        });
      for (std::size_t i = 0; i < k; ++i) cand_state_.push_back(row_[i].state);
      cand_begin_[r + 1] = static_cast<std::uint32_t>(cand_state_.size());
    }
    matrix_.finalize();
  }

  using Matrix = Eigen::SparseMatrix<double, Eigen::RowMajor, int>;
  struct Candidate {
    double p;
    std::uint32_t state;
  };
  struct Count {
    std::uint32_t to;
    double n;
  };

  std::uint64_t window_, refresh_;
  std::uint32_t top_k_;
  double threshold_;
  StateKind kind_ = StateKind::expert;
  CatalogIndex catalog_;
  std::vector<std::uint32_t> block_state_;          ///< expert: by catalog position
  HashMap<BlockId, std::uint32_t> block_states_;    ///< block: id -> state
  std::vector<std::vector<BlockId>> state_blocks_;  ///< expert/operator: blocks of each state
  std::vector<BlockId> block_of_state_;             ///< block: the block of each state
  PerStream<StreamState> streams_;
  // Sliding window of transitions.
  std::vector<std::uint32_t> ring_;  ///< slot of each of the last `window` transitions
  std::uint64_t head_ = 0, filled_ = 0;
  HashMap<std::uint64_t, std::uint32_t> slot_of_;  ///< live transition (from << 32 | to) -> slot
  std::vector<std::uint64_t> slot_key_;           ///< transition of each slot
  std::vector<std::uint32_t> slot_count_;         ///< its count in the window; 0 = free slot
  std::vector<std::uint32_t> free_slots_;
  // The matrix and its candidates, as of the last refresh.
  Matrix matrix_;
  std::vector<std::uint32_t> row_start_, cursor_;  ///< rebuild scratch: counts bucketed by row
  std::vector<Count> sorted_;
  std::vector<std::uint32_t> active_states_;  ///< state of each matrix row
  std::vector<std::uint32_t> row_of_state_;   ///< matrix row of a state, kNoState if none
  std::vector<std::uint32_t> cand_begin_, cand_state_;
  std::vector<Candidate> row_;
  std::uint64_t since_refresh_ = 0, refreshes_ = 0, transitions_ = 0;
  std::uint64_t predictions_ = 0, requests_ = 0, accepted_ = 0;
};

}  // namespace

FLASHSIM_REGISTER_PREFETCHER(
    {"markov",
     "Markov transition prefetch: sliding-window transition counts, an Eigen row-normalised matrix refreshed "
     "every P accesses, top-k successors above a threshold (seeds/000 §3.1 pre-warm strategy)",
     {{"state", ParamType::choice, "expert",
       "what a state is: block, expert (kind \"expert\" blocks grouped by layer and \"experts.<n>\"), or operator",
       -1e300, 1e300, {"block", "expert", "operator"}},
      {"window", ParamType::integer, "10000",
       "W: transitions counted (sliding window; the seed says only \"a simple sliding window\"; ours)", 1, 1e9, {}},
      {"refresh", ParamType::integer, "10000",
       "P: accesses between re-normalisations of the matrix (the seed refreshes hourly; ours, in accesses: a "
       "refresh costs ~50 ns per distinct transition in the window)",
       1, 1e12, {}},
      {"top_k", ParamType::integer, "3",
       "successor states prefetched per visit (the seed's example pre-warms 3 successors)", 0, 1e6, {}},
      {"threshold", ParamType::real, "0.1",
       "least transition probability of a prefetched successor (the seed's example includes one of 10%)", 0.0, 1.0,
       {}}},
     [](const ParamValues& p, const PrefetcherContext& c) -> std::unique_ptr<IPrefetcher> {
       return std::make_unique<MarkovPrefetcher>(p, c);
     }});

}  // namespace flashsim
