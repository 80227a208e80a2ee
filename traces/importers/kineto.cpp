#include "traces/importers/kineto.h"

#include <zlib.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <vector>

#include "sim/core/errors.h"
#include "traces/record_validator.h"
#include "traces/text_fields.h"
#include "traces/trace_formats.h"

namespace flashsim {

namespace {

enum class Direction { htod, dtoh, other };

struct MemcpyEvent {
  Direction direction = Direction::other;
  Nanoseconds ts_ns = 0;
  ByteCount bytes = 0;
  std::uint32_t stream = 0;
  std::uint64_t order = 0;  // position in the file
};

std::string read_maybe_gzip(const std::filesystem::path& path) {
  // zlib reads plain files transparently, so .json and .json.gz take one path.
  gzFile f = gzopen(path.c_str(), "rb");
  if (f == nullptr) throw InputError(path.string() + ": cannot open for reading");
  gzbuffer(f, 1 << 17);
  std::string text;
  std::vector<char> buffer(1 << 20);
  while (true) {
    const int n = gzread(f, buffer.data(), static_cast<unsigned>(buffer.size()));
    if (n < 0) {
      int code = 0;
      const std::string message = gzerror(f, &code);
      gzclose(f);
      throw InputError(path.string() + ": cannot decompress: " + message);
    }
    if (n == 0) break;
    text.append(buffer.data(), static_cast<std::size_t>(n));
  }
  gzclose(f);
  return text;
}

// SAX handler keeping only what gpu_memcpy events need. Depth 1 is the
// root object, 2 the traceEvents array, 3 an event, 4 its args.
class MemcpyCollector {
 public:
  using json = nlohmann::json;
  explicit MemcpyCollector(std::string where) : where_(std::move(where)) {}

  bool null() { return true; }
  bool boolean(bool) { return true; }
  bool number_integer(json::number_integer_t v) { return integer(static_cast<long double>(v), v >= 0 ? static_cast<std::uint64_t>(v) : 0, v >= 0); }
  bool number_unsigned(json::number_unsigned_t v) { return integer(static_cast<long double>(v), v, true); }
  bool number_float(json::number_float_t, const std::string& text) {
    if (depth_ == 3 && in_event_ && keys_[3] == "ts") {
      std::int64_t ns = 0;
      if (trace_text::parse_scaled_decimal(text, 3, ns) != trace_text::ParseStatus::ok) {
        throw InputError(where_ + ": event " + std::to_string(events_seen_) + ": ts '" + text + "' is out of range");
      }
      event_.ts_ns = ns;
      has_ts_ = true;
    } else if (depth_ == 4 && in_args_ && keys_[4] == "bytes") {
      throw InputError(where_ + ": event " + std::to_string(events_seen_) + ": args.bytes '" + text +
                       "' is not a whole number");
    }
    return true;
  }
  bool string(std::string& value) {
    if (depth_ == 3 && in_event_) {
      if (keys_[3] == "cat") cat_ = value;
      else if (keys_[3] == "name") name_ = value;
    }
    return true;
  }
  bool binary(json::binary_t&) { return true; }
  bool key(std::string& k) {
    if (depth_ < static_cast<int>(keys_.size())) keys_[static_cast<std::size_t>(depth_)] = k;
    return true;
  }
  bool start_object(std::size_t) {
    ++depth_;
    if (depth_ == 3 && in_events_) {
      in_event_ = true;
      event_ = MemcpyEvent{};
      cat_.clear();
      name_.clear();
      has_ts_ = has_bytes_ = false;
    } else if (depth_ == 4 && in_event_ && keys_[3] == "args") {
      in_args_ = true;
    }
    return true;
  }
  bool end_object() {
    if (depth_ == 4) in_args_ = false;
    if (depth_ == 3 && in_event_) finish_event();
    --depth_;
    return true;
  }
  bool start_array(std::size_t) {
    ++depth_;
    if (depth_ == 2 && keys_[1] == "traceEvents") {
      in_events_ = true;
      saw_events_ = true;
    }
    return true;
  }
  bool end_array() {
    if (depth_ == 2) in_events_ = false;
    --depth_;
    return true;
  }
  bool parse_error(std::size_t position, const std::string& last_token, const nlohmann::detail::exception& ex) {
    throw InputError(where_ + ": JSON parse error at byte " + std::to_string(position) + " near '" + last_token +
                     "': " + ex.what());
  }

  std::vector<MemcpyEvent>& events() { return events_; }
  bool saw_events() const { return saw_events_; }

 private:
  bool integer(long double, std::uint64_t u, bool non_negative) {
    if (depth_ == 3 && in_event_ && keys_[3] == "ts") {
      event_.ts_ns = static_cast<Nanoseconds>(u) * kNsPerUs;
      has_ts_ = non_negative;
    } else if (depth_ == 4 && in_args_) {
      if (keys_[4] == "bytes" && non_negative) {
        event_.bytes = u;
        has_bytes_ = true;
      } else if (keys_[4] == "stream" && non_negative) {
        event_.stream = static_cast<std::uint32_t>(u);
      }
    }
    return true;
  }

  void finish_event() {
    ++events_seen_;
    in_event_ = false;
    if (cat_ != "gpu_memcpy") return;
    if (!has_ts_ || !has_bytes_) {
      throw InputError(where_ + ": gpu_memcpy event " + std::to_string(events_seen_ - 1) + " ('" + name_ +
                       "') lacks " + (has_ts_ ? "args.bytes" : "ts"));
    }
    if (name_.find("HtoD") != std::string::npos) event_.direction = Direction::htod;
    else if (name_.find("DtoH") != std::string::npos) event_.direction = Direction::dtoh;
    else event_.direction = Direction::other;
    event_.order = events_.size();
    events_.push_back(event_);
  }

  std::string where_;
  int depth_ = 0;
  std::vector<std::string> keys_ = std::vector<std::string>(6);
  bool in_events_ = false, saw_events_ = false, in_event_ = false, in_args_ = false;
  bool has_ts_ = false, has_bytes_ = false;
  std::string cat_, name_;
  MemcpyEvent event_;
  std::vector<MemcpyEvent> events_;
  std::uint64_t events_seen_ = 0;
};

std::string fmt_count(std::uint64_t n) { return std::to_string(n); }

}  // namespace

struct KinetoTraceSource::State {
  TraceMeta meta;
  KinetoImportReport report;
  std::vector<AccessRecord> records;
  std::size_t position = 0;
};

KinetoTraceSource::KinetoTraceSource(std::filesystem::path path, KinetoImportOptions options)
    : state_(std::make_unique<State>()) {
  State& s = *state_;
  KinetoImportReport& rep = s.report;
  const std::string where = path.string();
  std::vector<MemcpyEvent> events;
  {
    const std::string text = read_maybe_gzip(path);
    MemcpyCollector collector(where);
    nlohmann::json::sax_parse(text, &collector);
    if (!collector.saw_events()) throw InputError(where + ": no traceEvents array (not a Kineto/chrome trace?)");
    events = std::move(collector.events());
  }
  std::stable_sort(events.begin(), events.end(),
                   [](const MemcpyEvent& a, const MemcpyEvent& b) { return a.ts_ns < b.ts_ns; });
  rep.memcpy_events = events.size();

  // Forward passes: lists of HtoD copies.
  std::vector<std::vector<const MemcpyEvent*>> passes;
  ByteCount pass_start = options.pass_start_bytes;
  const MemcpyEvent* previous = nullptr;
  for (const MemcpyEvent& e : events) {
    if (e.direction == Direction::htod) {
      ++rep.htod_copies;
      rep.htod_bytes += e.bytes;
      if (passes.empty()) {
        if (pass_start == 0) pass_start = e.bytes;
        passes.emplace_back();
      } else if (e.bytes == pass_start && previous != nullptr && previous->direction == Direction::dtoh) {
        passes.emplace_back();
      }
      passes.back().push_back(&e);
    } else if (e.direction == Direction::dtoh) {
      ++rep.dtoh_copies;
      rep.dtoh_bytes += e.bytes;
    } else {
      ++rep.other_copies;
    }
    previous = &e;
  }
  if (passes.empty()) throw InputError(where + ": no host-to-device (Memcpy HtoD) copies in the trace");
  rep.passes = passes.size();

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
        throw InputError(where + ": weight copy " + std::to_string(s.records.size()) + " (pass " +
                         std::to_string(k) + "): " + problem);
      }
      s.records.push_back(r);
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
    s.meta.catalog.push_back(std::move(e));
  }
  s.meta.record_count = s.records.size();
  s.meta.source = "kineto:" + where + " (" + fmt_count(rep.passes) + " forward passes; kept " +
                  fmt_count(rep.weight_accesses) + " weight copies of " + fmt_count(rep.weight_blocks) +
                  " blocks, " + fmt_count(rep.weight_bytes) + " B; dropped " + fmt_count(rep.input_copies) +
                  " input HtoD copies (" + fmt_count(rep.input_bytes) + " B), " + fmt_count(rep.dtoh_copies) +
                  " DtoH copies (" + fmt_count(rep.dtoh_bytes) + " B), " + fmt_count(rep.other_copies) +
                  " other copies)";
}

KinetoTraceSource::~KinetoTraceSource() = default;

const TraceMeta& KinetoTraceSource::meta() const { return state_->meta; }
const KinetoImportReport& KinetoTraceSource::report() const { return state_->report; }

std::size_t KinetoTraceSource::read(std::span<AccessRecord> out) {
  State& s = *state_;
  const std::size_t n = std::min(out.size(), s.records.size() - s.position);
  std::copy_n(s.records.begin() + static_cast<std::ptrdiff_t>(s.position), n, out.begin());
  s.position += n;
  return n;
}

void KinetoTraceSource::rewind() { state_->position = 0; }

namespace {

FLASHSIM_REGISTER_TRACE_FORMAT((TraceFormatRegistry::Entry{
    "kineto",
    "PyTorch profiler (Kineto) chrome trace, .json or .json.gz: host-to-device weight copies become accesses",
    {{"pass_start_bytes", ParamType::bytes, "0", "size of the copy starting a forward pass (0: first HtoD copy)", 0,
      1e300, {}},
     {"io_max_bytes", ParamType::bytes, "0", "HtoD copies smaller than this are inputs, not weights (0: off)", 0, 1e300,
      {}}},
    [](const ParamValues& p, const TraceOpenContext& c) -> std::unique_ptr<ITraceSource> {
      KinetoImportOptions o;
      o.pass_start_bytes = p.bytes("pass_start_bytes");
      o.io_max_bytes = p.bytes("io_max_bytes");
      return std::make_unique<KinetoTraceSource>(c.path, o);
    }}));

}  // namespace

}  // namespace flashsim
