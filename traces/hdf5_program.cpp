#include "traces/hdf5_program.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <iterator>
#include <vector>

#include "sim/core/errors.h"
#include "traces/hdf5_io.h"

namespace flashsim {

namespace {

constexpr const char* kProgramGroup = "program";

/// One column: its name, HDF5 types, and how to move it between ops and a buffer.
struct Column {
  const char* name;
  bool v3;  // schema v3: written with v3 facts only, absent in older files (reads as 0)
  std::uint64_t max;  // largest value the field holds (larger: corrupt)
  hid_t file_type;
  hid_t mem_type;
  std::function<std::uint64_t(const ProgramOp&)> get;
  std::function<void(ProgramOp&, std::uint64_t)> set;
};

const std::vector<Column>& columns() {
  static const std::vector<Column> c = {
      {"kind", false, 9, H5T_STD_U8LE, H5T_NATIVE_UINT64, [](const ProgramOp& o) { return std::uint64_t(o.kind); },
       [](ProgramOp& o, std::uint64_t v) { o.kind = static_cast<ProgramOpKind>(std::min<std::uint64_t>(v, 255)); }},
      {"thread", false, 0xFFFFFFFFu, H5T_STD_U32LE, H5T_NATIVE_UINT64, [](const ProgramOp& o) { return std::uint64_t(o.thread); },
       [](ProgramOp& o, std::uint64_t v) { o.thread = static_cast<std::uint32_t>(v); }},
      {"host_start_ns", false, std::uint64_t{1} << 62, H5T_STD_I64LE, H5T_NATIVE_UINT64, [](const ProgramOp& o) { return std::uint64_t(o.host_start_ns); },
       [](ProgramOp& o, std::uint64_t v) { o.host_start_ns = static_cast<Nanoseconds>(v); }},
      {"host_end_ns", false, std::uint64_t{1} << 62, H5T_STD_I64LE, H5T_NATIVE_UINT64, [](const ProgramOp& o) { return std::uint64_t(o.host_end_ns); },
       [](ProgramOp& o, std::uint64_t v) { o.host_end_ns = static_cast<Nanoseconds>(v); }},
      {"stream", false, 0xFFFFFFFFu, H5T_STD_U32LE, H5T_NATIVE_UINT64, [](const ProgramOp& o) { return std::uint64_t(o.stream); },
       [](ProgramOp& o, std::uint64_t v) { o.stream = static_cast<std::uint32_t>(v); }},
      {"event", false, 0xFFFFFFFFu, H5T_STD_U32LE, H5T_NATIVE_UINT64, [](const ProgramOp& o) { return std::uint64_t(o.event); },
       [](ProgramOp& o, std::uint64_t v) { o.event = static_cast<std::uint32_t>(v); }},
      {"gpu_ns", false, std::uint64_t{1} << 62, H5T_STD_I64LE, H5T_NATIVE_UINT64, [](const ProgramOp& o) { return std::uint64_t(o.gpu_ns); },
       [](ProgramOp& o, std::uint64_t v) { o.gpu_ns = static_cast<Nanoseconds>(v); }},
      {"gpu_start_ns", false, std::uint64_t{1} << 62, H5T_STD_I64LE, H5T_NATIVE_UINT64, [](const ProgramOp& o) { return std::uint64_t(o.gpu_start_ns); },
       [](ProgramOp& o, std::uint64_t v) { o.gpu_start_ns = static_cast<Nanoseconds>(v); }},
      {"bytes", false, std::uint64_t{1} << 50, H5T_STD_U64LE, H5T_NATIVE_UINT64, [](const ProgramOp& o) { return std::uint64_t(o.bytes); },
       [](ProgramOp& o, std::uint64_t v) { o.bytes = v; }},
      {"direction", false, 3, H5T_STD_U8LE, H5T_NATIVE_UINT64, [](const ProgramOp& o) { return std::uint64_t(o.direction); },
       [](ProgramOp& o, std::uint64_t v) { o.direction = static_cast<CopyDirection>(std::min<std::uint64_t>(v, 255)); }},
      {"host_memory", false, 2, H5T_STD_U8LE, H5T_NATIVE_UINT64, [](const ProgramOp& o) { return std::uint64_t(o.host_memory); },
       [](ProgramOp& o, std::uint64_t v) { o.host_memory = static_cast<HostMemory>(std::min<std::uint64_t>(v, 255)); }},
      {"blocking", false, 1, H5T_STD_U8LE, H5T_NATIVE_UINT64, [](const ProgramOp& o) { return std::uint64_t(o.blocking); },
       [](ProgramOp& o, std::uint64_t v) { o.blocking = v != 0; }},
      {"first_access", false, ~std::uint64_t{0}, H5T_STD_U64LE, H5T_NATIVE_UINT64, [](const ProgramOp& o) { return o.first_access; },
       [](ProgramOp& o, std::uint64_t v) { o.first_access = v; }},
      {"access_count", false, 0xFFFFFFFFu, H5T_STD_U32LE, H5T_NATIVE_UINT64, [](const ProgramOp& o) { return std::uint64_t(o.access_count); },
       [](ProgramOp& o, std::uint64_t v) { o.access_count = static_cast<std::uint32_t>(v); }},
      {"host_fresh_bytes", true, std::uint64_t{1} << 50, H5T_STD_U64LE, H5T_NATIVE_UINT64, [](const ProgramOp& o) { return std::uint64_t(o.host_fresh_bytes); },
       [](ProgramOp& o, std::uint64_t v) { o.host_fresh_bytes = v; }},
  };
  return c;
}

void write_u64s(hid_t loc, const char* name, const std::vector<std::uint64_t>& values) {
  const hsize_t chunk = std::clamp<hsize_t>(values.size(), 1, 65536);
  h5::Handle d = h5::create_extendible(loc, name, H5T_STD_U64LE, H5T_NATIVE_UINT64, chunk, 4, nullptr);
  h5::set_length(d.get(), values.size());
  if (!values.empty()) h5::write_range(d.get(), H5T_NATIVE_UINT64, 0, values.size(), values.data());
}

/// Reads a 1-D unsigned dataset; `expected` (if not npos) its length. Values
/// above `max` are corrupt.
std::vector<std::uint64_t> read_u64s(hid_t loc, const char* name, const std::string& where, std::size_t expected,
                                     std::uint64_t max) {
  if (!h5::link_exists(loc, name)) throw InputError(where + name + " is missing");
  h5::Handle d = h5::open_dataset(loc, name);
  const hsize_t n = h5::length(d.get(), where + name);
  if (expected != std::string::npos && n != expected) {
    throw InputError(where + name + " has " + std::to_string(n) + " entries, expected " + std::to_string(expected));
  }
  if (n > (hsize_t{1} << 24)) throw InputError(where + name + ": " + std::to_string(n) + " entries (too many)");
  std::vector<std::uint64_t> v(n);
  if (n > 0) h5::read_range(d.get(), H5T_NATIVE_UINT64, 0, n, v.data());
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (v[i] > max) throw InputError(where + name + "[" + std::to_string(i) + "] = " + std::to_string(v[i]) + " is out of range");
  }
  return v;
}

constexpr std::uint64_t kMaxTime = std::uint64_t{1} << 62;

void write_curve(hid_t host, const std::string& name, const std::vector<CopyTimePoint>& curve) {
  std::vector<std::uint64_t> b, t, n;
  for (const CopyTimePoint& p : curve) {
    b.push_back(p.bytes);
    t.push_back(static_cast<std::uint64_t>(p.ns));
    n.push_back(p.copies);
  }
  write_u64s(host, (name + "_bytes").c_str(), b);
  write_u64s(host, (name + "_ns").c_str(), t);
  write_u64s(host, (name + "_copies").c_str(), n);
}

std::vector<CopyTimePoint> read_curve(hid_t host, const std::string& name, const std::string& where) {
  const auto b = read_u64s(host, (name + "_bytes").c_str(), where, std::string::npos, std::uint64_t{1} << 50);
  const auto t = read_u64s(host, (name + "_ns").c_str(), where, b.size(), kMaxTime);
  const auto n = read_u64s(host, (name + "_copies").c_str(), where, b.size(), 0xFFFFFFFFu);
  std::vector<CopyTimePoint> curve(b.size());
  for (std::size_t i = 0; i < b.size(); ++i) {
    curve[i] = CopyTimePoint{b[i], static_cast<Nanoseconds>(t[i]), static_cast<std::uint32_t>(n[i])};
    const std::string at = where + name + "[" + std::to_string(i) + "]: ";
    // The profile's rule for copy curves (make_copy_curve): whole bytes >= 1, times in (0, 1e15) ns.
    if (b[i] == 0 || t[i] == 0 || t[i] >= 1'000'000'000'000'000ull || n[i] == 0) {
      throw InputError(at + "needs bytes >= 1, a time in (0, 1e15) ns and copies >= 1");
    }
    if (i > 0 && b[i] <= b[i - 1]) throw InputError(where + name + "_bytes is not increasing at [" + std::to_string(i) + "]");
    if (i > 0 && t[i] < t[i - 1]) throw InputError(at + "the time falls as the size grows: not a copy curve");
  }
  return curve;
}

const char* const kCurves[] = {"pageable_h2d", "pageable_d2h", "pageable_d2h_fresh"};

template <class Host>
auto& curve_of(Host& h, int k) {
  return k == 0 ? h.pageable_h2d : k == 1 ? h.pageable_d2h : h.pageable_d2h_fresh;
}

void write_host(hid_t group, const Program& program) {
  write_u64s(group, "repeat_marks_ns",
             std::vector<std::uint64_t>(program.repeat_marks_ns.begin(), program.repeat_marks_ns.end()));
  h5::Handle host = h5::create_group(group, "host");
  const CaptureHost& h = program.host;
  h5::write_attr_int(host.get(), "residency_recorded", H5T_STD_U8LE, h.residency_recorded ? 1 : 0);
  for (int k = 0; k < 3; ++k) write_curve(host.get(), kCurves[k], curve_of(h, k));
  std::vector<std::string> names;
  std::vector<std::uint64_t> plain, captured, gap;
  for (const CaptureCallCost& c : h.call_costs) {
    names.push_back(c.call);
    plain.push_back(static_cast<std::uint64_t>(c.plain_ns));
    captured.push_back(static_cast<std::uint64_t>(c.captured_ns));
    gap.push_back(static_cast<std::uint64_t>(c.recorded_gap_ns));
  }
  h5::write_strings(host.get(), "call_cost_call", names);
  write_u64s(host.get(), "call_cost_plain_ns", plain);
  write_u64s(host.get(), "call_cost_captured_ns", captured);
  write_u64s(host.get(), "call_cost_gap_ns", gap);
}

void read_host(hid_t group, const std::string& prefix, Program& program) {
  for (const std::uint64_t t : read_u64s(group, "repeat_marks_ns", prefix, std::string::npos, kMaxTime)) {
    program.repeat_marks_ns.push_back(static_cast<Nanoseconds>(t));
  }
  if (!std::is_sorted(program.repeat_marks_ns.begin(), program.repeat_marks_ns.end())) {
    throw InputError(prefix + "repeat_marks_ns is not sorted");
  }
  if (!h5::link_exists(group, "host")) throw InputError(prefix + "host is missing");
  h5::Handle host = h5::open_group(group, "host");
  const std::string where = prefix + "host/";
  CaptureHost& h = program.host;
  const auto residency = h5::read_attr_int(host.get(), "residency_recorded");
  if (!residency || (*residency != 0 && *residency != 1)) {
    throw InputError(where + " attribute residency_recorded is missing or not 0/1");
  }
  h.residency_recorded = *residency == 1;
  for (int k = 0; k < 3; ++k) curve_of(h, k) = read_curve(host.get(), kCurves[k], where);
  const auto plain = read_u64s(host.get(), "call_cost_plain_ns", where, std::string::npos, kMaxTime);
  const auto captured = read_u64s(host.get(), "call_cost_captured_ns", where, plain.size(), kMaxTime);
  const auto gap = read_u64s(host.get(), "call_cost_gap_ns", where, plain.size(), kMaxTime);
  if (!h5::link_exists(host.get(), "call_cost_call")) throw InputError(where + "call_cost_call is missing");
  h5::Handle names_d = h5::open_dataset(host.get(), "call_cost_call");
  if (h5::length(names_d.get(), where + "call_cost_call") != plain.size()) {
    throw InputError(where + "call_cost_call has another length than call_cost_plain_ns");
  }
  const std::vector<std::string> names = h5::read_strings(names_d.get(), plain.size());
  for (std::size_t i = 0; i < plain.size(); ++i) {
    if (!is_probe_call(names[i])) {
      throw InputError(where + "call_cost_call[" + std::to_string(i) + "] '" + names[i] + "' is not a probe call");
    }
    for (std::size_t j = 0; j < i; ++j) {
      if (names[j] == names[i]) throw InputError(where + "call_cost_call[" + std::to_string(i) + "] '" + names[i] + "' twice");
    }
    if (plain[i] >= 1'000'000'000'000ull || captured[i] >= 1'000'000'000'000ull || gap[i] >= 1'000'000'000'000ull) {
      throw InputError(where + "call_cost_*[" + std::to_string(i) + "]: a time of 1000 s or more per call");
    }
    h.call_costs.push_back(CaptureCallCost{names[i], static_cast<Nanoseconds>(plain[i]),
                                           static_cast<Nanoseconds>(captured[i]), static_cast<Nanoseconds>(gap[i])});
  }
}

}  // namespace

void write_program(hid_t file, const Program& program) {
  h5::Handle group = h5::create_group(file, kProgramGroup);
  const std::size_t n = program.ops.size();
  std::vector<std::uint64_t> buffer(n);
  const bool v3 = program.schema_version() >= 3;
  for (const Column& c : columns()) {
    if (c.v3 && !v3) continue;
    std::transform(program.ops.begin(), program.ops.end(), buffer.begin(), c.get);
    const hsize_t chunk = std::clamp<hsize_t>(n, 1, 65536);
    h5::Handle d = h5::create_extendible(group.get(), c.name, c.file_type, c.mem_type, chunk, 4, nullptr);
    h5::set_length(d.get(), n);
    if (n > 0) h5::write_range(d.get(), c.mem_type, 0, n, buffer.data());
  }
  h5::write_attr_int(group.get(), "thread_count", H5T_STD_U32LE, program.thread_count);
  h5::write_attr_int(group.get(), "stream_count", H5T_STD_U32LE, program.stream_count);
  h5::write_attr_int(group.get(), "event_count", H5T_STD_U32LE, program.event_count);
  h5::write_attr_string(group.get(), "step_rule", program.step_rule);
  if (v3) write_host(group.get(), program);
}

std::shared_ptr<const Program> read_program(hid_t file, const std::string& where, std::uint64_t record_count,
                                            int schema_version) {
  if (!h5::link_exists(file, kProgramGroup)) return nullptr;
  h5::Handle group = h5::open_group(file, kProgramGroup);
  const std::string prefix = where + ": /program/";
  auto program = std::make_shared<Program>();
  auto count_attr = [&](const char* name) -> std::uint32_t {
    const auto v = h5::read_attr_int(group.get(), name);
    if (!v || *v < 0 || *v > 0xFFFFFFFFll) throw InputError(prefix + " attribute " + name + " is missing or out of range");
    return static_cast<std::uint32_t>(*v);
  };
  program->thread_count = count_attr("thread_count");
  program->stream_count = count_attr("stream_count");
  program->event_count = count_attr("event_count");
  program->step_rule = h5::read_attr_string(group.get(), "step_rule").value_or("");
  std::vector<std::uint64_t> buffer;
  bool first = true;
  const bool v3 = schema_version >= 3;
  if (!v3) {
    // A file that says schema 2 but holds schema-3 facts was edited or written
    // by another tool: reading it as 2 would drop them without a word.
    std::string found = h5::link_exists(group.get(), "host") ? "host" : "";
    if (h5::link_exists(group.get(), "repeat_marks_ns")) found += (found.empty() ? "" : ", ") + std::string("repeat_marks_ns");
    for (const Column& c : columns()) {
      if (c.v3 && h5::link_exists(group.get(), c.name)) found += (found.empty() ? "" : ", ") + std::string(c.name);
    }
    if (!found.empty()) {
      throw InputError(prefix + " holds schema-3 data (" + found + ") but the file says schema_version " +
                       std::to_string(schema_version) + ": set the root attribute schema_version to 3, or remove them");
    }
  }
  for (const Column& c : columns()) {
    if (c.v3 && !v3) continue;
    if (!h5::link_exists(group.get(), c.name)) throw InputError(prefix + c.name + " is missing");
    h5::Handle d = h5::open_dataset(group.get(), c.name);
    const hsize_t n = h5::length(d.get(), prefix + c.name);
    if (first) {
      if (n > (hsize_t{1} << 32)) throw InputError(prefix + c.name + ": " + std::to_string(n) + " ops (too many)");
      program->ops.resize(n);
      first = false;
    } else if (n != program->ops.size()) {
      throw InputError(prefix + c.name + " has " + std::to_string(n) + " entries, /program/kind " +
                       std::to_string(program->ops.size()));
    }
    buffer.resize(n);
    if (n > 0) h5::read_range(d.get(), c.mem_type, 0, n, buffer.data());
    for (std::size_t i = 0; i < n; ++i) {
      if (buffer[i] > c.max) {
        throw InputError(prefix + c.name + "[" + std::to_string(i) + "] = " + std::to_string(buffer[i]) +
                         " is out of range (at most " + std::to_string(c.max) + ")");
      }
      c.set(program->ops[i], buffer[i]);
    }
  }
  if (v3) read_host(group.get(), prefix, *program);
  if (const std::string problem = check_program(*program, record_count); !problem.empty()) {
    throw InputError(prefix + " " + problem);
  }
  return program;
}

}  // namespace flashsim
