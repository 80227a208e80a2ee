#include "tests/fuzz/fuzz_targets.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <typeinfo>

#include "sim/core/errors.h"
#include "sim/engine/program/program_executor.h"
#include "sim/scenario/hardware_loader.h"
#include "sim/scenario/scenario_document.h"
#include "traces/trace_formats.h"
#include "traces/trace_source.h"

namespace flashsim::fuzz {
namespace {

// Inputs reach the readers as files, the only way users give them; tmpfs
// keeps that cheap at libFuzzer's rate.
std::filesystem::path scratch(std::string_view extension) {
  static const std::filesystem::path dir = [] {
    std::error_code ec;
    const std::filesystem::path shm = "/dev/shm";
    return std::filesystem::is_directory(shm, ec) ? shm : std::filesystem::temp_directory_path();
  }();
  return dir / ("flashsim-fuzz-" + std::to_string(::getpid()) + std::string(extension));
}

std::filesystem::path write_input(Input data, std::string_view extension) {
  const std::filesystem::path p = scratch(extension);
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
  if (!out) std::abort();  // the harness's own failure, not a finding
  return p;
}

template <class F>
bool expect_accept_or_refuse(F&& body) {
  try {
    body();
    return true;
  } catch (const Error&) {
    return false;  // a refusal with flashsim's own message: the expected outcome of junk
  } catch (const std::exception& e) {
    std::fprintf(stderr, "flashsim fuzz: uncaught %s: %s\n", typeid(e).name(), e.what());
    std::abort();
  }
}

bool read_trace(Input data, std::string_view extension, const std::string& format) {
  const std::filesystem::path p = write_input(data, extension);
  return expect_accept_or_refuse([&] {
    auto source = open_trace(p, format);
    source->meta();
    read_all_records(*source);
  });
}

bool csv(Input d) { return read_trace(d, ".csv", "csv"); }
bool oracle_general(Input d) { return read_trace(d, ".oracleGeneral.bin", "oraclegeneral"); }
bool kineto(Input d) { return read_trace(d, ".json", "kineto"); }
bool hdf5(Input d) { return read_trace(d, ".h5", "hdf5"); }

bool scenario(Input d) {
  const std::string_view text(reinterpret_cast<const char*>(d.data()), d.size());
  return expect_accept_or_refuse([&] {
    const ScenarioDocument doc = ScenarioDocument::from_text(text, "fuzz.yaml", scratch(".d"));
    const auto points = doc.points();
    // A few points suffice: every point resolves the same keys.
    for (std::size_t i = 0; i < points.size() && i < 4; ++i) doc.resolve(points[i]);
  });
}

// A capture's program (an .h5 of schema 2+) through the execution model,
// as `flashsim predict` and `engine: program` run it: as recorded, then
// behind a fast tier of half its bytes. Traces without a program are
// read and accepted (the hdf5 target covers their records).
bool program(Input d) {
  const std::filesystem::path p = write_input(d, ".h5");
  static const HardwareProfile hw = load_hardware_profile("h200-calibrated");
  return expect_accept_or_refuse([&] {
    auto source = open_trace(p, "hdf5");
    const TraceMeta meta = source->meta();
    const std::vector<AccessRecord> records = read_all_records(*source);
    if (!meta.program) return;
    ExecutorOptions o;
    run_program(meta, records, hw, o);
    ByteCount bytes = 0;
    for (const AccessRecord& r : records) bytes = std::max<ByteCount>(bytes, r.bytes);
    o.as_recorded = false;
    o.cache.capacity_bytes = std::max<ByteCount>(1, bytes / 2);
    run_program(meta, records, hw, o);
  });
}

constexpr std::array<Target, 6> kTargets{{
    {"csv", csv},
    {"oracle_general", oracle_general},
    {"kineto", kineto},
    {"hdf5", hdf5},
    {"scenario", scenario},
    {"program", program},
}};

}  // namespace

std::span<const Target> targets() { return kTargets; }

const Target& target(std::string_view name) {
  for (const Target& t : kTargets) {
    if (t.name == name) return t;
  }
  throw std::invalid_argument("no fuzz target " + std::string(name));
}

}  // namespace flashsim::fuzz
