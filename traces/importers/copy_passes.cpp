#include "traces/importers/copy_passes.h"

#include <algorithm>
#include <map>
#include <string>
#include <tuple>

#include "sim/core/errors.h"
#include "traces/record_validator.h"

namespace flashsim {

namespace {

using Direction = CopyDirection;
using MemcpyEvent = CopyEvent;

std::string fmt_count(std::uint64_t n) { return std::to_string(n); }

std::string hex(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

// Every HtoD copy names its host source: blocks are source address ranges
// (the rule of `flashsim capture`, traces/importers/cupti_capture.h), every
// copy is an access, no weight/input guessing.
void address_mode(const std::vector<std::vector<const MemcpyEvent*>>& passes, const std::string& where,
                  const std::string& format, TraceMeta& meta, std::vector<AccessRecord>& records,
                  KinetoImportReport& rep, std::vector<const MemcpyEvent*>& kept) {
  std::map<std::pair<std::uint64_t, ByteCount>, BlockId> ids;
  RecordValidator validator;
  const Nanoseconds origin = passes.front().front()->ts_ns;
  for (std::size_t k = 0; k < passes.size(); ++k) {
    for (const MemcpyEvent* e : passes[k]) {
      auto [it, added] = ids.try_emplace({e->src_address, e->bytes}, static_cast<BlockId>(ids.size()));
      if (added) {
        BlockCatalogEntry b;
        b.id = it->second;
        b.bytes = e->bytes;
        b.address_begin = e->src_address;
        b.address_end = e->src_address + e->bytes;
        b.name = "host@" + hex(e->src_address) + ":" + std::to_string(e->bytes);
        b.kind = "weight";
        meta.catalog.push_back(std::move(b));
      }
      AccessRecord r;
      r.time_ns = e->ts_ns - origin;
      r.block_id = it->second;
      r.bytes = e->bytes;
      r.stream_id = e->stream;
      r.request_id = 0;
      r.token_index = static_cast<std::int32_t>(k);
      r.phase = k == 0 ? Phase::prefill : Phase::decode;
      r.address = e->src_address;
      if (const std::string problem = validator.check(r); !problem.empty()) {
        throw InputError(where + ": copy " + std::to_string(records.size()) + ": " + problem);
      }
      records.push_back(r);
      kept.push_back(e);
      ++rep.weight_accesses;
      rep.weight_bytes += e->bytes;
    }
  }
  rep.weight_blocks = ids.size();
  meta.record_count = records.size();
  meta.source = format + ":" + where + " (" + fmt_count(rep.passes) + " forward passes; blocks by host address: " +
                fmt_count(rep.weight_accesses) + " host-to-device copies of " + fmt_count(rep.weight_blocks) +
                " address ranges, " + fmt_count(rep.weight_bytes) + " B; dropped " + fmt_count(rep.dtoh_copies) +
                " DtoH copies (" + fmt_count(rep.dtoh_bytes) + " B), " + fmt_count(rep.other_copies) +
                " other copies)";
}

// The compute rule of traces/importers/kineto.h. `kept[i]` is the copy of
// records[i]; kept is in time order (records are).
void attribute_kernels(const std::vector<const MemcpyEvent*>& kept, const std::vector<KernelSpan>& kernels,
                       const KinetoImportOptions& options, std::vector<AccessRecord>& records,
                       KinetoImportReport& rep, TraceMeta& meta) {
  rep.kernels = kernels.size();
  for (const KernelSpan& k : kernels) {
    rep.kernel_ns_total += k.dur_ns;
    // Last kept copy starting at or before the kernel.
    const auto after = std::upper_bound(kept.begin(), kept.end(), k.ts_ns,
                                        [](Nanoseconds t, const MemcpyEvent* e) { return t < e->ts_ns; });
    if (after == kept.begin()) {
      ++rep.kernels_before_first;
      rep.kernel_ns_before_first += k.dur_ns;
      continue;
    }
    const std::size_t i = static_cast<std::size_t>(after - kept.begin()) - 1;
    if (i + 1 == kept.size()) {
      ++rep.kernels_after_last;
      rep.kernel_ns_after_last += k.dur_ns;
    } else if (k.ts_ns < kept[i]->ts_ns + kept[i]->dur_ns) {
      ++rep.kernels_during_copy;
      rep.kernel_ns_during_copy += k.dur_ns;
    } else {
      ++rep.kernels_attributed;
      rep.kernel_ns_attributed += k.dur_ns;
      if (options.compute == KinetoCompute::kernels) records[i].compute_ns += k.dur_ns;
    }
  }
  if (options.compute != KinetoCompute::kernels) {
    rep.kernels_attributed = 0;
    rep.kernel_ns_attributed = 0;
  }
  if (!kernels.empty()) {
    meta.source += "; " + fmt_count(rep.kernels) + " kernels, " + fmt_count(rep.kernel_ns_total) + " ns, " +
                   (options.compute == KinetoCompute::kernels
                        ? fmt_count(rep.kernel_ns_attributed) + " ns attributed to weight accesses as compute"
                        : std::string("compute not attributed (compute: none)"));
  }
}

}  // namespace

void weight_trace_from_copies(std::vector<CopyEvent> events, const KinetoImportOptions& options,
                              const std::string& where, const std::string& format, TraceMeta& meta,
                              std::vector<AccessRecord>& records, KinetoImportReport& rep,
                              std::vector<KernelSpan> kernels) {
  std::vector<const MemcpyEvent*> kept;  // the copy of each record
  std::stable_sort(events.begin(), events.end(),
                   [](const MemcpyEvent& a, const MemcpyEvent& b) { return a.ts_ns < b.ts_ns; });
  rep.memcpy_events = events.size();

  // Forward passes: lists of HtoD copies.
  std::vector<std::vector<const MemcpyEvent*>> passes;
  ByteCount pass_start = options.pass_start_bytes;
  const MemcpyEvent* previous = nullptr;
  for (const MemcpyEvent& e : events) {
    if (e.direction == Direction::h2d) {
      ++rep.htod_copies;
      rep.htod_bytes += e.bytes;
      if (passes.empty()) {
        if (pass_start == 0) pass_start = e.bytes;
        passes.emplace_back();
      } else if (e.bytes == pass_start && previous != nullptr && previous->direction == Direction::d2h) {
        passes.emplace_back();
      }
      passes.back().push_back(&e);
    } else if (e.direction == Direction::d2h) {
      ++rep.dtoh_copies;
      rep.dtoh_bytes += e.bytes;
    } else {
      ++rep.other_copies;
    }
    previous = &e;
  }
  if (passes.empty()) throw InputError(where + ": no host-to-device (Memcpy HtoD) copies in the trace");
  rep.passes = passes.size();

  bool all_addressed = true;
  for (const auto& pass : passes) {
    for (const MemcpyEvent* e : pass) all_addressed = all_addressed && e->src_address != kNoAddress;
  }
  if (all_addressed) {
    address_mode(passes, where, format, meta, records, rep, kept);
    attribute_kernels(kept, kernels, options, records, rep, meta);
    return;
  }

  // Weight positions: same size in every pass (and not below io_max_bytes).
  const std::size_t width = passes.front().size();
  for (std::size_t k = 1; k < passes.size(); ++k) {
    if (passes[k].size() != width) {
      throw InputError(where + ": forward pass " + std::to_string(k) + " has " + std::to_string(passes[k].size()) +
                       " host-to-device copies but pass 0 has " + std::to_string(width) +
                       ": cannot identify weights by their position in the pass (see docs/traces.md)");
    }
  }
  std::vector<bool> is_weight(width, true);
  for (std::size_t p = 0; p < width; ++p) {
    const ByteCount b = passes.front()[p]->bytes;
    if (b < options.io_max_bytes) is_weight[p] = false;
    for (const auto& pass : passes) {
      if (pass[p]->bytes != b) is_weight[p] = false;
    }
  }
  ByteCount smallest_weight = 0;
  std::vector<ByteCount> sizes;  // per weight position
  std::vector<std::size_t> weight_position(width, 0);
  for (std::size_t p = 0; p < width; ++p) {
    if (!is_weight[p]) continue;
    weight_position[p] = sizes.size();
    sizes.push_back(passes.front()[p]->bytes);
    smallest_weight = smallest_weight == 0 ? sizes.back() : std::min(smallest_weight, sizes.back());
  }
  if (sizes.empty()) throw InputError(where + ": no copy has the same size in every forward pass: no weights found");
  for (std::size_t p = 0; p < width; ++p) {
    if (is_weight[p]) continue;
    for (std::size_t k = 0; k < passes.size(); ++k) {
      const ByteCount b = passes[k][p]->bytes;
      if (b >= smallest_weight && b >= options.io_max_bytes) {
        throw InputError(where + ": copy " + std::to_string(p) + " of forward pass " + std::to_string(k) + " (" +
                         std::to_string(b) + " B) changes size between passes but is as large as a weight (" +
                         std::to_string(smallest_weight) +
                         " B): refusing to guess whether it is a weight (set io_max_bytes, see docs/traces.md)");
      }
    }
  }
  rep.weight_blocks = sizes.size();

  // Records, in time order; time from the first weight copy.
  Nanoseconds origin = 0;
  bool have_origin = false;
  RecordValidator validator;
  for (std::size_t k = 0; k < passes.size(); ++k) {
    for (std::size_t p = 0; p < width; ++p) {
      const MemcpyEvent& e = *passes[k][p];
      if (!is_weight[p]) {
        ++rep.input_copies;
        rep.input_bytes += e.bytes;
        continue;
      }
      if (!have_origin) {
        origin = e.ts_ns;
        have_origin = true;
      }
      AccessRecord r;
      r.time_ns = e.ts_ns - origin;
      r.block_id = weight_position[p];
      r.bytes = e.bytes;
      r.op = AccessOp::read;
      r.stream_id = e.stream;
      r.request_id = 0;
      r.token_index = static_cast<std::int32_t>(k);
      r.phase = k == 0 ? Phase::prefill : Phase::decode;
      if (const std::string problem = validator.check(r); !problem.empty()) {
        throw InputError(where + ": weight copy " + std::to_string(records.size()) + " (pass " +
                         std::to_string(k) + "): " + problem);
      }
      records.push_back(r);
      kept.push_back(&e);
      ++rep.weight_accesses;
      rep.weight_bytes += e.bytes;
    }
  }

  // Catalog.
  const std::size_t w = sizes.size();
  const bool has_head = w >= 2 && sizes.back() == sizes.front();
  const std::size_t middle_begin = 1;
  const std::size_t middle_end = has_head ? w - 1 : w;
  const std::size_t len = middle_end > middle_begin ? middle_end - middle_begin : 0;
  std::size_t period = 0;
  for (std::size_t p = 1; p <= len / 2 && period == 0; ++p) {
    bool repeats = true;
    for (std::size_t i = 0; i + p < len && repeats; ++i) {
      repeats = sizes[middle_begin + i] == sizes[middle_begin + i + p];
    }
    if (repeats) period = p;
  }
  const std::size_t layers = period ? len / period : 0;
  rep.layers = layers;
  rep.weights_per_layer = period;
  for (std::size_t b = 0; b < w; ++b) {
    BlockCatalogEntry e;
    e.id = b;
    e.bytes = sizes[b];
    if (b == 0) {
      e.name = "embedding";
      e.kind = "embedding";
    } else if (has_head && b == w - 1) {
      e.name = "lm_head";
      e.kind = "lm_head";
    } else if (period != 0 && b - middle_begin < layers * period) {
      const std::size_t layer = (b - middle_begin) / period;
      e.layer = static_cast<std::int32_t>(layer);
      e.name = "layers." + std::to_string(layer) + "." + std::to_string((b - middle_begin) % period);
      e.kind = "weight";
    } else if (period != 0) {
      e.name = "final." + std::to_string(b - middle_begin - layers * period);
      e.kind = "weight";
    } else {
      e.name = "weight." + std::to_string(b);
      e.kind = "weight";
    }
    meta.catalog.push_back(std::move(e));
  }
  meta.record_count = records.size();
  meta.source = format + ":" + where + " (" + fmt_count(rep.passes) + " forward passes; kept " +
                  fmt_count(rep.weight_accesses) + " weight copies of " + fmt_count(rep.weight_blocks) +
                  " blocks, " + fmt_count(rep.weight_bytes) + " B; dropped " + fmt_count(rep.input_copies) +
                  " input HtoD copies (" + fmt_count(rep.input_bytes) + " B), " + fmt_count(rep.dtoh_copies) +
                  " DtoH copies (" + fmt_count(rep.dtoh_bytes) + " B), " + fmt_count(rep.other_copies) +
                  " other copies)";
  attribute_kernels(kept, kernels, options, records, rep, meta);
}

}  // namespace flashsim
