// The Kineto importer's rules (traces/importers/kineto.h) on a plain list of
// copies, shared by the importers whose copies come without a model: Kineto
// chrome traces and Nsight Systems exports (traces/importers/nsys_sqlite.h).
// When every host-to-device copy names its host source address (Kineto
// args.src_address), blocks are source address ranges instead of positions
// in a pass: every such copy is an access of block "host@0x<address>:<bytes>"
// (the rule of `flashsim capture`), and no copy is judged an input.
#pragma once
#include "traces/program.h"  // CopyDirection
#include <cstdint>
#include <string>
#include <vector>

#include "traces/access_record.h"
#include "traces/importers/kineto.h"

namespace flashsim {


struct CopyEvent {
  CopyDirection direction = CopyDirection::other;
  Nanoseconds ts_ns = 0;  ///< GPU start, ns (any origin)
  Nanoseconds dur_ns = 0; ///< GPU duration, ns (0 when unknown)
  ByteCount bytes = 0;
  std::uint32_t stream = 0;
  std::uint64_t order = 0;                    ///< position in the input (ties in ts keep it)
  std::uint64_t src_address = kNoAddress;     ///< host source of an HtoD copy, when known
  std::uint64_t dst_address = kNoAddress;
};

/// A GPU kernel, on the clock of the CopyEvents.
struct KernelSpan {
  Nanoseconds ts_ns = 0;
  Nanoseconds dur_ns = 0;
};

/// Sorts `events` by ts (stable), finds forward passes and weights by the
/// Kineto rules (or by address, above), and fills `meta` (catalog,
/// record_count, source = "<format>:<where> (...)"), `records` and `report`.
/// Throws InputError naming `where` as the Kineto importer does.
/// `kernels` (any order; may be empty): counted in `report` and, with
/// options.compute == kernels, attributed to the records' compute_ns by the
/// rule in traces/importers/kineto.h.
void weight_trace_from_copies(std::vector<CopyEvent> events, const KinetoImportOptions& options,
                              const std::string& where, const std::string& format, TraceMeta& meta,
                              std::vector<AccessRecord>& records, KinetoImportReport& report,
                              std::vector<KernelSpan> kernels = {});

}  // namespace flashsim
