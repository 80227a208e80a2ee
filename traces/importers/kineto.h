// PyTorch profiler (Kineto) chrome traces (format "kineto"): every
// host-to-device copy of a weight becomes an access of a weight block.
// Reads .json, gzip-compressed .json.gz (detected by the gzip magic) or
// zstd-compressed .json.zst (traces/byte_stream.h).
//
// Memory: the JSON text is parsed as it is read and decompressed, with
// nlohmann-json's SAX interface (no DOM, never the whole text); only
// gpu_memcpy, kernel and the program's events are kept. Kineto traces are
// the size of one profiling session (tens of MB), so the records it
// produces are built once and held in memory.
//
// The rules (docs/traces.md explains them with the recorded H200 trace):
//  * Copies: events with cat "gpu_memcpy", in time order (ts, then file
//    order). Direction from the name: "Memcpy HtoD" (host→device), "Memcpy
//    DtoH" (device→host); others (DtoD, PtoP) are counted and dropped.
//  * Forward passes: a pass starts at the first HtoD copy, and again at every
//    HtoD copy of the pass-start size (default: the size of the first HtoD
//    copy, the embedding) that directly follows a DtoH copy: autoregressive
//    generation must read the previous pass's output (logits or the sampled
//    token) back to the host before it can start the next token.
//  * Weights vs. inputs: under HF accelerate's cpu_offload every weight is
//    copied before its module runs, in the same order and with the same size
//    in every pass. Inputs (token ids, attention mask, positions) are copied
//    too but their sizes change between prefill and decode and as the
//    sequence grows. So: all passes must hold the same number of HtoD copies
//    (else InputError: weights cannot be aligned), and position p of a pass is
//    a weight iff its size is the same in every pass and at least io_max_bytes
//    (default 0: off). A varying position whose size in some pass reaches
//    the smallest weight's size is an InputError (refusing to guess). With a
//    single pass, every HtoD copy of at least io_max_bytes is a weight.
//  * Input copies and all DtoH copies are dropped, and counted in the report
//    (KinetoImportReport) and in meta().source.
//  * Records: block_id = position among the weight positions of a pass
//    (0 = the embedding); bytes = args.bytes; op = read; stream_id =
//    args.stream; token_index = pass index; phase = prefill for pass 0,
//    decode after (one generate() call); request_id = 0; time_ns = ts (µs,
//    parsed exactly from its decimal text) − ts of the first weight copy,
//    in ns, rounded to the nearest ns (halves away from zero).
//  * Catalog: one entry per weight position: position 0 "embedding" (kind
//    embedding, layer −1); the last position, if as large as the first,
//    "lm_head" (kind lm_head); between them the smallest period p ≥ 1 of the
//    size sequence that repeats at least twice gives layers: position
//    1 + L·p + j is "layers.L.j" (kind weight, layer L), and the remainder
//    after the last full period is "final.j" (kind weight, layer −1).
//  * Addresses: when every HtoD gpu_memcpy event carries args.src_address
//    (a number or "0x..." text; stock PyTorch traces do not, a post-processor
//    or a converted `flashsim capture` may), blocks are host source ranges
//    instead (traces/importers/copy_passes.h): every HtoD copy is an access
//    of block "host@0x<address>:<bytes>", no copy is judged an input.
//    args.dst_address is read too (kept for DtoH copies, which are dropped).
//  * Compute (option compute: kernels, the default; none: every compute_ns
//    is 0): events with cat "kernel" are GPU kernels (ts, dur in µs, parsed
//    exactly). The compute_ns of a kept weight copy = the summed dur of the
//    kernels that START at or after that copy ENDS (ts + dur) and before the
//    next kept weight copy starts: the kernels that run on the weight before
//    the next weight is fetched (dropped input and DtoH copies do not split
//    the interval). Kernels are classified by the last kept copy that started
//    at or before them: none → before_first; the last kept copy → after_last
//    (nothing follows to bound them; in the recorded trace: the final pass's
//    LM-head work); starting while that copy runs → during_copy. None of
//    these three is attributed; all are counted in KinetoImportReport.
//    kernel_ns_total = before_first + attributed + during_copy + after_last.
//    The recorded H200 trace: 7,400 kernels, 16.634 ms (= the summary's
//    kernel_busy_ms); docs/traces.md gives the split.
#pragma once
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "sim/core/params.h"
#include "traces/trace_source.h"

namespace flashsim {

/// Where a weight access's compute_ns comes from.
enum class KinetoCompute {
  none,     ///< compute_ns = 0 (the engine's closed-loop gap applies)
  kernels,  ///< summed recorded kernel durations after the copy (rule above)
};

struct KinetoImportOptions {
  /// Size of the copy that starts a forward pass (0: the first HtoD copy's size).
  ByteCount pass_start_bytes = 0;
  /// HtoD copies smaller than this are inputs whatever their position (0: off).
  ByteCount io_max_bytes = 0;
  /// Per-access compute from the recorded kernels (default) or none.
  KinetoCompute compute = KinetoCompute::kernels;
  /// Kineto only: also build the trace's program (schema 2,
  /// traces/importers/kineto_program.h) from the runtime calls.
  bool program = true;
};

/// What the importer saw and what it kept.
struct KinetoImportReport {
  std::uint64_t memcpy_events = 0;
  std::uint64_t htod_copies = 0;
  ByteCount htod_bytes = 0;
  std::uint64_t dtoh_copies = 0;  ///< dropped
  ByteCount dtoh_bytes = 0;
  std::uint64_t other_copies = 0;  ///< DtoD, PtoP, ...: dropped
  std::uint64_t passes = 0;
  std::uint64_t weight_blocks = 0;    ///< weight positions per pass
  std::uint64_t weight_accesses = 0;  ///< records produced
  ByteCount weight_bytes = 0;
  std::uint64_t input_copies = 0;  ///< HtoD copies judged inputs: dropped
  ByteCount input_bytes = 0;
  std::uint64_t layers = 0;             ///< from the period of the size sequence (0: none found)
  std::uint64_t weights_per_layer = 0;  ///< that period
  // GPU kernels (cat "kernel"), counted whatever the compute option.
  std::uint64_t kernels = 0;
  Nanoseconds kernel_ns_total = 0;          ///< summed dur of all kernels
  Nanoseconds kernel_ns_attributed = 0;     ///< summed compute_ns of the records (0 with compute: none)
  std::uint64_t kernels_attributed = 0;
  Nanoseconds kernel_ns_before_first = 0;   ///< kernels starting before the first kept copy
  std::uint64_t kernels_before_first = 0;
  Nanoseconds kernel_ns_during_copy = 0;    ///< kernels starting while a kept copy runs
  std::uint64_t kernels_during_copy = 0;
  Nanoseconds kernel_ns_after_last = 0;     ///< kernels starting at or after the last kept copy's start
  std::uint64_t kernels_after_last = 0;
};

struct CopyEvent;
struct KernelSpan;

/// The weight trace of a profile's copies, built once and held in memory
/// (traces/importers/copy_passes.h holds the rules): the common part of the
/// Kineto and Nsight Systems importers, which differ only in how they read
/// copies and kernels.
class CopyWeightTraceSource : public ITraceSource {
 public:
  const TraceMeta& meta() const override { return meta_; }
  std::size_t read(std::span<AccessRecord> out) override;
  void rewind() override { position_ = 0; }
  const KinetoImportReport& report() const { return report_; }
  const std::vector<AccessRecord>& records() const { return records_; }

 protected:
  /// Classifies `events` (and attributes `kernels`) by the rules above.
  /// `where` names the input in errors; `format` goes into meta().source.
  /// Throws InputError as weight_trace_from_copies.
  void build(std::vector<CopyEvent> events, const KinetoImportOptions& options, const std::string& where,
             const std::string& format, std::vector<KernelSpan> kernels);
  /// Sets meta().program (schema 2) unless `program` is empty.
  void attach_program(Program program);

 private:
  TraceMeta meta_;
  KinetoImportReport report_;
  std::vector<AccessRecord> records_;
  std::size_t position_ = 0;
};

class KinetoTraceSource final : public CopyWeightTraceSource {
 public:
  /// Parses and classifies the whole file. Throws InputError naming the file
  /// (unreadable, bad gzip, JSON error with its byte offset, no HtoD copy,
  /// passes that cannot be aligned).
  KinetoTraceSource(std::filesystem::path path, KinetoImportOptions options = {});
};

/// The format options both copy importers take (pass_start_bytes,
/// io_max_bytes; with `with_compute`, compute: kernels|none), and the
/// options they give.
std::vector<ParamSpec> copy_import_param_specs(bool with_compute);
KinetoImportOptions copy_import_options(const ParamValues& values);

}  // namespace flashsim
