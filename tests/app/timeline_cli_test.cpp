// `flashsim timeline`: the events of a three-access run on the h200 profile
// checked by hand (copy = link latency + bytes / bandwidth, a hit has no
// copy), a replay's access log converted with the same track names, the
// event cap, and bad input named.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

#include "tests/app/app_test_util.h"
#include "tests/support/temp_dir.h"

namespace flashsim {
namespace {

using json = nlohmann::json;

// One stream: blocks 0, 1, 0 of 1 MiB, 10 µs of compute after each.
const char* kTrace =
    "time_ns,block_id,bytes,stream_id,compute_ns\n"
    "0,0,1048576,0,10000\n"
    "1000,1,1048576,0,10000\n"
    "2000,0,1048576,0,10000\n";

struct Slice {
  std::string name;
  double ts_us = 0, dur_us = 0;
  json args;
};

// The trace's slices ('X') and instants ('i') by process name and track
// (thread) name, lanes included in the name.
struct Parsed {
  std::map<std::string, std::map<std::string, std::vector<Slice>>> slices;
  std::map<std::string, std::map<std::string, std::vector<std::pair<double, double>>>> counters;  // "NAME UNIT"
  json metadata;
};

Parsed parse(const std::string& text) {
  const json doc = json::parse(text);
  std::map<int, std::string> process;
  std::map<std::pair<int, int>, std::string> thread;
  for (const json& e : doc["traceEvents"]) {
    if (e["ph"] != "M") continue;
    if (e["name"] == "process_name") process[e["pid"].get<int>()] = e["args"]["name"].get<std::string>();
    if (e["name"] == "thread_name") {
      thread[{e["pid"].get<int>(), e["tid"].get<int>()}] = e["args"]["name"].get<std::string>();
    }
  }
  Parsed p;
  for (const json& e : doc["traceEvents"]) {
    const std::string ph = e["ph"];
    const std::string proc = process[e["pid"].get<int>()];
    if (ph == "X" || ph == "i") {
      Slice s{e["name"], e["ts"].get<double>(), ph == "X" ? e["dur"].get<double>() : 0.0, e["args"]};
      p.slices[proc][thread[{e["pid"].get<int>(), e["tid"].get<int>()}]].push_back(s);
    } else if (ph == "C") {
      for (const auto& [key, value] : e["args"].items()) {
        p.counters[proc][e["name"].get<std::string>() + " " + key].push_back({e["ts"].get<double>(), value.get<double>()});
      }
    }
  }
  p.metadata = doc["metadata"];
  return p;
}

class TimelineCli : public ::testing::Test {
 protected:
  void SetUp() override {
    test::write_file(dir_ / "t.csv", kTrace);
    const auto o = test::run_flashsim(dir_.path(),
                                      "run --trace t.csv --policies lru --capacity 4MiB --engine event --hardware h200 "
                                      "--out sim --no-progress");
    ASSERT_EQ(o.code, 0) << o.err;
  }
  test::TempDir dir_;
};

TEST_F(TimelineCli, SimulatorEventsByHand) {
  const auto o = test::run_flashsim(dir_.path(), "timeline sim --out t.json");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("simulator: sim run 0: lru @ 4MiB: "), std::string::npos) << o.out;
  const Parsed p = parse(test::read_file(dir_ / "t.json"));
  const auto& sim = p.slices.at("simulator");
  // h200: link host_dram->hbm 4.66 µs + 55.23 GB/s, fifo; hbm hit 336 ns;
  // TLB (2 MiB pages, 50 ns miss): blocks 0 and 1 share the first page, so
  // only the first access pays it. A 1 MiB copy: 4660 + ceil(1048576 / 55.23) = 4660 + 18986 ns.
  const double copy_us = (4660 + 18986) / 1e3;
  const auto& copies = sim.at("link host_dram->hbm (H2D)");
  ASSERT_EQ(copies.size(), 2u);  // the third access hits: no copy
  EXPECT_EQ(copies[0].name, "copy");
  EXPECT_DOUBLE_EQ(copies[0].ts_us, 0.050);  // after the TLB miss
  EXPECT_DOUBLE_EQ(copies[0].dur_us, copy_us);
  EXPECT_EQ(copies[0].args["block"], 0);
  EXPECT_EQ(copies[0].args["bytes"], 1048576);
  // Access 1 issues at 24.032 + 10 µs of compute and copies at once.
  EXPECT_DOUBLE_EQ(copies[1].ts_us, 34.032);
  EXPECT_DOUBLE_EQ(copies[1].dur_us, copy_us);
  EXPECT_EQ(copies[1].args["block"], 1);

  const auto& accesses = sim.at("stream 0 accesses");
  ASSERT_EQ(accesses.size(), 3u);
  EXPECT_EQ(accesses[0].name, "miss");
  EXPECT_DOUBLE_EQ(accesses[0].ts_us, 0);
  EXPECT_DOUBLE_EQ(accesses[0].dur_us, 24.032);  // 50 + 23646 + 336 ns
  EXPECT_EQ(accesses[1].name, "miss");
  EXPECT_DOUBLE_EQ(accesses[1].ts_us, 34.032);
  EXPECT_DOUBLE_EQ(accesses[1].dur_us, 23.982);  // 23646 + 336
  EXPECT_EQ(accesses[2].name, "hit");
  EXPECT_DOUBLE_EQ(accesses[2].ts_us, 68.014);   // 58.014 + 10
  EXPECT_DOUBLE_EQ(accesses[2].dur_us, 0.336);
  EXPECT_EQ(accesses[2].args["block"], 0);
  EXPECT_EQ(accesses[2].args["record"], 2);

  const auto& compute = sim.at("stream 0 compute");
  ASSERT_EQ(compute.size(), 2u);  // none after the last access
  EXPECT_DOUBLE_EQ(compute[0].ts_us, 24.032);
  EXPECT_DOUBLE_EQ(compute[0].dur_us, 10);
  // Stalls: the two misses' whole latencies, as stall_ns counts them.
  const auto& stalls = sim.at("stream 0 stalls");
  ASSERT_EQ(stalls.size(), 2u);
  const json summary = json::parse(test::read_file(dir_ / "sim" / "summary.json"));
  EXPECT_EQ(summary["runs"][0]["stall_ns"].get<long long>(), std::llround((stalls[0].dur_us + stalls[1].dur_us) * 1e3));
  EXPECT_EQ(summary["runs"][0]["stall_ns"], 48014);  // 24032 + 23982
  EXPECT_EQ(summary["runs"][0]["simulated_ns"], 68350);
  EXPECT_EQ(sim.count("evictions"), 0u);  // both blocks fit in 4 MiB
  // Occupancy: each miss reserves its block when decided.
  const auto& occ = p.counters.at("simulator").at("fast tier occupancy bytes");
  ASSERT_EQ(occ.size(), 2u);
  EXPECT_EQ(occ[0], std::make_pair(0.0, 1048576.0));
  EXPECT_EQ(occ[1], std::make_pair(34.032, 2097152.0));
  const auto& hit = p.counters.at("simulator").at("hit ratio by access");
  ASSERT_EQ(hit.size(), 1u);  // one window: the whole run
  EXPECT_DOUBLE_EQ(hit[0].second, 1.0 / 3);
  EXPECT_EQ(p.metadata["flashsim"]["processes"][0]["truncated"], false);
}

TEST_F(TimelineCli, EvictionsAndWriteBackTracks) {
  // 1 MiB of room: block 1 evicts block 0, block 0 evicts block 1.
  const auto r = test::run_flashsim(dir_.path(),
                                    "run --trace t.csv --policies lru --capacity 1MiB --engine event --hardware h200 "
                                    "--out small --no-progress");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto o = test::run_flashsim(dir_.path(), "timeline small --out s.json");
  ASSERT_EQ(o.code, 0) << o.err;
  const Parsed p = parse(test::read_file(dir_ / "s.json"));
  const auto& sim = p.slices.at("simulator");
  ASSERT_EQ(sim.at("link host_dram->hbm (H2D)").size(), 3u);
  const auto& evictions = sim.at("evictions");
  ASSERT_EQ(evictions.size(), 2u);
  EXPECT_EQ(evictions[0].name, "evict");
  EXPECT_EQ(evictions[0].args["block"], 0);
  EXPECT_DOUBLE_EQ(evictions[0].ts_us, 34.032);  // when access 1 is decided
  EXPECT_EQ(evictions[1].args["block"], 1);
  EXPECT_EQ(sim.count("link hbm->host_dram (D2H)"), 0u);  // reads only: nothing dirty
}

TEST_F(TimelineCli, ReplayLogSideBySide) {
  // A replay's results folder in the layout before the gpu_replay engine
  // (still read), made from the simulator's: engine gpu_replay, replay[0].access_log.
  std::filesystem::copy(dir_ / "sim", dir_ / "hw");
  json summary = json::parse(test::read_file(dir_ / "hw" / "summary.json"));
  summary["runs"][0]["engine"] = "gpu_replay";
  summary["replay"] = json::array({{{"access_log", "access_log_run_000.csv"}}});
  test::write_file(dir_ / "hw" / "summary.json", summary.dump());
  // time_ns = kernel start, compute_ns = kernel duration.
  test::write_file(dir_ / "hw" / "access_log_run_000.csv",
                   "time_ns,block_id,bytes,stream_id,compute_ns\n"
                   "0,0,1048576,0,12000\n"
                   "40000,1,1048576,0,12000\n"
                   "52500,0,1048576,0,12000\n");
  const auto o = test::run_flashsim(dir_.path(), "timeline sim hw --out both.json");
  ASSERT_EQ(o.code, 0) << o.err;
  const Parsed p = parse(test::read_file(dir_ / "both.json"));
  const auto& hw = p.slices.at("hardware");
  const auto& accesses = hw.at("stream 0 accesses");  // the same track name as the simulator's
  ASSERT_EQ(accesses.size(), 3u);
  EXPECT_EQ(accesses[1].name, "access");
  EXPECT_DOUBLE_EQ(accesses[1].ts_us, 12);   // the previous kernel's end
  EXPECT_DOUBLE_EQ(accesses[1].dur_us, 28);  // to this kernel's start: the replay's latency
  EXPECT_DOUBLE_EQ(accesses[2].dur_us, 0.5);
  const auto& kernels = hw.at("stream 0 compute");
  ASSERT_EQ(kernels.size(), 3u);
  EXPECT_EQ(kernels[2].name, "kernel");
  EXPECT_DOUBLE_EQ(kernels[2].ts_us, 52.5);
  EXPECT_DOUBLE_EQ(kernels[2].dur_us, 12);
  EXPECT_EQ(p.slices.at("simulator").at("stream 0 accesses").size(), 3u);
  EXPECT_EQ(p.counters.at("hardware").at("hit ratio by access").size(), 1u);
  // Without its access log the replay's run is refused, naming the file.
  std::filesystem::remove(dir_ / "hw" / "access_log_run_000.csv");
  const auto missing = test::run_flashsim(dir_.path(), "timeline hw --out x.json");
  EXPECT_EQ(missing.code, 2);
  EXPECT_NE(missing.err.find("access_log_run_000.csv: the run's access log is missing"), std::string::npos) << missing.err;
}

TEST_F(TimelineCli, ReplayLogNamedByTheEnginesComponentText) {
  // As the gpu_replay engine writes it (hw/replay/gpu_replay_engine.cpp):
  // the log's file name is the run's replay.access_log text.
  std::filesystem::copy(dir_ / "sim", dir_ / "hw");
  json summary = json::parse(test::read_file(dir_ / "hw" / "summary.json"));
  summary["runs"][0]["engine"] = "gpu_replay";
  summary["runs"][0]["component_texts"] = json::parse(
      R"([{"component": "device", "name": "name", "text": "GPU"},
          {"component": "replay", "name": "access_log", "text": "access_log_run_000.csv"}])");
  test::write_file(dir_ / "hw" / "summary.json", summary.dump());
  test::write_file(dir_ / "hw" / "access_log_run_000.csv",
                   "time_ns,block_id,bytes,stream_id,compute_ns\n0,0,1048576,0,12000\n40000,1,1048576,0,12000\n");
  const auto o = test::run_flashsim(dir_.path(), "timeline hw --out t.json");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(parse(test::read_file(dir_ / "t.json")).slices.at("hardware").at("stream 0 accesses").size(), 2u);
  // Replayed without a log: the texts name none.
  summary["runs"][0]["component_texts"] = json::parse(R"([{"component": "device", "name": "name", "text": "GPU"}])");
  test::write_file(dir_ / "hw" / "summary.json", summary.dump());
  const auto none = test::run_flashsim(dir_.path(), "timeline hw --out x.json");
  EXPECT_EQ(none.code, 2);
  EXPECT_NE(none.err.find("runs[0]: names no access_log"), std::string::npos) << none.err;
}

TEST_F(TimelineCli, CapTruncatesAndSaysSo) {
  const auto o = test::run_flashsim(dir_.path(), "timeline sim --out t.json --max-events 4");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("simulator truncated at --max-events 4"), std::string::npos) << o.out;
  const json doc = json::parse(test::read_file(dir_ / "t.json"));
  std::size_t events = 0;
  for (const json& e : doc["traceEvents"]) events += e["ph"] != "M";
  EXPECT_EQ(events, 4u);
  EXPECT_EQ(doc["metadata"]["flashsim"]["processes"][0]["truncated"], true);
  EXPECT_EQ(doc["metadata"]["flashsim"]["notes"].size(), 1u);
}

TEST_F(TimelineCli, BadInputIsNamed) {
  auto err = [&](const std::string& args) {
    const auto o = test::run_flashsim(dir_.path(), "timeline " + args);
    EXPECT_EQ(o.code, 2) << args << ": " << o.out;
    return o.err;
  };
  EXPECT_NE(err("sim --run 3 --out x.json").find("no run 3 (it has 1 run(s)"), std::string::npos);
  EXPECT_NE(err("nowhere --out x.json").find("cannot read 'nowhere' (a results folder of flashsim run, sweep merge or replay, or its summary.json)"), std::string::npos);
  const auto r = test::run_flashsim(dir_.path(), "run --trace t.csv --policies lru --capacity 4MiB --out co --no-progress");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(err("co --out x.json").find("cache-only engine, which has no time"), std::string::npos);
  std::filesystem::remove(dir_ / "sim" / "results.h5");
  EXPECT_NE(err("sim --out x.json").find("results.h5 beside"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(dir_ / "x.json"));
}

}  // namespace
}  // namespace flashsim
