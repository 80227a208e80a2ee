// Trace format "cupti": a raw capture file (`*.raw`) or a folder of them, as
// `flashsim capture --keep-raw` leaves them, converted by the rules of
// traces/importers/cupti_capture.h. Held in memory (one capture).
#include <iostream>
#include <memory>

#include "traces/importers/cupti_capture.h"
#include "traces/importers/cupti_program.h"
#include "traces/trace_formats.h"

namespace flashsim {

namespace {

std::unique_ptr<ITraceSource> open_cupti(const ParamValues& p, const TraceOpenContext& c) {
  capture::ConvertOptions o;
  o.block_bytes = p.bytes("block_bytes");
  capture::parse_directions(p.text("directions"), o);
  o.compute = capture::parse_compute_attribution(p.text("compute"), "cupti option compute");
  o.tokens_from_marker = p.text("tokens") == "marker";
  std::vector<capture::RawCapture> raw;
  if (std::filesystem::is_directory(c.path)) {
    raw = capture::read_raw_capture_dir(c.path);
    if (raw.empty()) throw InputError(c.path.string() + ": no *.raw capture files in this folder");
  } else {
    raw.push_back(capture::read_raw_capture(c.path));
  }
  capture::ConvertedCapture converted = capture::convert_capture(raw, o, "cupti:" + c.path.string());
  capture::ProgramOptions po;
  po.step_marker = p.text("step_marker");
  po.step_kernel = p.text("step_kernel");
  if (std::filesystem::is_directory(c.path)) po.probe_dir = c.path / capture::kProbeFolder;
  capture::ProgramReport report;
  capture::attach_program(converted, raw, po, "cupti:" + c.path.string(), &report);
  for (const std::string& w : report.warnings) std::cerr << "flashsim: warning: " << w << "\n";
  return std::make_unique<MemoryTraceSource>(std::move(converted.meta), std::move(converted.records));
}

FLASHSIM_REGISTER_TRACE_FORMAT((TraceFormatRegistry::Entry{
    "cupti",
    "raw CUPTI capture (`flashsim capture --keep-raw`): a *.raw file or a folder of them (docs/capture.md)",
    {{"block_bytes", ParamType::bytes, "0", "split address ranges into pieces of this size (0: whole ranges)", 0,
      1e300, {}},
     {"directions", ParamType::text, "h2d,d2h", "copies that become accesses: h2d, d2h, d2d, memset", -1e300, 1e300,
      {}},
     {"compute", ParamType::choice, "kernels", "compute_ns per access: kernels (busy time), gap, none", -1e300, 1e300,
      {"kernels", "gap", "none"}},
     {"tokens", ParamType::choice, "marker", "token_index: marker (a pass per read of the most-read block) or none",
      -1e300, 1e300, {"marker", "none"}},
     {"step_marker", ParamType::text, "flashsim.step", "NVTX mark that starts a step of the program", -1e300, 1e300,
      {}},
     {"step_kernel", ParamType::text, "", "without step marks: a kernel-name substring that starts a step", -1e300,
      1e300, {}}},
    open_cupti}));

}  // namespace

}  // namespace flashsim
