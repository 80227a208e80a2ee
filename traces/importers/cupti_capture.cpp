#include "traces/importers/cupti_capture.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <map>
#include <sstream>
#include <tuple>
#include <unordered_map>

#include "sim/core/errors.h"
#include "sim/core/interval_union.h"
#include "traces/atomic_file.h"
#include "traces/record_validator.h"
#include "traces/text_fields.h"

namespace flashsim::capture {

namespace {

std::string hex(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%" PRIx64, v);
  return buf;
}

const char* region_prefix(MemoryKind kind) {
  switch (kind) {
    case MemoryKind::device:
    case MemoryKind::device_static: return "dev";
    case MemoryKind::pinned: return "pinned";
    case MemoryKind::managed:
    case MemoryKind::managed_static: return "managed";
    case MemoryKind::pageable: return "registered";  // host registration (pinned after registering)
    default: return "mem";
  }
}

const char* block_kind(MemoryKind kind) {
  switch (kind) {
    case MemoryKind::pinned: return "host_pinned";
    case MemoryKind::pageable: return "host_pageable";
    case MemoryKind::device:
    case MemoryKind::device_static: return "device";
    case MemoryKind::managed:
    case MemoryKind::managed_static: return "managed";
    case MemoryKind::array: return "array";
    default: return "unknown";
  }
}

/// Regions of all processes, found by (process, address, time).
class RegionIndex {
 public:
  std::vector<Region> regions;

  void build() {
    order_.resize(regions.size());
    for (std::size_t i = 0; i < order_.size(); ++i) order_[i] = i;
    std::sort(order_.begin(), order_.end(), [&](std::size_t a, std::size_t b) {
      return std::tie(regions[a].process, regions[a].begin, regions[a].from_ns) <
             std::tie(regions[b].process, regions[b].begin, regions[b].from_ns);
    });
  }

  /// The region holding `address` at `time_ns` (the latest allocated if
  /// several did over time), or nullptr.
  const Region* find(std::uint32_t process, std::uint64_t address, std::uint64_t time_ns) const {
    // Regions of `process` beginning at or below `address`, scanned downwards.
    auto it = std::upper_bound(order_.begin(), order_.end(), std::make_pair(process, address),
                               [&](const std::pair<std::uint32_t, std::uint64_t>& key, std::size_t i) {
                                 return key < std::make_pair(regions[i].process, regions[i].begin);
                               });
    const Region* best = nullptr;
    while (it != order_.begin()) {
      --it;
      const Region& r = regions[*it];
      if (r.process != process) break;
      if (address < r.end && r.from_ns <= time_ns && time_ns < r.until_ns) {
        if (best == nullptr || r.from_ns > best->from_ns) best = &r;
      }
    }
    return best;
  }

 private:
  std::vector<std::size_t> order_;
};

/// A copy or memset that will become access records.
struct Candidate {
  std::uint32_t process = 0;
  std::uint64_t start_ns = 0, end_ns = 0;
  std::uint64_t host_ns = 0;  // API entry (region lookup time)
  std::uint32_t device = 0, stream = 0;
  AccessOp op = AccessOp::read;
  std::uint64_t address = 0, bytes = 0;  // the block side of the transfer
  MemoryKind kind = MemoryKind::unknown;
  std::size_t event = 0;
};

struct ApiJoin {
  std::unordered_map<std::uint32_t, const RawApiCall*> driver, runtime;
  std::unordered_map<std::uint32_t, std::uint32_t> link;  // driver corr -> runtime corr
  std::unordered_map<const RawApiCall*, std::uint64_t> consumed;  // bytes handed out so far

  explicit ApiJoin(const RawCapture& c) {
    for (const RawApiCall& a : c.api_calls) (a.domain == ApiDomain::driver ? driver : runtime)[a.correlation_id] = &a;
    for (const RawLink& l : c.links) link[l.driver_correlation_id] = l.runtime_correlation_id;
  }
  const RawApiCall* find(std::uint32_t corr, std::uint32_t runtime_corr) const {
    if (auto it = driver.find(corr); it != driver.end()) return it->second;
    if (runtime_corr != 0) {
      if (auto it = runtime.find(runtime_corr); it != runtime.end()) return it->second;
    }
    if (auto l = link.find(corr); l != link.end()) {
      if (auto it = runtime.find(l->second); it != runtime.end()) return it->second;
    }
    if (auto it = runtime.find(corr); it != runtime.end()) return it->second;
    return nullptr;
  }
  /// Offset of this activity record inside its API call's range (records of
  /// one call come in GPU start order).
  std::uint64_t take(const RawApiCall* a, std::uint64_t bytes) {
    std::uint64_t& used = consumed[a];
    const std::uint64_t offset = used + bytes <= std::max<std::uint64_t>(a->bytes, bytes) ? used : 0;
    used = offset + bytes;
    return offset;
  }
};

std::string region_label(const RegionIndex& regions, std::uint32_t process, std::uint64_t address,
                         std::uint64_t time_ns) {
  if (address == kNoAddress) return "";
  const Region* r = regions.find(process, address, time_ns);
  if (r == nullptr) return "@" + hex(address);
  return r->name + "+" + hex(address - r->begin);
}


}  // namespace

const char* to_string(CopyKind kind) {
  static const char* const names[] = {"unknown", "htod", "dtoh", "htoa", "atoh", "atoa",
                                      "atod",    "dtoa", "dtod", "htoh", "ptop"};
  const auto i = static_cast<unsigned>(kind);
  return i < 11 ? names[i] : "unknown";
}

const char* to_string(MemoryKind kind) {
  static const char* const names[] = {"unknown", "pageable", "pinned",        "device",
                                      "array",   "managed",  "device_static", "managed_static"};
  const auto i = static_cast<unsigned>(kind);
  return i < 8 ? names[i] : "unknown";
}

ComputeAttribution parse_compute_attribution(const std::string& text, const std::string& where) {
  if (text == "kernels") return ComputeAttribution::kernels;
  if (text == "gap") return ComputeAttribution::gap;
  if (text == "none") return ComputeAttribution::none;
  throw InputError(where + ": '" + text + "' is not one of kernels, gap, none");
}

void parse_directions(const std::string& text, ConvertOptions& o) {
  o.h2d = o.d2h = o.d2d = o.memset = false;
  std::stringstream in(text);
  std::string word;
  bool any = false;
  while (std::getline(in, word, ',')) {
    word = trace_text::to_lower(word);
    if (word == "h2d") o.h2d = true;
    else if (word == "d2h") o.d2h = true;
    else if (word == "d2d") o.d2d = true;
    else if (word == "memset") o.memset = true;
    else throw InputError("directions: '" + word + "' is not one of h2d, d2h, d2d, memset");
    any = true;
  }
  if (!any) throw InputError("directions: empty (name at least one of h2d, d2h, d2d, memset)");
}

ConvertedCapture convert_capture(const std::vector<RawCapture>& processes, const ConvertOptions& options,
                                 const std::string& source) {
  ConvertedCapture out;
  CaptureReport& rep = out.report;
  rep.processes = processes.size();

  // --- regions: allocations and host registrations, numbered per kind ---
  RegionIndex regions;
  std::map<std::string, std::uint64_t> counters;
  for (std::uint32_t p = 0; p < processes.size(); ++p) {
    const RawCapture& c = processes[p];
    rep.dropped_by_cupti += c.dropped_records;
    std::vector<const RawMemory*> mem;
    for (const RawMemory& m : c.memory) mem.push_back(&m);
    std::stable_sort(mem.begin(), mem.end(),
                     [](const RawMemory* a, const RawMemory* b) { return a->timestamp_ns < b->timestamp_ns; });
    std::map<std::uint64_t, std::size_t> live;  // address -> region index
    for (const RawMemory* m : mem) {
      if (m->operation == MemoryOperation::allocation) {
        Region r;
        r.kind = m->memory_kind;
        const std::string prefix = region_prefix(m->memory_kind);
        r.name = prefix + "." + std::to_string(counters[prefix]++);
        r.process = p;
        r.begin = m->address;
        r.end = m->address + m->bytes;
        r.from_ns = m->timestamp_ns;
        live[m->address] = regions.regions.size();
        regions.regions.push_back(std::move(r));
        ++rep.allocations;
      } else if (m->operation == MemoryOperation::release) {
        if (auto it = live.find(m->address); it != live.end()) {
          regions.regions[it->second].until_ns = m->timestamp_ns;
          live.erase(it);
        }
      }
    }
    // Host registrations: runtime and driver callbacks both report one
    // cudaHostRegister; keep the first of equal (address, bytes) while live.
    std::map<std::uint64_t, std::size_t> registered;
    for (const RawHostRegister& h : c.host_registers) {
      if (h.registered) {
        if (registered.count(h.address) != 0) continue;
        Region r;
        r.kind = MemoryKind::pinned;
        r.name = "registered." + std::to_string(counters["registered"]++);
        r.process = p;
        r.begin = h.address;
        r.end = h.address + h.bytes;
        r.from_ns = h.host_ns;
        registered[h.address] = regions.regions.size();
        regions.regions.push_back(std::move(r));
        ++rep.host_registrations;
      } else if (auto it = registered.find(h.address); it != registered.end()) {
        regions.regions[it->second].until_ns = h.host_ns;
        registered.erase(it);
      }
    }
  }
  regions.build();

  // --- events and candidates ---
  std::vector<Candidate> candidates;
  IntervalUnion busy;  // kernel busy time
  std::uint64_t last_end = 0;
  for (std::uint32_t p = 0; p < processes.size(); ++p) {
    const RawCapture& c = processes[p];
    ApiJoin join(c);
    std::vector<const RawCopy*> copies;
    for (const RawCopy& r : c.copies) copies.push_back(&r);
    std::stable_sort(copies.begin(), copies.end(),
                     [](const RawCopy* a, const RawCopy* b) { return a->start_ns < b->start_ns; });
    for (const RawCopy* r : copies) {
      ++rep.copies;
      CaptureEvent e;
      e.type = CaptureEvent::Type::copy;
      e.process = p;
      e.start_ns = static_cast<std::int64_t>(r->start_ns);
      e.end_ns = static_cast<std::int64_t>(r->end_ns);
      e.bytes = r->bytes;
      e.copy_kind = r->copy_kind;
      e.src_kind = r->src_kind;
      e.dst_kind = r->dst_kind;
      e.stream = r->stream_id;
      e.raw_stream = r->stream_id;
      e.device = r->device_id;
      e.correlation_id = r->correlation_id;
      e.runtime_correlation_id = r->runtime_correlation_id;
      std::uint64_t host_ns = r->start_ns;
      if (const RawApiCall* a = join.find(r->correlation_id, r->runtime_correlation_id); a != nullptr) {
        const std::uint64_t offset = join.take(a, r->bytes);
        e.src = a->src + offset;
        e.dst = a->dst + offset;
        host_ns = a->host_ns;
        if (a->host_checked && a->bytes > 0) {
          // Pieces of one call share its fresh bytes in proportion to their size.
          e.host_checked = true;
          const long double fresh = static_cast<long double>(a->bytes - a->host_resident_bytes) / a->bytes;
          e.host_fresh_bytes = std::min<std::uint64_t>(r->bytes, static_cast<std::uint64_t>(fresh * r->bytes + 0.5L));
        }
      }
      e.src_region = region_label(regions, p, e.src, host_ns);
      e.dst_region = region_label(regions, p, e.dst, host_ns);
      Candidate k;
      k.process = p;
      k.start_ns = r->start_ns;
      k.end_ns = r->end_ns;
      k.host_ns = host_ns;
      k.device = r->device_id;
      k.stream = r->stream_id;
      k.bytes = r->bytes;
      bool keep = false;
      switch (r->copy_kind) {
        case CopyKind::htod:
          ++rep.h2d;
          rep.h2d_bytes += r->bytes;
          rep.h2d_pinned += r->src_kind == MemoryKind::pinned;
          rep.h2d_pageable += r->src_kind == MemoryKind::pageable;
          keep = options.h2d;
          k.op = AccessOp::read;
          k.address = e.src;
          k.kind = r->src_kind;
          break;
        case CopyKind::dtoh:
          ++rep.d2h;
          rep.d2h_bytes += r->bytes;
          keep = options.d2h;
          k.op = AccessOp::write;
          k.address = e.dst;
          k.kind = r->dst_kind;
          break;
        case CopyKind::dtod:
        case CopyKind::ptop:
          ++rep.d2d;
          rep.d2d_bytes += r->bytes;
          keep = options.d2d;
          k.op = AccessOp::read;
          k.address = e.src;
          k.kind = r->src_kind;
          break;
        default:
          ++rep.other_copies;
          break;
      }
      if (keep && r->bytes > 0) {
        if (e.src == kNoAddress) {
          ++rep.unaddressed;
        } else {
          k.event = out.events.size();
          candidates.push_back(k);
        }
      }
      out.events.push_back(std::move(e));
    }
    for (const RawMemset& r : c.memsets) {
      ++rep.memsets;
      CaptureEvent e;
      e.type = CaptureEvent::Type::memset;
      e.process = p;
      e.start_ns = static_cast<std::int64_t>(r.start_ns);
      e.end_ns = static_cast<std::int64_t>(r.end_ns);
      e.bytes = r.bytes;
      e.dst_kind = r.memory_kind;
      e.stream = r.stream_id;
      e.raw_stream = r.stream_id;
      e.device = r.device_id;
      e.correlation_id = r.correlation_id;
      std::uint64_t host_ns = r.start_ns;
      if (const RawApiCall* a = join.find(r.correlation_id, 0); a != nullptr) {
        e.dst = a->dst + join.take(a, r.bytes);
        host_ns = a->host_ns;
      }
      e.dst_region = region_label(regions, p, e.dst, host_ns);
      if (options.memset && r.bytes > 0) {
        if (e.dst == kNoAddress) {
          ++rep.unaddressed;
        } else {
          Candidate k;
          k.process = p;
          k.start_ns = r.start_ns;
          k.end_ns = r.end_ns;
          k.host_ns = host_ns;
          k.device = r.device_id;
          k.stream = r.stream_id;
          k.op = AccessOp::write;
          k.address = e.dst;
          k.bytes = r.bytes;
          k.kind = r.memory_kind;
          k.event = out.events.size();
          candidates.push_back(k);
        }
      }
      out.events.push_back(std::move(e));
    }
    for (const RawKernel& r : c.kernels) {
      ++rep.kernels;
      busy.add(r.start_ns, r.end_ns);
      CaptureEvent e;
      e.type = CaptureEvent::Type::kernel;
      e.process = p;
      e.start_ns = static_cast<std::int64_t>(r.start_ns);
      e.end_ns = static_cast<std::int64_t>(r.end_ns);
      e.stream = r.stream_id;
      e.raw_stream = r.stream_id;
      e.device = r.device_id;
      e.correlation_id = r.correlation_id;
      e.name = r.name;
      std::copy(std::begin(r.grid), std::end(r.grid), e.grid);
      std::copy(std::begin(r.block), std::end(r.block), e.block);
      out.events.push_back(std::move(e));
      last_end = std::max(last_end, r.end_ns);
    }
  }
  busy.build();
  rep.kernel_busy_ns = static_cast<Nanoseconds>(busy.total());

  if (candidates.empty()) {
    throw InputError(source + ": no copy to make a trace of (" + std::to_string(rep.copies) + " copies: " +
                     std::to_string(rep.h2d) + " host-to-device, " + std::to_string(rep.d2h) + " device-to-host, " +
                     std::to_string(rep.d2d) + " device-to-device, " + std::to_string(rep.other_copies) +
                     " other; " + std::to_string(rep.unaddressed) + " without addresses; " +
                     std::to_string(rep.memsets) + " memsets, " + std::to_string(rep.kernels) +
                     " kernels; kept directions:" + (options.h2d ? " h2d" : "") + (options.d2h ? " d2h" : "") +
                     (options.d2d ? " d2d" : "") + (options.memset ? " memset" : "") + ")");
  }
  std::stable_sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) {
    return std::tie(a.start_ns, a.process) < std::tie(b.start_ns, b.process);
  });
  const std::uint64_t origin = candidates.front().start_ns;

  // --- dense streams ---
  std::map<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>, std::uint32_t> streams;
  auto stream_index = [&](std::uint32_t process, std::uint32_t device, std::uint32_t stream) {
    auto [it, added] = streams.try_emplace({process, device, stream}, static_cast<std::uint32_t>(streams.size()));
    return it->second;
  };

  // --- blocks and records ---
  std::map<std::tuple<std::uint32_t, std::uint64_t, std::uint64_t>, BlockId> block_ids;
  auto block_of = [&](const Candidate& k, std::uint64_t begin, std::uint64_t end, const Region* region) -> BlockId {
    auto [it, added] = block_ids.try_emplace({k.process, begin, end}, static_cast<BlockId>(block_ids.size()));
    if (added) {
      BlockCatalogEntry b;
      b.id = it->second;
      b.bytes = end - begin;
      b.address_begin = begin;
      b.address_end = end;
      b.kind = block_kind(region != nullptr && region->name.rfind("registered.", 0) == 0 ? MemoryKind::pinned : k.kind);
      b.name = (region != nullptr ? region->name + "+" + hex(begin - region->begin)
                                  : std::string(k.kind == MemoryKind::pageable ? "pageable" : "unmapped") + "@" +
                                        hex(begin)) +
               ":" + std::to_string(end - begin);
      if (processes.size() > 1) b.name = "p" + std::to_string(k.process) + "." + b.name;
      out.meta.catalog.push_back(std::move(b));
    }
    return it->second;
  };
  std::vector<std::uint64_t> record_end;  // GPU end per record (compute attribution)
  for (const Candidate& k : candidates) {
    const std::uint32_t stream = stream_index(k.process, k.device, k.stream);
    CaptureEvent& e = out.events[k.event];
    e.first_record = out.records.size();
    const Region* region = regions.find(k.process, k.address, k.host_ns);
    auto emit = [&](BlockId id, std::uint64_t address, std::uint64_t bytes, std::uint64_t offset) {
      AccessRecord r;
      r.time_ns = static_cast<Nanoseconds>(k.start_ns - origin);
      r.block_id = id;
      r.bytes = bytes;
      r.op = k.op;
      r.stream_id = stream;
      r.address = address;
      r.offset = offset;
      out.records.push_back(r);
      record_end.push_back(k.end_ns);
      ++e.record_count;
    };
    if (options.block_bytes == 0) {
      emit(block_of(k, k.address, k.address + k.bytes, region), k.address, k.bytes, 0);
      continue;
    }
    const std::uint64_t n = options.block_bytes;
    const std::uint64_t base = region != nullptr ? region->begin : 0;
    const std::uint64_t limit = region != nullptr ? region->end : std::numeric_limits<std::uint64_t>::max();
    const std::uint64_t end = k.address + k.bytes;
    for (std::uint64_t piece = base + (k.address - base) / n * n; piece < end; piece += n) {
      const std::uint64_t piece_end = std::min(piece + n, std::max(limit, end));
      const std::uint64_t touch_begin = std::max(piece, k.address);
      const std::uint64_t touch_end = std::min(piece_end, end);
      emit(block_of(k, piece, piece_end, region), touch_begin, touch_end - touch_begin, touch_begin - piece);
    }
  }
  // Streams of events that made no record come after those of the trace.
  for (CaptureEvent& e : out.events) {
    e.stream = stream_index(e.process, e.device, e.stream);
    e.start_ns -= static_cast<std::int64_t>(origin);
    e.end_ns -= static_cast<std::int64_t>(origin);
  }
  std::stable_sort(out.events.begin(), out.events.end(),
                   [](const CaptureEvent& a, const CaptureEvent& b) { return a.start_ns < b.start_ns; });

  // --- compute attribution and tokens ---
  const std::size_t n = out.records.size();
  std::vector<std::size_t> next_same_stream(n, n);
  {
    std::unordered_map<std::uint32_t, std::size_t> last;
    for (std::size_t i = n; i-- > 0;) {
      const std::uint32_t s = out.records[i].stream_id;
      if (auto it = last.find(s); it != last.end()) next_same_stream[i] = it->second;
      last[s] = i;
    }
  }
  // The marker block: most reads, ties to the first accessed (lowest id).
  BlockId marker = 0;
  {
    std::vector<std::uint64_t> reads(out.meta.catalog.size(), 0);
    for (const AccessRecord& r : out.records) reads[r.block_id] += r.op == AccessOp::read;
    for (BlockId b = 0; b < reads.size(); ++b) {
      if (reads[b] > reads[marker]) marker = b;
    }
  }
  std::uint64_t passes = 0;
  RecordValidator validator;
  for (std::size_t i = 0; i < n; ++i) {
    AccessRecord& r = out.records[i];
    last_end = std::max(last_end, record_end[i]);
    if (options.compute != ComputeAttribution::none) {
      const std::uint64_t a = record_end[i];
      const std::uint64_t b = next_same_stream[i] < n
                                  ? static_cast<std::uint64_t>(out.records[next_same_stream[i]].time_ns) + origin
                                  : busy.last_end();
      r.compute_ns = static_cast<Nanoseconds>(options.compute == ComputeAttribution::kernels ? busy.between(a, b)
                                                                                             : (b > a ? b - a : 0));
    }
    if (options.tokens_from_marker) {
      if (r.block_id == marker && r.op == AccessOp::read) ++passes;
      r.request_id = 0;
      r.token_index = static_cast<std::int32_t>(passes == 0 ? 0 : passes - 1);
    }
    if (const std::string problem = validator.check(r); !problem.empty()) {
      throw InputError(source + ": access record " + std::to_string(i) + ": " + problem);
    }
    rep.record_bytes += r.bytes;
  }
  rep.records = n;
  rep.blocks = out.meta.catalog.size();
  rep.passes = options.tokens_from_marker ? passes : 0;
  rep.marker_block = marker;
  rep.span_ns = static_cast<Nanoseconds>(std::max(last_end, busy.last_end()) - origin);
  out.regions = std::move(regions.regions);
  out.origin_ns = origin;
  out.meta.record_count = n;
  out.meta.source = source;
  return out;
}

void write_capture_events_csv(const std::filesystem::path& path, const ConvertedCapture& converted) {
  AtomicFile file(path);
  std::FILE* f = std::fopen(file.temp_path().c_str(), "wb");
  if (f == nullptr) throw Error(file.temp_path().string() + ": cannot open for writing");
  bool ok = std::fputs(
                "type,process,stream,start_ns,end_ns,bytes,copy_kind,src_kind,dst_kind,src,dst,src_region,"
                "dst_region,name,grid,block,first_record\n",
                f) >= 0;
  static const char* const types[] = {"copy", "memset", "kernel"};
  for (const CaptureEvent& e : converted.events) {
    const bool kernel = e.type == CaptureEvent::Type::kernel;
    const std::string grid = kernel ? std::to_string(e.grid[0]) + "x" + std::to_string(e.grid[1]) + "x" +
                                          std::to_string(e.grid[2])
                                    : "";
    const std::string block = kernel ? std::to_string(e.block[0]) + "x" + std::to_string(e.block[1]) + "x" +
                                           std::to_string(e.block[2])
                                     : "";
    ok = ok && std::fprintf(f, "%s,%u,%u,%" PRId64 ",%" PRId64 ",%" PRIu64 ",%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n",
                            types[static_cast<int>(e.type)], e.process, e.stream, e.start_ns, e.end_ns, e.bytes,
                            kernel ? "" : to_string(e.copy_kind), kernel ? "" : to_string(e.src_kind),
                            kernel ? "" : to_string(e.dst_kind), e.src == kNoAddress ? "" : hex(e.src).c_str(),
                            e.dst == kNoAddress ? "" : hex(e.dst).c_str(),
                            trace_text::csv_quote(e.src_region).c_str(), trace_text::csv_quote(e.dst_region).c_str(),
                            trace_text::csv_quote(e.name).c_str(), grid.c_str(), block.c_str(),
                            e.first_record == kNoAddress ? "" : std::to_string(e.first_record).c_str()) > 0;
  }
  ok = std::fflush(f) == 0 && ok && !std::ferror(f);
  ok = std::fclose(f) == 0 && ok;
  if (!ok) throw Error(file.temp_path().string() + ": write failed (disk full?)");
  file.commit();
}

std::string describe(const CaptureReport& r) {
  std::ostringstream s;
  s << r.processes << " process(es); " << r.copies << " copies (" << r.h2d << " host-to-device = " << r.h2d_bytes
    << " B, " << r.h2d_pinned << " from pinned and " << r.h2d_pageable << " from pageable memory; " << r.d2h
    << " device-to-host = " << r.d2h_bytes << " B; " << r.d2d << " device-to-device = " << r.d2d_bytes << " B; "
    << r.other_copies << " other), " << r.memsets << " memsets, " << r.kernels << " kernels (busy "
    << r.kernel_busy_ns << " ns), " << r.allocations << " allocations, " << r.host_registrations
    << " host registrations\n"
    << "trace: " << r.records << " accesses of " << r.blocks << " blocks, " << r.record_bytes << " B, span "
    << r.span_ns << " ns";
  if (r.passes != 0) s << ", " << r.passes << " passes (reads of block " << r.marker_block << ")";
  s << "\n";
  if (r.unaddressed != 0) s << "warning: " << r.unaddressed << " copies/memsets had no API call with addresses: dropped\n";
  if (r.dropped_by_cupti != 0) s << "warning: CUPTI dropped " << r.dropped_by_cupti << " activity records\n";
  return s.str();
}

}  // namespace flashsim::capture
