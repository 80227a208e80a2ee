// A link between two tiers (PCIe host→HBM, NVMe→host): per-transfer
// latency, bandwidth, and how concurrent transfers share it.
//
//   fifo  one transfer at a time in request order (a single copy engine):
//         start = max(now, free_at), end = start + latency + bytes/bandwidth,
//         free_at = end. The latency occupies the link. End times are known
//         at submit().
//   fair  processor sharing (Kleinrock, "Queueing Systems" vol. 2, 1976,
//         §4.4): a transfer first waits its latency without using
//         bandwidth, then its bytes flow while the n flowing transfers each
//         get bandwidth/n. End times change whenever the flowing set
//         changes; the driver asks next_event_ns(), schedules a check
//         tagged with generation(), ignores checks whose generation is
//         stale, and calls advance() on a current one.
//   weighted (fair with class weights; segment locking): generalised
//         processor sharing (Parekh & Gallager, IEEE/ACM ToN 1993) over
//         classes: while the set A of classes with flowing transfers is
//         non-empty, class c gets bandwidth · w_c / Σ_{a∈A} w_a, split
//         equally among its n_c flowing transfers. A class's weight is
//         thus its minimum share whenever it has data to move; what an idle
//         class leaves is shared by the others in proportion to theirs.
//         Example (1 B/ns; 0.35 vs 0.65; 1000 B each from t=0): the 0.65
//         transfer ends at 1000/0.65 = 1538.46 ns, the 0.35 one, having
//         received 538.46 B, at 2000 ns (work is conserved).
//
// Busy time is the time the link carries data (at least one transfer's
// bytes flowing; a fifo transfer's latency does not count), accumulated per
// window of `window_ns` for link-utilisation time series.
#pragma once
#include <cstdint>
#include <limits>
#include <vector>

#include "sim/core/units.h"
#include "sim/engine/hardware_profile.h"
#include "sim/engine/event/ring_queue.h"
#include "sim/metrics/component_stats.h"

namespace flashsim {

/// Busy time split over fixed windows [k·window_ns, (k+1)·window_ns).
/// window_ns == 0 means one window holding everything.
class BusyWindows {
 public:
  explicit BusyWindows(Nanoseconds window_ns) : window_ns_(window_ns) {}
  /// Adds [begin_ns, end_ns); empty or reversed intervals add nothing.
  void add(Nanoseconds begin_ns, Nanoseconds end_ns);
  Nanoseconds total_ns() const { return total_ns_; }
  /// Busy ns of window k (0 beyond the last window touched).
  Nanoseconds window(std::size_t k) const { return k < busy_ns_.size() ? busy_ns_[k] : 0; }
  std::size_t window_count() const { return busy_ns_.size(); }

 private:
  Nanoseconds window_ns_;
  Nanoseconds total_ns_ = 0;
  std::vector<Nanoseconds> busy_ns_;
};

class Link {
 public:
  /// Throws InputError if spec.bandwidth <= 0 or spec.latency_ns < 0, or a
  /// class weight is not > 0. `class_weights` (two or more) makes the link
  /// weighted: fair sharing between classes by weight, whatever
  /// spec.sharing says; empty or one weight: spec.sharing as given.
  Link(const LinkSpec& spec, Nanoseconds window_ns, std::vector<double> class_weights = {});

  bool fair() const { return spec_.sharing == LinkSharing::fair; }
  const LinkSpec& spec() const { return spec_; }

  /// Requests a transfer of `bytes` at `now_ns` (calls must come in
  /// non-decreasing now_ns). `tag` comes back from advance() (fair).
  /// `klass` indexes the class weights (0 when the link has none; values
  /// out of range mean class 0). Returns the completion time for fifo
  /// links, kNeverNs for fair ones.
  Nanoseconds submit(Nanoseconds now_ns, ByteCount bytes, std::uint64_t tag, std::uint32_t klass = 0);

  /// fair: the earliest time (ns, rounded up) at which a transfer starts
  /// flowing or completes; kNeverNs when idle. fifo: kNeverNs.
  Nanoseconds next_event_ns() const;
  /// Changes whenever the fair schedule changes (submit, start, completion).
  std::uint64_t generation() const { return generation_; }

  /// fair: processes starts and completions up to `now_ns` in time order
  /// (completion before start at the same instant; ties among completions
  /// by submit order) and appends the tags of completed transfers to
  /// `completed`. fifo: does nothing.
  void advance(Nanoseconds now_ns, std::vector<std::uint64_t>* completed);

  /// Its statistics under `component`: transfers, bytes, busy_ns.
  void report(const std::string& component, ComponentStats& out) const {
    out.add(component, "transfers", "count", static_cast<double>(transfers_));
    out.add(component, "bytes", "bytes", static_cast<double>(bytes_));
    out.add(component, "busy_ns", "ns", static_cast<double>(busy_.total_ns()));
  }
  std::uint64_t transfers() const { return transfers_; }
  ByteCount bytes() const { return bytes_; }
  const BusyWindows& busy() const { return busy_; }
  /// Transfers submitted and not yet completed (fair), or not yet ended by
  /// the last submit's clock (fifo: always 0).
  std::size_t in_progress() const { return waiting_.size() + flowing_count_; }

 private:
  struct Waiting {  // fair: paying its latency
    Nanoseconds start_flow_ns;
    ByteCount bytes;
    std::uint64_t sequence;
    std::uint64_t tag;
    std::uint32_t klass;
  };
  struct Flowing {  // fair: bytes flowing; done when the class's virtual time reaches finish
    double finish_bytes;
    std::uint64_t sequence;
    std::uint64_t tag;
  };
  struct Class {  // fair: one processor-sharing queue per class
    double weight = 1.0;
    double virtual_bytes = 0.0;    // service each of its flowing transfers has received so far
    std::vector<Flowing> flowing;  // min-heap by (finish_bytes, sequence)
  };
  double share(const Class& c) const { return c.weight == active_weight_ ? 1.0 : c.weight / active_weight_; }
  double completion_real_ns(const Class& c) const;  // of the class's transfer that finishes first
  std::size_t first_class() const;  // active class whose first completion is earliest; classes_.size() if none
  void move_clock(double to_ns);    // advances every class's virtual time
  void update_active_weight();
  static void heap_push(std::vector<Flowing>& heap, const Flowing& f);
  static Flowing heap_pop(std::vector<Flowing>& heap);

  LinkSpec spec_;
  double bytes_per_ns_;
  BusyWindows busy_;
  std::uint64_t transfers_ = 0;
  ByteCount bytes_ = 0;
  // fifo
  Nanoseconds free_at_ns_ = 0;
  // fair
  RingQueue<Waiting> waiting_;    // start times are non-decreasing: a FIFO
  std::vector<Class> classes_;    // one (weight 1) unless weighted
  std::size_t flowing_count_ = 0;
  double active_weight_ = 0.0;    // Σ weights of classes with flowing transfers
  double clock_ns_ = 0.0;         // real time the classes' virtual_bytes refer to
  double busy_since_ns_ = 0.0;
  std::uint64_t sequence_ = 0;
  std::uint64_t generation_ = 0;
};

}  // namespace flashsim
