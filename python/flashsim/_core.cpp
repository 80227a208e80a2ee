// The Python package's native core (pybind11): runs scenarios in-process,
// lists the registries, reads and writes canonical traces; components
// written in Python (python/native/python_components.h) and the GPU replay
// (python/native/replay_binding.h) are bound here too. The Python side
// (flashsim/__init__.py) turns results into pandas DataFrames.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstring>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "python/native/python_components.h"
#include "python/native/replay_binding.h"
#include "sim/scenario/quick_scenario.h"
#include "sim/core/errors.h"
#include "sim/policy/i_eviction_policy.h"
#include "sim/prefetch/i_prefetcher.h"
#include "sim/results/results_export.h"
#include "sim/results/results_writer.h"
#include "sim/results/timeseries_group.h"
#include "sim/run/scenario_runner.h"
#include "sim/scenario/scenario_document.h"
#include "traces/hdf5_trace.h"
#include "traces/record_validator.h"
#include "traces/trace_formats.h"
#include "traces/trace_source.h"

namespace py = pybind11;

namespace flashsim::python {
namespace {

// ---- running a scenario ----

// Runs `source` (a YAML file, YAML text, or "builtin:default") with `--set`
// style overrides and writes results.h5 + summary.json into `out`.
std::string run(const std::string& source, bool is_text, const std::vector<std::string>& sets, const std::string& out,
                unsigned jobs) {
  std::vector<Override> overrides;
  for (const auto& s : sets) overrides.push_back(parse_override(s));
  const ScenarioDocument document =
      is_text                      ? ScenarioDocument::from_text(source, "the scenario given to flashsim.run",
                                                                 std::filesystem::current_path(), overrides)
      : source == "builtin:default" ? ScenarioDocument::builtin_default(overrides)
                                    : ScenarioDocument::from_file(source, overrides);
  RunnerOptions options;
  options.jobs = jobs;
  options.artifacts_dir = out;
  ScenarioResults results;
  {
    py::gil_scoped_release release;  // Python policies take the GIL back per call
    results = run_scenario(document, options);
    write_results(out, results);
  }
  return out;
}

// ---- registries ----

template <class RegistryT>
py::list describe(const RegistryT& registry) {
  py::list out;
  for (const auto* e : registry.entries()) {
    py::list params;
    for (const ParamSpec& p : e->params) {
      params.append(py::dict(py::arg("name") = p.name, py::arg("type") = std::string(to_string(p.type)),
                             py::arg("default") = p.default_value, py::arg("doc") = p.doc));
    }
    out.append(py::dict(py::arg("name") = e->name, py::arg("summary") = e->summary, py::arg("params") = params));
  }
  return out;
}

// ---- traces ----

py::dict read_trace(const std::string& path, const std::string& format) {
  const std::unique_ptr<ITraceSource> source = open_trace(path, format);
  const std::vector<AccessRecord> records = read_all_records(*source);
  const std::size_t n = records.size();
  py::array_t<std::int64_t> time_ns(n), compute_ns(n), token_index(n);
  py::array_t<std::uint64_t> block_id(n), bytes(n), request_id(n), address(n), offset(n), next_use(n);
  py::array_t<std::uint32_t> stream_id(n), operator_id(n);
  py::array_t<std::uint8_t> op(n), phase(n);
  for (std::size_t i = 0; i < n; ++i) {
    const AccessRecord& r = records[i];
    time_ns.mutable_at(i) = r.time_ns;
    block_id.mutable_at(i) = r.block_id;
    bytes.mutable_at(i) = r.bytes;
    op.mutable_at(i) = static_cast<std::uint8_t>(r.op);
    stream_id.mutable_at(i) = r.stream_id;
    request_id.mutable_at(i) = r.request_id;
    token_index.mutable_at(i) = r.token_index;
    phase.mutable_at(i) = static_cast<std::uint8_t>(r.phase);
    operator_id.mutable_at(i) = r.operator_id;
    compute_ns.mutable_at(i) = r.compute_ns;
    address.mutable_at(i) = r.address;
    offset.mutable_at(i) = r.offset;
    next_use.mutable_at(i) = r.next_use_index;
  }
  py::dict columns(py::arg("time_ns") = time_ns, py::arg("block_id") = block_id, py::arg("bytes") = bytes,
                   py::arg("op") = op, py::arg("stream_id") = stream_id, py::arg("request_id") = request_id,
                   py::arg("token_index") = token_index, py::arg("phase") = phase, py::arg("operator_id") = operator_id,
                   py::arg("compute_ns") = compute_ns, py::arg("address") = address, py::arg("offset") = offset,
                   py::arg("next_use_index") = next_use);
  return py::dict(py::arg("columns") = columns, py::arg("source") = source->meta().source,
                  py::arg("has_next_use") = source->meta().has_next_use);
}

// A column of write_trace as exact-typed numpy data (flashsim.write_trace
// converted and range-checked it) of `n` rows (n < 0: any); empty when absent.
template <class T>
std::optional<py::array_t<T>> trace_column(const py::dict& columns, const char* name, py::ssize_t n) {
  if (!columns.contains(name)) return std::nullopt;
  auto a = columns[name].cast<py::array_t<T, py::array::c_style | py::array::forcecast>>();
  if (n >= 0 && a.size() != n) throw InputError(std::string("write_trace: column '") + name + "' has another length");
  return a;
}

// Writes the canonical HDF5 trace from columns (see flashsim.write_trace),
// each record checked by the readers' RecordValidator.
void write_trace(py::dict columns, const std::string& path) {
  const auto time = trace_column<std::int64_t>(columns, "time_ns", -1);
  if (!time) throw InputError("write_trace: column 'time_ns' is missing");
  const py::ssize_t n = time->size();
  const auto block = trace_column<std::uint64_t>(columns, "block_id", n);
  const auto bytes = trace_column<std::uint64_t>(columns, "bytes", n);
  if (!block || !bytes) throw InputError("write_trace: columns 'block_id' and 'bytes' are required");
  const auto stream = trace_column<std::uint32_t>(columns, "stream_id", n);
  const auto request = trace_column<std::uint64_t>(columns, "request_id", n);
  const auto token = trace_column<std::int32_t>(columns, "token_index", n);
  const auto op_id = trace_column<std::uint32_t>(columns, "operator_id", n);
  const auto compute = trace_column<std::int64_t>(columns, "compute_ns", n);
  const auto address = trace_column<std::uint64_t>(columns, "address", n);
  const auto offset = trace_column<std::uint64_t>(columns, "offset", n);
  const auto next_use = trace_column<std::uint64_t>(columns, "next_use_index", n);
  const auto op = trace_column<std::uint8_t>(columns, "op", n);
  const auto phase = trace_column<std::uint8_t>(columns, "phase", n);
  TraceMeta meta;
  meta.source = "flashsim.write_trace";
  meta.has_next_use = next_use.has_value();
  Hdf5TraceWriter writer(path, meta);
  RecordValidator validator;
  std::vector<AccessRecord> chunk;
  chunk.reserve(65536);
  for (py::ssize_t i = 0; i < n; ++i) {
    AccessRecord r;
    r.time_ns = time->at(i);
    r.block_id = block->at(i);
    r.bytes = bytes->at(i);
    if (stream) r.stream_id = stream->at(i);
    if (request) r.request_id = request->at(i);
    if (token) r.token_index = token->at(i);
    if (op_id) r.operator_id = op_id->at(i);
    if (compute) r.compute_ns = compute->at(i);
    if (address) r.address = address->at(i);
    if (offset) r.offset = offset->at(i);
    if (next_use) r.next_use_index = next_use->at(i);
    if (op) r.op = static_cast<AccessOp>(op->at(i));
    if (phase) r.phase = static_cast<Phase>(phase->at(i));
    if (const std::string problem = validator.check(r); !problem.empty()) {
      throw InputError("write_trace: row " + std::to_string(i) + ": " + problem);
    }
    chunk.push_back(r);
    if (chunk.size() == 65536) {
      writer.write(chunk);
      chunk.clear();
    }
  }
  writer.write(chunk);
  writer.finish();
}

}  // namespace
}  // namespace flashsim::python

PYBIND11_MODULE(_core, m) {
  using namespace flashsim;
  using namespace flashsim::python;
  m.doc() = "flashsim's native core (see the flashsim package)";
  // InputError derives from Error, in Python too. The types are never
  // freed (they outlive the module's last use at interpreter exit).
  static PyObject* const error_type = py::exception<Error>(m, "Error", PyExc_RuntimeError).inc_ref().ptr();
  static PyObject* const input_error_type = py::exception<InputError>(m, "InputError", error_type).inc_ref().ptr();
  py::register_exception_translator([](std::exception_ptr p) {
    // Messages quote input bytes (a garbled header): undecodable ones as
    // \xNN, never an empty message.
    const auto raise = [](PyObject* type, const char* what) {
      PyObject* text = PyUnicode_DecodeUTF8(what, static_cast<Py_ssize_t>(std::strlen(what)), "backslashreplace");
      PyErr_SetObject(type, text);
      Py_XDECREF(text);
    };
    try {
      if (p) std::rethrow_exception(p);
    } catch (const InputError& e) {
      raise(input_error_type, e.what());
    } catch (const Error& e) {
      raise(error_type, e.what());
    }
  });
  bind_component_types(m);
  m.def("run", &run, py::arg("source"), py::arg("is_text"), py::arg("sets"), py::arg("out"), py::arg("jobs") = 0);
  m.def("policies", [] { return describe(PolicyRegistry::instance()); });
  m.def("prefetchers", [] { return describe(PrefetcherRegistry::instance()); });
  m.def("read_trace", &read_trace, py::arg("path"), py::arg("format") = "");
  m.def("write_trace", &write_trace, py::arg("columns"), py::arg("path"));
  m.def("register_policy", &register_policy, py::arg("name"), py::arg("factory"), py::arg("summary") = "",
        py::arg("params") = py::dict());
  m.def("register_prefetcher", &register_prefetcher, py::arg("name"), py::arg("factory"), py::arg("summary") = "",
        py::arg("params") = py::dict());
  m.def(
      "export_csv",
      [](const std::string& results, const std::string& out) {
        return export_manifest_json(export_results_csv(results, out));
      },
      py::arg("results"), py::arg("out"), "the four result tables as CSV in OUT; returns their manifest (JSON)");
  m.def(
      "quick_scenario_yaml",
      [](const std::string& trace, const std::string& format, const std::vector<std::string>& policies,
         const std::vector<std::string>& capacities, const std::string& engine, const std::string& hardware) {
        QuickScenario q{trace, format, policies, capacities, engine, hardware, {}, {}};
        return quick_scenario_yaml(q);
      },
      py::arg("trace"), py::arg("format"), py::arg("policies"), py::arg("capacities"), py::arg("engine"),
      py::arg("hardware"), "the scenario of `flashsim run --trace` (YAML text)");
  m.def("timeseries_group_name", &timeseries_group_name, py::arg("index"), py::arg("count"));
  m.attr("have_replay") = have_replay();
}
