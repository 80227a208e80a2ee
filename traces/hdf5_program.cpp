#include "traces/hdf5_program.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <vector>

#include "sim/core/errors.h"
#include "traces/hdf5_io.h"

namespace flashsim {

namespace {

constexpr const char* kProgramGroup = "program";

/// One column: its name, HDF5 types, and how to move it between ops and a buffer.
struct Column {
  const char* name;
  std::uint64_t max;  // largest value the field holds (larger: corrupt)
  hid_t file_type;
  hid_t mem_type;
  std::function<std::uint64_t(const ProgramOp&)> get;
  std::function<void(ProgramOp&, std::uint64_t)> set;
};

const std::vector<Column>& columns() {
  static const std::vector<Column> c = {
      {"kind", 9, H5T_STD_U8LE, H5T_NATIVE_UINT64, [](const ProgramOp& o) { return std::uint64_t(o.kind); },
       [](ProgramOp& o, std::uint64_t v) { o.kind = static_cast<ProgramOpKind>(std::min<std::uint64_t>(v, 255)); }},
      {"thread", 0xFFFFFFFFu, H5T_STD_U32LE, H5T_NATIVE_UINT64, [](const ProgramOp& o) { return std::uint64_t(o.thread); },
       [](ProgramOp& o, std::uint64_t v) { o.thread = static_cast<std::uint32_t>(v); }},
      {"host_start_ns", std::uint64_t{1} << 62, H5T_STD_I64LE, H5T_NATIVE_UINT64, [](const ProgramOp& o) { return std::uint64_t(o.host_start_ns); },
       [](ProgramOp& o, std::uint64_t v) { o.host_start_ns = static_cast<Nanoseconds>(v); }},
      {"host_end_ns", std::uint64_t{1} << 62, H5T_STD_I64LE, H5T_NATIVE_UINT64, [](const ProgramOp& o) { return std::uint64_t(o.host_end_ns); },
       [](ProgramOp& o, std::uint64_t v) { o.host_end_ns = static_cast<Nanoseconds>(v); }},
      {"stream", 0xFFFFFFFFu, H5T_STD_U32LE, H5T_NATIVE_UINT64, [](const ProgramOp& o) { return std::uint64_t(o.stream); },
       [](ProgramOp& o, std::uint64_t v) { o.stream = static_cast<std::uint32_t>(v); }},
      {"event", 0xFFFFFFFFu, H5T_STD_U32LE, H5T_NATIVE_UINT64, [](const ProgramOp& o) { return std::uint64_t(o.event); },
       [](ProgramOp& o, std::uint64_t v) { o.event = static_cast<std::uint32_t>(v); }},
      {"gpu_ns", std::uint64_t{1} << 62, H5T_STD_I64LE, H5T_NATIVE_UINT64, [](const ProgramOp& o) { return std::uint64_t(o.gpu_ns); },
       [](ProgramOp& o, std::uint64_t v) { o.gpu_ns = static_cast<Nanoseconds>(v); }},
      {"gpu_start_ns", std::uint64_t{1} << 62, H5T_STD_I64LE, H5T_NATIVE_UINT64, [](const ProgramOp& o) { return std::uint64_t(o.gpu_start_ns); },
       [](ProgramOp& o, std::uint64_t v) { o.gpu_start_ns = static_cast<Nanoseconds>(v); }},
      {"bytes", std::uint64_t{1} << 50, H5T_STD_U64LE, H5T_NATIVE_UINT64, [](const ProgramOp& o) { return std::uint64_t(o.bytes); },
       [](ProgramOp& o, std::uint64_t v) { o.bytes = v; }},
      {"direction", 3, H5T_STD_U8LE, H5T_NATIVE_UINT64, [](const ProgramOp& o) { return std::uint64_t(o.direction); },
       [](ProgramOp& o, std::uint64_t v) { o.direction = static_cast<CopyDirection>(std::min<std::uint64_t>(v, 255)); }},
      {"host_memory", 2, H5T_STD_U8LE, H5T_NATIVE_UINT64, [](const ProgramOp& o) { return std::uint64_t(o.host_memory); },
       [](ProgramOp& o, std::uint64_t v) { o.host_memory = static_cast<HostMemory>(std::min<std::uint64_t>(v, 255)); }},
      {"blocking", 1, H5T_STD_U8LE, H5T_NATIVE_UINT64, [](const ProgramOp& o) { return std::uint64_t(o.blocking); },
       [](ProgramOp& o, std::uint64_t v) { o.blocking = v != 0; }},
      {"first_access", ~std::uint64_t{0}, H5T_STD_U64LE, H5T_NATIVE_UINT64, [](const ProgramOp& o) { return o.first_access; },
       [](ProgramOp& o, std::uint64_t v) { o.first_access = v; }},
      {"access_count", 0xFFFFFFFFu, H5T_STD_U32LE, H5T_NATIVE_UINT64, [](const ProgramOp& o) { return std::uint64_t(o.access_count); },
       [](ProgramOp& o, std::uint64_t v) { o.access_count = static_cast<std::uint32_t>(v); }},
  };
  return c;
}

}  // namespace

void write_program(hid_t file, const Program& program) {
  h5::Handle group = h5::create_group(file, kProgramGroup);
  const std::size_t n = program.ops.size();
  std::vector<std::uint64_t> buffer(n);
  for (const Column& c : columns()) {
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
}

std::shared_ptr<const Program> read_program(hid_t file, const std::string& where, std::uint64_t record_count) {
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
  for (const Column& c : columns()) {
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
  if (const std::string problem = check_program(*program, record_count); !problem.empty()) {
    throw InputError(prefix + " " + problem);
  }
  return program;
}

}  // namespace flashsim
