#include "traces/importers/kineto.h"

#include "traces/importers/copy_passes.h"
#include "traces/importers/kineto_program.h"


#include <algorithm>
#include <charconv>
#include <filesystem>
#include <functional>
#include <istream>
#include <limits>
#include <map>
#include <memory>
#include <new>
#include <nlohmann/json.hpp>
#include <streambuf>
#include <string>
#include <vector>

#include "sim/core/errors.h"
#include "traces/byte_stream.h"
#include "traces/byte_stream_buf.h"
#include "traces/record_validator.h"
#include "traces/text_fields.h"
#include "traces/trace_formats.h"

namespace flashsim {

namespace {

using Direction = CopyDirection;
using MemcpyEvent = CopyEvent;

// SAX handler keeping only what gpu_memcpy events need. Depth 1 is the
// root object, 2 the traceEvents array, 3 an event, 4 its args.
class MemcpyCollector {
 public:
  using json = nlohmann::json;
  explicit MemcpyCollector(std::string where) : where_(std::move(where)) {}

  bool null() { return note_invalid("null"); }
  bool boolean(bool v) { return note_invalid(v ? "true" : "false"); }
  bool number_integer(json::number_integer_t v) {
    if (v < 0) note_invalid(std::to_string(v));
    return integer(static_cast<long double>(v), v >= 0 ? static_cast<std::uint64_t>(v) : 0, v >= 0);
  }
  bool number_unsigned(json::number_unsigned_t v) { return integer(static_cast<long double>(v), v, true); }
  bool number_float(json::number_float_t, const std::string& text) {
    if (depth_ == 3 && in_event_ && (keys_[3] == "ts" || keys_[3] == "dur")) {
      std::int64_t ns = 0;
      if (trace_text::parse_scaled_decimal(text, 3, ns) != trace_text::ParseStatus::ok) {
        throw InputError(where_ + ": event " + std::to_string(events_seen_) + ": " + keys_[3] + " '" + trace_text::excerpt(text) +
                         "' is out of range");
      }
      if (keys_[3] == "ts") {
        event_.ts_ns = ns;
        has_ts_ = true;
      } else {
        event_.dur_ns = ns;
        has_dur_ = ns >= 0;
      }
      if (ns < 0) note_invalid(trace_text::excerpt(text));
    } else if (depth_ == 4 && in_args_ && keys_[4] == "bytes") {
      throw InputError(where_ + ": event " + std::to_string(events_seen_) + ": args.bytes '" + trace_text::excerpt(text) +
                       "' is not a whole number");
    }
    return true;
  }
  bool string(std::string& value) {
    note_invalid("\"" + trace_text::excerpt(value) + "\" (text)");
    if (depth_ == 3 && in_event_) {
      if (keys_[3] == "cat") cat_ = value;
      else if (keys_[3] == "name") name_ = value;
      else if (keys_[3] == "tid") tid_ = std::hash<std::string>{}(value);
    } else if (depth_ == 4 && in_args_ && (keys_[4] == "src_address" || keys_[4] == "dst_address")) {
      address(value);
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
      has_ts_ = has_bytes_ = has_dur_ = false;
      invalid_.clear();
      tid_ = 0;
      correlation_ = kNoCorrelation;
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
    // Both texts can hold the whole offending token (a 100,000-digit number): cut.
    throw InputError(where_ + ": JSON parse error at byte " + std::to_string(position) + " near '" +
                     trace_text::excerpt(last_token) + "': " + trace_text::excerpt(ex.what(), 240));
  }

  std::vector<MemcpyEvent>& events() { return events_; }
  std::vector<KernelSpan>& kernels() { return kernels_; }
  bool saw_events() const { return saw_events_; }

 private:
  bool integer(long double, std::uint64_t u, bool non_negative) {
    if (depth_ == 3 && in_event_ && keys_[3] == "tid") {
      tid_ = u;
    } else if (depth_ == 4 && in_args_ && keys_[4] == "correlation") {
      correlation_ = u;
    }
    if (depth_ == 3 && in_event_ && (keys_[3] == "ts" || keys_[3] == "dur") &&
        u > static_cast<std::uint64_t>(std::numeric_limits<Nanoseconds>::max() / kNsPerUs)) {
      throw InputError(where_ + ": event " + std::to_string(events_seen_) + ": " + keys_[3] + " " + std::to_string(u) +
                       " us is out of range (more than 292 years in ns)");
    }
    if (depth_ == 3 && in_event_ && keys_[3] == "ts") {
      event_.ts_ns = static_cast<Nanoseconds>(u) * kNsPerUs;
      has_ts_ = non_negative;
    } else if (depth_ == 3 && in_event_ && keys_[3] == "dur") {
      event_.dur_ns = static_cast<Nanoseconds>(u) * kNsPerUs;
      has_dur_ = non_negative;
    } else if (depth_ == 4 && in_args_) {
      if (keys_[4] == "bytes" && non_negative) {
        event_.bytes = u;
        has_bytes_ = true;
      } else if (keys_[4] == "stream" && non_negative) {
        event_.stream = static_cast<std::uint32_t>(u);
      } else if (keys_[4] == "src_address" && non_negative) {
        event_.src_address = u;
      } else if (keys_[4] == "dst_address" && non_negative) {
        event_.dst_address = u;
      }
    }
    return true;
  }

  // "0x7f00..." (hex) or decimal text.
  void address(const std::string& text) {
    std::uint64_t v = 0;
    const bool hex = text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
    const char* begin = text.data() + (hex ? 2 : 0);
    const auto [ptr, ec] = std::from_chars(begin, text.data() + text.size(), v, hex ? 16 : 10);
    if (ec != std::errc{} || ptr != text.data() + text.size()) {
      throw InputError(where_ + ": event " + std::to_string(events_seen_) + ": args." + keys_[4] + " '" + trace_text::excerpt(text) +
                       "' is not an address");
    }
    (keys_[4] == "src_address" ? event_.src_address : event_.dst_address) = v;
  }

  void finish_event() {
    ++events_seen_;
    in_event_ = false;
    keep_program_event();
    if (cat_ == "kernel") {
      if (!has_ts_ || !has_dur_) {
        throw InputError(where_ + ": kernel event " + std::to_string(events_seen_ - 1) + " ('" + name_ +
                         "') " + lacks(has_ts_ ? "dur" : "ts"));
      }
      kernels_.push_back(KernelSpan{event_.ts_ns, event_.dur_ns});
      return;
    }
    if (cat_ != "gpu_memcpy") return;
    if (!has_ts_ || !has_bytes_) {
      throw InputError(where_ + ": gpu_memcpy event " + std::to_string(events_seen_ - 1) + " ('" + name_ +
                       "') " + lacks(has_ts_ ? "bytes" : "ts"));
    }
    if (name_.find("HtoD") != std::string::npos) event_.direction = Direction::h2d;
    else if (name_.find("DtoH") != std::string::npos) event_.direction = Direction::d2h;
    else event_.direction = Direction::other;
    event_.order = events_.size();
    events_.push_back(event_);
  }

  /// Remembers a ts, dur (event) or args.bytes value of the wrong type or
  /// sign, so that the error says what was there instead of "lacks".
  bool note_invalid(const std::string& shown) {
    if (depth_ == 3 && in_event_ && (keys_[3] == "ts" || keys_[3] == "dur")) invalid_[keys_[3]] = shown;
    else if (depth_ == 4 && in_args_ && keys_[4] == "bytes") invalid_["bytes"] = shown;
    return true;
  }
  std::string lacks(const std::string& key) const {
    const std::string name = key == "bytes" ? "args.bytes" : key;
    const auto it = invalid_.find(key);
    if (it == invalid_.end()) return "lacks " + name;
    return "has " + name + " " + it->second + ", not a non-negative number" +
           (key == "bytes" ? " of bytes" : " of microseconds");
  }

  std::string where_;
  std::map<std::string, std::string> invalid_;
  int depth_ = 0;
  std::vector<std::string> keys_ = std::vector<std::string>(6);
  bool in_events_ = false, saw_events_ = false, in_event_ = false, in_args_ = false;
  bool has_ts_ = false, has_bytes_ = false, has_dur_ = false;
  std::string cat_, name_;
  MemcpyEvent event_;
  std::vector<MemcpyEvent> events_;
  std::vector<KernelSpan> kernels_;
  std::uint64_t events_seen_ = 0;
  std::uint64_t tid_ = 0, correlation_ = kNoCorrelation;
  std::vector<KinetoProgramEvent> program_events_;

  // What the program of the trace needs (traces/importers/kineto_program.h):
  // runtime and driver calls, and the device work they issued.
  void keep_program_event() {
    KinetoProgramEvent e;
    if (cat_ == "cuda_runtime" || cat_ == "cuda_driver") e.type = KinetoProgramEvent::Type::call;
    else if (cat_ == "kernel") e.type = KinetoProgramEvent::Type::kernel;
    else if (cat_ == "gpu_memcpy") e.type = KinetoProgramEvent::Type::copy;
    else if (cat_ == "gpu_memset") e.type = KinetoProgramEvent::Type::memset;
    else return;
    if (!has_ts_ || correlation_ == kNoCorrelation) return;
    e.name = name_;
    e.thread = tid_;
    e.ts_ns = event_.ts_ns;
    e.dur_ns = has_dur_ ? event_.dur_ns : 0;
    e.correlation = correlation_;
    e.stream = event_.stream;
    e.bytes = event_.bytes;
    program_events_.push_back(std::move(e));
  }

 public:
  std::vector<KinetoProgramEvent>& program_events() { return program_events_; }
};

}  // namespace

KinetoTraceSource::KinetoTraceSource(std::filesystem::path path, KinetoImportOptions options) {
  const std::string where = path.string();
  std::vector<MemcpyEvent> events;
  std::vector<KernelSpan> kernels;
  std::vector<KinetoProgramEvent> program_events;
  {
    // Plain, .zst or .gz through ByteStream: streamed, so memory is the events
    // kept, not the text, and a decompression bomb that is not JSON fails at
    // its first bad byte; a decompression error is thrown as it happens,
    // naming the file and the compressed offset.
    ByteStreamBuf buffer(path, std::size_t{1} << 16, StreamContent::text);
    std::istream text(&buffer);
    MemcpyCollector collector(where);
    try {
      nlohmann::json::sax_parse(text, &collector);
    } catch (const std::bad_alloc&) {  // the parser holds a whole string token: name the file
      throw InputError(where + ": out of memory parsing the JSON near decompressed byte " +
                       std::to_string(buffer.stream().position()) + " (a string of that size is no trace event)");
    }
    if (!collector.saw_events()) throw InputError(where + ": no traceEvents array (not a Kineto/chrome trace?)");
    events = std::move(collector.events());
    kernels = std::move(collector.kernels());
    program_events = std::move(collector.program_events());
  }
  build(std::move(events), options, where, "kineto", std::move(kernels));
  if (options.program) attach_program(kineto_program(program_events, records(), where));
}

void CopyWeightTraceSource::attach_program(Program program) {
  if (program.empty()) return;
  meta_.program = std::make_shared<const Program>(std::move(program));
  meta_.schema_version = 2;
}

void CopyWeightTraceSource::build(std::vector<CopyEvent> events, const KinetoImportOptions& options,
                                  const std::string& where, const std::string& format,
                                  std::vector<KernelSpan> kernels) {
  weight_trace_from_copies(std::move(events), options, where, format, meta_, records_, report_, std::move(kernels));
}

std::size_t CopyWeightTraceSource::read(std::span<AccessRecord> out) {
  const std::size_t n = std::min(out.size(), records_.size() - position_);
  std::copy_n(records_.begin() + static_cast<std::ptrdiff_t>(position_), n, out.begin());
  position_ += n;
  return n;
}

std::vector<ParamSpec> copy_import_param_specs(bool with_compute) {
  std::vector<ParamSpec> specs{
      {"pass_start_bytes", ParamType::bytes, "0", "size of the copy starting a forward pass (0: first HtoD copy)", 0,
       1e300, {}},
      {"io_max_bytes", ParamType::bytes, "0", "HtoD copies smaller than this are inputs, not weights (0: off)", 0,
       1e300, {}},
      {"program", ParamType::choice, "on",
       "on: also read the program (runtime calls, streams; schema 2, docs/traces.md); off: accesses only", -1e300,
       1e300, {"on", "off"}}};
  if (with_compute) {
    specs.push_back({"compute", ParamType::choice, "kernels",
                     "compute_ns per weight access: kernels (recorded kernel durations after the copy, "
                     "docs/traces.md) or none",
                     -1e300, 1e300, {"kernels", "none"}});
  }
  return specs;
}

KinetoImportOptions copy_import_options(const ParamValues& p) {
  KinetoImportOptions o;
  o.pass_start_bytes = p.bytes("pass_start_bytes");
  o.io_max_bytes = p.bytes("io_max_bytes");
  o.program = p.text("program") == "on";
  if (p.resolved_text().count("compute")) o.compute = p.text("compute") == "none" ? KinetoCompute::none : KinetoCompute::kernels;
  return o;
}

namespace {

FLASHSIM_REGISTER_TRACE_FORMAT((TraceFormatRegistry::Entry{
    "kineto",
    "PyTorch profiler (Kineto) chrome trace, .json, .json.gz or .json.zst: host-to-device weight copies become accesses",
    copy_import_param_specs(true),
    [](const ParamValues& p, const TraceOpenContext& c) -> std::unique_ptr<ITraceSource> {
      return std::make_unique<KinetoTraceSource>(c.path, copy_import_options(p));
    }}));

}  // namespace

}  // namespace flashsim
