#include "sim/report/timeline.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <numeric>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "sim/core/errors.h"
#include "sim/engine/event/engine_detail.h"
#include "sim/engine/event/engine_observer.h"
#include "sim/run/scenario_runner.h"
#include "sim/results/summary_json.h"
#include "sim/results/timeseries_column.h"
#include "sim/results/timeseries_group.h"
#include "sim/scenario/scenario_document.h"
#include "traces/atomic_file.h"
#include "traces/hdf5_io.h"
#include "traces/trace_formats.h"

namespace flashsim::report {

// ---- TraceEvents ----

std::uint32_t TraceEvents::add_process(const std::string& name) {
  processes_.push_back(Process{name});
  return static_cast<std::uint32_t>(processes_.size());
}

std::uint32_t TraceEvents::track(std::uint32_t pid, const std::string& name) {
  for (std::size_t t = 0; t < tracks_.size(); ++t) {
    if (tracks_[t].pid == pid && tracks_[t].name == name) return static_cast<std::uint32_t>(t);
  }
  tracks_.push_back(Track{pid, name});
  return static_cast<std::uint32_t>(tracks_.size() - 1);
}

std::uint32_t TraceEvents::name_id(const std::string& name) {
  // Few distinct names (kinds, tier names): a linear search is enough.
  for (std::size_t i = 0; i < names_.size(); ++i) {
    if (names_[i] == name) return static_cast<std::uint32_t>(i);
  }
  names_.push_back(name);
  return static_cast<std::uint32_t>(names_.size() - 1);
}

bool TraceEvents::admit(std::uint32_t pid) {
  Process& p = processes_.at(pid - 1);
  if (max_events_ > 0 && p.events >= max_events_) {
    ++p.dropped;
    return false;
  }
  ++p.events;
  return true;
}

bool TraceEvents::full(std::uint32_t pid) const {
  return max_events_ > 0 && processes_.at(pid - 1).events >= max_events_;
}

bool TraceEvents::slice(std::uint32_t track, const std::string& name, Nanoseconds start_ns, Nanoseconds end_ns,
                        std::vector<Arg> args) {
  const std::uint32_t pid = tracks_.at(track).pid;
  if (!admit(pid)) return false;
  events_.push_back(Event{pid, track, 'X', name_id(name), start_ns, std::max(start_ns, end_ns), 0.0, std::move(args)});
  return true;
}

bool TraceEvents::instant(std::uint32_t track, const std::string& name, Nanoseconds time_ns, std::vector<Arg> args) {
  const std::uint32_t pid = tracks_.at(track).pid;
  if (!admit(pid)) return false;
  events_.push_back(Event{pid, track, 'i', name_id(name), time_ns, time_ns, 0.0, std::move(args)});
  return true;
}

bool TraceEvents::counter(std::uint32_t pid, const std::string& name, const std::string& unit, Nanoseconds time_ns,
                          double value) {
  if (!admit(pid)) return false;
  events_.push_back(Event{pid, 0, 'C', name_id(name), time_ns, time_ns, value, {Arg{unit, 0, ""}}});
  return true;
}

namespace {

using json = nlohmann::json;

// ns as µs with three decimals: exact (no binary fraction in the text).
void put_us(std::string& out, Nanoseconds ns) {
  out += std::to_string(ns / 1000);
  const auto frac = static_cast<int>(ns % 1000);
  if (frac == 0) return;
  char buf[8];
  std::snprintf(buf, sizeof buf, ".%03d", frac);
  out += buf;
}

void put_string(std::string& out, const std::string& s) { out += json(s).dump(-1, ' ', false, json::error_handler_t::replace); }

void put_number(std::string& out, double v) {
  if (!std::isfinite(v)) v = 0;
  out += json(v).dump();
}

}  // namespace

std::string TraceEvents::json() const {
  // Lanes: slices of one track that overlap go to the first lane whose last
  // slice has ended (greedy interval partitioning, by start time).
  std::vector<std::vector<std::size_t>> by_track(tracks_.size());
  for (std::size_t e = 0; e < events_.size(); ++e) {
    if (events_[e].phase == 'X') by_track[events_[e].track].push_back(e);
  }
  std::vector<std::uint32_t> lane_of(events_.size(), 0);
  std::vector<std::uint32_t> lanes(tracks_.size(), 1);
  for (std::size_t t = 0; t < tracks_.size(); ++t) {
    std::vector<std::size_t>& list = by_track[t];
    std::stable_sort(list.begin(), list.end(), [&](std::size_t a, std::size_t b) {
      return events_[a].start_ns < events_[b].start_ns;
    });
    std::vector<Nanoseconds> lane_end;
    for (std::size_t e : list) {
      std::size_t lane = 0;
      while (lane < lane_end.size() && lane_end[lane] > events_[e].start_ns) ++lane;
      if (lane == lane_end.size()) lane_end.push_back(0);
      lane_end[lane] = events_[e].end_ns;
      lane_of[e] = static_cast<std::uint32_t>(lane);
    }
    lanes[t] = static_cast<std::uint32_t>(std::max<std::size_t>(1, lane_end.size()));
  }
  std::vector<std::uint32_t> first_tid(tracks_.size());
  std::map<std::uint32_t, std::uint32_t> next_tid;  // per pid
  std::string out;
  out.reserve(events_.size() * 120 + 4096);
  // No displayTimeUnit: Perfetto reads "ns" there as the unit of ts itself.
  out += "{\"traceEvents\":[\n";
  bool first = true;
  auto begin_event = [&] {
    if (!first) out += ",\n";
    first = false;
  };
  for (std::size_t p = 0; p < processes_.size(); ++p) {
    const auto pid = static_cast<std::uint32_t>(p + 1);
    begin_event();
    out += "{\"ph\":\"M\",\"pid\":" + std::to_string(pid) + ",\"tid\":0,\"name\":\"process_name\",\"args\":{\"name\":";
    put_string(out, processes_[p].name);
    out += "}},\n{\"ph\":\"M\",\"pid\":" + std::to_string(pid) +
           ",\"tid\":0,\"name\":\"process_sort_index\",\"args\":{\"sort_index\":" + std::to_string(pid) + "}}";
  }
  for (std::size_t t = 0; t < tracks_.size(); ++t) {
    const std::uint32_t pid = tracks_[t].pid;
    std::uint32_t& tid = next_tid[pid];
    first_tid[t] = tid + 1;
    for (std::uint32_t lane = 0; lane < lanes[t]; ++lane) {
      ++tid;
      const std::string name = lane == 0 ? tracks_[t].name : tracks_[t].name + " (" + std::to_string(lane + 1) + ")";
      begin_event();
      out += "{\"ph\":\"M\",\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(tid) +
             ",\"name\":\"thread_name\",\"args\":{\"name\":";
      put_string(out, name);
      out += "}},\n{\"ph\":\"M\",\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(tid) +
             ",\"name\":\"thread_sort_index\",\"args\":{\"sort_index\":" + std::to_string(tid) + "}}";
    }
  }
  // In time order, so that every track (and counter) is monotonic in ts as
  // streaming consumers want; at one ts the longer slice (the parent) first.
  std::vector<std::size_t> order(events_.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (events_[a].start_ns != events_[b].start_ns) return events_[a].start_ns < events_[b].start_ns;
    return events_[a].end_ns > events_[b].end_ns;
  });
  for (const std::size_t e : order) {
    const Event& ev = events_[e];
    begin_event();
    out += "{\"ph\":\"";
    out += ev.phase;
    out += "\",\"pid\":" + std::to_string(ev.pid);
    out += ",\"tid\":" + std::to_string(ev.phase == 'C' ? 0 : first_tid[ev.track] + lane_of[e]);
    out += ",\"name\":";
    put_string(out, names_[ev.name]);
    out += ",\"ts\":";
    put_us(out, ev.start_ns);
    if (ev.phase == 'X') {
      out += ",\"dur\":";
      put_us(out, ev.end_ns - ev.start_ns);
    } else if (ev.phase == 'i') {
      out += ",\"s\":\"t\"";
    }
    out += ",\"args\":{";
    if (ev.phase == 'C') {
      put_string(out, ev.args.front().key);
      out += ":";
      put_number(out, ev.value);
    } else {
      for (std::size_t a = 0; a < ev.args.size(); ++a) {
        if (a) out += ",";
        put_string(out, ev.args[a].key);
        out += ":";
        if (!ev.args[a].text.empty()) put_string(out, ev.args[a].text);
        else out += std::to_string(ev.args[a].number);
      }
    }
    out += "}}";
  }
  out += "\n],\n\"metadata\":";
  nlohmann::ordered_json meta;
  nlohmann::ordered_json sides = nlohmann::ordered_json::array();
  for (const Process& p : processes_) {
    sides.push_back({{"process", p.name}, {"events", p.events}, {"dropped", p.dropped}, {"truncated", p.dropped > 0}});
  }
  meta["flashsim"] = {{"max_events_per_process", max_events_}, {"processes", sides}, {"notes", notes_}};
  out += meta.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
  out += "\n}\n";
  return out;
}

void TraceEvents::write(const std::filesystem::path& path) const { write_file_atomically(path, json()); }

namespace {

// ---- reading a results folder ----

struct ResultsRun {
  std::filesystem::path summary, h5, dir;
  nlohmann::ordered_json doc;  // summary.json
  nlohmann::ordered_json run;  // its runs[k]
  std::size_t index = 0, count = 0;
  std::string engine, label;
};

ResultsRun read_results_run(const std::filesystem::path& input, std::size_t run) {
  ResultsRun r;
  SummaryJson summary = read_summary_json(input);
  r.summary = summary.file;
  r.dir = r.summary.parent_path();
  if (r.dir.empty()) r.dir = ".";
  r.h5 = r.dir / "results.h5";
  r.doc = std::move(summary.doc);
  const nlohmann::ordered_json& runs = r.doc["runs"];
  r.count = runs.size();
  for (std::size_t k = 0; k < runs.size(); ++k) {
    if (runs[k].is_object() && runs[k].contains("run") && runs[k]["run"].is_number_unsigned() &&
        runs[k]["run"].get<std::size_t>() == run) {
      r.run = runs[k];
      r.index = k;
    }
  }
  if (r.run.is_null()) {
    throw InputError(r.summary.string() + ": no run " + std::to_string(run) + " (it has " + std::to_string(runs.size()) +
                     " run(s), 0 to " + std::to_string(runs.empty() ? 0 : runs.size() - 1) + "); choose one with --run");
  }
  const std::string where = r.summary.string() + ": runs[" + std::to_string(r.index) + "]";
  for (const char* key : {"engine", "policy_label", "capacity_text"}) {
    if (!r.run.contains(key) || !r.run[key].is_string()) throw InputError(where + ": lacks '" + key + "' (a string)");
  }
  for (const char* key : {"point", "policy_index", "simulated_ns", "accesses"}) {
    if (!r.run.contains(key) || !r.run[key].is_number()) throw InputError(where + ": lacks '" + key + "' (a number)");
  }
  r.engine = r.run["engine"].get<std::string>();
  r.label = "run " + std::to_string(run) + ": " + r.run["policy_label"].get<std::string>() + " @ " +
            r.run["capacity_text"].get<std::string>();
  if (r.run.contains("point_label") && r.run["point_label"].is_string() && !r.run["point_label"].get<std::string>().empty()) {
    r.label += " [" + r.run["point_label"].get<std::string>() + "]";
  }
  return r;
}

// A column of /timeseries/run_NNN as doubles (HDF5 converts the integers).
std::vector<double> read_column(hid_t group, const char* name, const std::string& where) {
  return read_timeseries_column<double>(group, name, H5T_NATIVE_DOUBLE, where);
}

// The run's windows as counters: hit ratio by access and link utilisation
// (and the occupancy at each window's end when `occupancy`).
void add_window_counters(TraceEvents& events, std::uint32_t pid, const ResultsRun& r, Nanoseconds span_ns,
                         bool occupancy) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(r.h5, ec)) throw InputError("no " + r.h5.string() + " beside " + r.summary.string());
  h5::QuietErrors quiet;
  auto file = h5::open_file_read(r.h5.string());
  const std::string name = timeseries_group_name(r.run["run"].get<std::size_t>(), r.count);
  const std::string where = r.h5.string() + ": /timeseries/" + name;
  if (!h5::link_exists(file.get(), "timeseries")) throw InputError(r.h5.string() + " lacks /timeseries");
  auto top = h5::open_group(file.get(), "timeseries");
  if (!h5::link_exists(top.get(), name.c_str())) throw InputError(where + ": no such group");
  auto g = h5::open_group(top.get(), name.c_str());
  const std::vector<double> start = read_column(g.get(), "start_ns", where);
  const std::vector<double> hit = read_column(g.get(), "hit_ratio_by_access", where);
  const std::vector<double> util = read_column(g.get(), "link_utilisation", where);
  const std::vector<double> occ = occupancy ? read_column(g.get(), "occupancy_bytes", where) : std::vector<double>{};
  if (hit.size() != start.size() || util.size() != start.size() || (occupancy && occ.size() != start.size())) {
    throw InputError(where + ": its columns differ in length");
  }
  for (std::size_t k = 0; k < start.size(); ++k) {
    const auto t = static_cast<Nanoseconds>(start[k]);
    events.counter(pid, "hit ratio", "by access", t, hit[k]);
    events.counter(pid, "link utilisation", "share", t, util[k]);
    if (occupancy) {
      const Nanoseconds end = k + 1 < start.size() ? static_cast<Nanoseconds>(start[k + 1]) : span_ns;
      events.counter(pid, "fast tier occupancy", "bytes", end, occ[k]);
    }
  }
}

// ---- the simulator side ----

struct TimelineFull {};  // thrown by the recorder to end the re-run at the cap

const char* kind_name(AccessKind k) {
  switch (k) {
    case AccessKind::hit: return "hit";
    case AccessKind::delayed_hit: return "delayed hit";
    case AccessKind::miss: return "miss";
    case AccessKind::bypass: return "bypass";
    case AccessKind::write_allocated: return "write allocation";
    case AccessKind::written_through: return "write-through";
  }
  return "access";
}

class Recorder final : public IEngineObserver {
 public:
  Recorder(TraceEvents& events, std::uint32_t pid, const HardwareProfile& hw) : ev_(events), pid_(pid), hw_(hw) {}

  Nanoseconds covered_ns() const { return covered_; }

  void on_access(const ObservedAccess& a) override {
    pending_[a.record] = a;
    reach(a.issue_ns);
  }
  void on_access_done(std::uint64_t record, Nanoseconds done_ns, bool stalled) override {
    const auto it = pending_.find(record);
    if (it == pending_.end()) return;
    const ObservedAccess a = it->second;
    pending_.erase(it);
    const StreamTracks& s = stream(a.stream_id);
    std::vector<TraceEvents::Arg> args{{"block", static_cast<std::int64_t>(a.block), ""},
                                       {"bytes", static_cast<std::int64_t>(a.bytes), ""},
                                       {"record", static_cast<std::int64_t>(a.record), ""}};
    put(ev_.slice(s.accesses, kind_name(a.kind), a.issue_ns, done_ns, args), done_ns);
    if (stalled) put(ev_.slice(s.stalls, "stall", a.issue_ns, done_ns, std::move(args)), done_ns);
  }
  void on_compute(std::uint32_t stream_id, Nanoseconds start_ns, Nanoseconds end_ns) override {
    put(ev_.slice(stream(stream_id).compute, "compute", start_ns, end_ns), start_ns);
  }
  void on_copy(const ObservedCopy& c) override {
    const std::uint32_t t = link_track(c.from_tier);
    const char* name = c.prefetch ? "prefetch copy" : c.bypass ? "bypass copy" : "copy";
    put(ev_.slice(t, name, c.start_ns, c.end_ns,
                  {{"block", static_cast<std::int64_t>(c.block), ""}, {"bytes", static_cast<std::int64_t>(c.bytes), ""}}),
        c.end_ns);
  }
  void on_departure(Nanoseconds now_ns, BlockId block, ByteCount bytes, bool dirty, DepartureCause cause) override {
    const char* name = cause == DepartureCause::eviction             ? "evict"
                       : cause == DepartureCause::prefetcher_evicted ? "evict (prefetcher)"
                                                                      : "free (request ended)";
    std::vector<TraceEvents::Arg> args{{"block", static_cast<std::int64_t>(block), ""},
                                       {"bytes", static_cast<std::int64_t>(bytes), ""},
                                       {"dirty", dirty ? 1 : 0, ""}};
    put(ev_.instant(ev_.track(pid_, "evictions"), name, now_ns, args), now_ns);
    if (dirty) put(ev_.instant(write_back_track(), "write-back", now_ns, std::move(args)), now_ns);
  }
  void on_prefetch(Nanoseconds now_ns, BlockId block, ByteCount bytes) override {
    put(ev_.instant(ev_.track(pid_, "prefetches"), "prefetch", now_ns,
                    {{"block", static_cast<std::int64_t>(block), ""}, {"bytes", static_cast<std::int64_t>(bytes), ""}}),
        now_ns);
  }
  void on_occupancy(Nanoseconds now_ns, ByteCount reserved_bytes) override {
    if (have_occupancy_ && reserved_bytes == occupancy_) return;
    have_occupancy_ = true;
    occupancy_ = reserved_bytes;
    put(ev_.counter(pid_, "fast tier occupancy", "bytes", now_ns, static_cast<double>(reserved_bytes)), now_ns);
  }

 private:
  struct StreamTracks {
    std::uint32_t accesses, compute, stalls;
  };
  const StreamTracks& stream(std::uint32_t id) {
    auto it = streams_.find(id);
    if (it == streams_.end()) {
      const std::string s = "stream " + std::to_string(id);
      it = streams_.emplace(id, StreamTracks{ev_.track(pid_, s + " accesses"), ev_.track(pid_, s + " compute"),
                                             ev_.track(pid_, s + " stalls")}).first;
    }
    return it->second;
  }
  std::uint32_t link_track(std::uint32_t from) {
    const std::string name = "link " + hw_.tiers.at(from).name + "->" + hw_.tiers.at(from - 1).name + " (H2D)";
    return ev_.track(pid_, name);
  }
  std::uint32_t write_back_track() {
    return ev_.track(pid_, "link " + hw_.tiers.at(0).name + "->" + hw_.tiers.at(1).name + " (D2H)");
  }
  void reach(Nanoseconds t) { covered_ = std::max(covered_, t); }
  // An event was recorded (or the cap refused it: the re-run stops there).
  void put(bool recorded, Nanoseconds t) {
    if (!recorded) throw TimelineFull{};
    reach(t);
  }

  TraceEvents& ev_;
  std::uint32_t pid_;
  const HardwareProfile& hw_;
  std::map<std::uint32_t, StreamTracks> streams_;
  std::unordered_map<std::uint64_t, ObservedAccess> pending_;
  Nanoseconds covered_ = 0;
  ByteCount occupancy_ = 0;
  bool have_occupancy_ = false;
};

TimelineSide add_simulator_run(TraceEvents& events, const ResultsRun& r) {
  TimelineSide side;
  side.process = "simulator";
  side.run_label = r.label;
  side.span_ns = r.run["simulated_ns"].get<Nanoseconds>();
  const std::size_t point = r.run["point"].get<std::size_t>();
  const std::size_t policy = r.run["policy_index"].get<std::size_t>();

  std::vector<std::string> texts;
  {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(r.h5, ec)) {
      throw InputError("no " + r.h5.string() + " beside " + r.summary.string() +
                       ": the timeline re-runs the resolved scenario it holds");
    }
    h5::QuietErrors quiet;
    auto file = h5::open_file_read(r.h5.string());
    if (!h5::link_exists(file.get(), "scenario")) {
      throw InputError(r.h5.string() + " lacks /scenario (the resolved scenarios) to re-run from");
    }
    auto ds = h5::open_dataset(file.get(), "scenario");
    texts = h5::read_strings(ds.get(), h5::length(ds.get(), r.h5.string() + ": /scenario"));
  }
  if (point >= texts.size()) {
    throw InputError(r.h5.string() + ": /scenario has " + std::to_string(texts.size()) + " point(s), run " +
                     std::to_string(r.run["run"].get<std::size_t>()) + " is of point " + std::to_string(point));
  }
  // Relative paths of a resolved scenario are anchored where the scenario
  // file was, as diagnose's levers do.
  const std::string source = r.doc.value("scenario_source", "");
  const std::filesystem::path base =
      source.empty() || source.front() == '<' ? std::filesystem::current_path() : std::filesystem::path(source).parent_path();
  const ScenarioDocument document =
      ScenarioDocument::from_text(texts[point], r.h5.string() + " point " + std::to_string(point), base);

  const std::uint32_t pid = events.add_process("simulator");
  RunnerOptions options;
  options.jobs = 1;  // runs in policy order: the call count names the policy
  std::size_t call = 0;
  Nanoseconds covered = 0;
  bool truncated = false;
  options.engine = [&](ITraceSource& trace, const EngineConfig& config, const ComponentChoice&, const EngineContext&) {
    if (call++ != policy) return EngineResult{};  // another policy of the point: not needed
    Recorder recorder(events, pid, config.hardware);
    EngineResult result;
    try {
      result = run_engine(trace, config, nullptr, &recorder);
    } catch (const TimelineFull&) {
      truncated = true;
    }
    covered = recorder.covered_ns();
    return result;
  };
  const ScenarioResults rerun = run_scenario(document, options);
  side.covered_ns = truncated ? covered : side.span_ns;
  if (!truncated && policy < rerun.runs.size()) {
    const RunMetrics& m = rerun.runs[policy].result.metrics;
    const auto stored_accesses = r.run["accesses"].get<std::uint64_t>();
    if (m.simulated_ns != side.span_ns || m.total.accesses != stored_accesses) {
      side.note = "the re-run differs from the stored run (simulated " + std::to_string(m.simulated_ns) + " ns vs " +
                  std::to_string(side.span_ns) + ", accesses " + std::to_string(m.total.accesses) + " vs " +
                  std::to_string(stored_accesses) + "): the scenario's inputs or flashsim changed since";
    }
  }
  add_window_counters(events, pid, r, side.span_ns, false);
  side.events = events.written(pid);
  side.dropped = events.dropped(pid);
  if (truncated && side.dropped == 0) side.dropped = 1;  // the refused event; the rest were never made
  return side;
}

// ---- the hardware side ----

TimelineSide add_hardware_run(TraceEvents& events, const ResultsRun& r) {
  TimelineSide side;
  side.process = "hardware";
  side.run_label = r.label;
  side.span_ns = r.run["simulated_ns"].get<Nanoseconds>();
  // The access log's file name: the run's replay.access_log text (the
  // gpu_replay engine), or replay[i].access_log in results written before it.
  std::string where = r.summary.string() + ": runs[" + std::to_string(r.index) + "]";
  std::string name;
  bool found = false;
  if (r.run.contains("component_texts") && r.run["component_texts"].is_array()) {
    for (const auto& t : r.run["component_texts"]) {
      if (t.is_object() && t.value("component", "") == "replay" && t.value("name", "") == "access_log" &&
          t.contains("text") && t["text"].is_string()) {
        name = t["text"].get<std::string>();
      }
    }
    found = true;
  } else if (r.doc.contains("replay") && r.doc["replay"].is_array() && r.index < r.doc["replay"].size()) {
    where = r.summary.string() + ": replay[" + std::to_string(r.index) + "]";
    const nlohmann::ordered_json& rep = r.doc["replay"][r.index];
    if (rep.is_object() && rep.contains("access_log") && rep["access_log"].is_string()) {
      name = rep["access_log"].get<std::string>();
    }
    found = true;
  }
  if (!found) {
    throw InputError(r.summary.string() + ": run " + std::to_string(r.index) +
                     " has no replay statistics (a results folder of flashsim replay?)");
  }
  if (name.empty()) throw InputError(where + ": names no access_log (replayed with --no-access-log?)");
  const std::filesystem::path log = r.dir / name;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(log, ec)) throw InputError(log.string() + ": the run's access log is missing");

  const std::uint32_t pid = events.add_process("hardware");
  std::unique_ptr<ITraceSource> trace = open_trace(log);
  std::map<std::uint32_t, std::pair<std::uint32_t, std::uint32_t>> tracks;  // stream -> accesses, compute
  std::vector<AccessRecord> chunk(4096);
  Nanoseconds prev_end = -1;
  std::uint64_t index = 0;
  bool full = false;
  while (!full) {
    const std::size_t n = trace->read(chunk);
    if (n == 0) break;
    for (std::size_t k = 0; k < n && !full; ++k, ++index) {
      const AccessRecord& a = chunk[k];
      auto it = tracks.find(a.stream_id);
      if (it == tracks.end()) {
        const std::string s = "stream " + std::to_string(a.stream_id);
        it = tracks.emplace(a.stream_id, std::make_pair(events.track(pid, s + " accesses"), events.track(pid, s + " compute")))
                 .first;
      }
      // time_ns: the consume kernel's start, compute_ns: its duration (hw/replay/replay.h).
      const Nanoseconds start = a.time_ns, end = a.time_ns + a.compute_ns;
      const Nanoseconds issue = prev_end < 0 ? start : std::min(prev_end, start);
      std::vector<TraceEvents::Arg> args{{"block", static_cast<std::int64_t>(a.block_id), ""},
                                         {"bytes", static_cast<std::int64_t>(a.bytes), ""},
                                         {"record", static_cast<std::int64_t>(index), ""}};
      full = !events.slice(it->second.first, "access", issue, start, args) ||
             !events.slice(it->second.second, "kernel", start, end, std::move(args));
      if (!full) side.covered_ns = std::max(side.covered_ns, end);
      prev_end = end;
    }
  }
  if (!full) side.covered_ns = std::max(side.covered_ns, side.span_ns);
  add_window_counters(events, pid, r, side.span_ns, true);
  side.events = events.written(pid);
  side.dropped = events.dropped(pid);
  return side;
}

}  // namespace

TimelineSide add_results_run(TraceEvents& events, const std::filesystem::path& results, const TimelineOptions& options) {
  const ResultsRun r = read_results_run(results, options.run);
  if (r.engine == "gpu_replay") return add_hardware_run(events, r);
  if (r.engine == "event") return add_simulator_run(events, r);
  if (r.engine == "cache_only") {
    throw InputError(r.summary.string() + ": run " + std::to_string(options.run) +
                     " ran the cache-only engine, which has no time to put on a timeline; run the scenario with "
                     "engine: event");
  }
  if (r.engine == "program") {
    throw InputError(r.summary.string() + ": run " + std::to_string(options.run) +
                     " is a captured program (engine: program); its per-step timeline is in the capture");
  }
  throw InputError(r.summary.string() + ": run " + std::to_string(options.run) + " has engine '" + r.engine +
                   "', which the timeline does not know");
}

}  // namespace flashsim::report
