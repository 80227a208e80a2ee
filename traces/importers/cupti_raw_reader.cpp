// Parser of the raw capture files (format in cupti_raw.h).
#include <algorithm>
#include <charconv>
#include <fstream>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "sim/core/errors.h"
#include "traces/access_record.h"
#include "traces/importers/cupti_raw.h"

namespace flashsim::capture {

namespace {

class LineParser {
 public:
  LineParser(std::string_view line, std::string where) : rest_(line), where_(std::move(where)) {}

  std::string_view token() {
    const std::size_t end = rest_.find(' ');
    std::string_view t = rest_.substr(0, end);
    rest_ = end == std::string_view::npos ? std::string_view{} : rest_.substr(end + 1);
    if (t.empty()) fail("missing field");
    return t;
  }
  std::string_view rest() {
    std::string_view r = rest_;
    rest_ = {};
    return r;
  }
  template <class T>
  T number() {
    const std::string_view t = token();
    T value{};
    int base = 10;
    std::string_view digits = t;
    if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) {
      digits.remove_prefix(2);
      base = 16;
    }
    const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value, base);
    if (ec != std::errc{} || ptr != digits.data() + digits.size()) {
      fail("'" + std::string(t) + "' is not a whole number in range");
    }
    return value;
  }
  /// A decimal count (no hex form: the writer writes only addresses in hex).
  std::uint64_t decimal() {
    const std::string_view t = token();
    std::uint64_t value = 0;
    const auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), value, 10);
    if (ec != std::errc{} || ptr != t.data() + t.size()) fail("'" + std::string(t) + "' is not a decimal whole number");
    return value;
  }
  /// A timestamp: decimal ns below kMaxAbsTimeNs (2^62), so that sums and
  /// the trace's signed times cannot wrap.
  std::uint64_t time_ns() {
    const std::uint64_t t = decimal();
    if (t >= static_cast<std::uint64_t>(kMaxAbsTimeNs)) {
      fail("timestamp " + std::to_string(t) + " ns is beyond 2^62 ns (146 years): not a CUPTI time");
    }
    return t;
  }
  template <class E>
  E enumeration(unsigned max) {
    const unsigned v = number<unsigned>();
    if (v > max) fail("value " + std::to_string(v) + " is out of range (at most " + std::to_string(max) + ")");
    return static_cast<E>(v);
  }
  void done() {
    if (!rest_.empty()) fail("unexpected text '" + std::string(rest_) + "' at the end of the line");
  }
  [[noreturn]] void fail(const std::string& message) const { throw InputError(where_ + ": " + message); }

 private:
  std::string_view rest_;
  std::string where_;
};

}  // namespace

RawCapture read_raw_capture(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path.string() + ": cannot open for reading");
  RawCapture c;
  std::string line;
  std::uint64_t line_no = 0;
  bool ended = false;
  int version = 0;
  auto domain_of = [](LineParser& p) {
    const std::string_view domain = p.token();
    if (domain != "R" && domain != "D") p.fail("API domain '" + std::string(domain) + "' (expected R or D)");
    return domain == "R" ? ApiDomain::runtime : ApiDomain::driver;
  };
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    LineParser p(line, path.string() + ":" + std::to_string(line_no));
    if (line_no == 1) {
      if (p.token() != kRawMagic) p.fail("not a flashsim capture file (expected '" + std::string(kRawMagic) + "')");
      version = p.number<int>();
      if (version < 1 || version > kRawVersion) {
        p.fail("format version " + std::to_string(version) + " (this flashsim reads 1 to " +
               std::to_string(kRawVersion) + ")");
      }
      c.pid = p.number<std::int64_t>();
      p.done();
      continue;
    }
    if (line.empty()) continue;
    if (ended) p.fail("records after the end line");
    const std::string_view tag = p.token();
    if (tag == "C") {
      RawCopy r;
      r.correlation_id = p.number<std::uint32_t>();
      r.runtime_correlation_id = p.number<std::uint32_t>();
      r.copy_kind = p.enumeration<CopyKind>(10);
      r.src_kind = p.enumeration<MemoryKind>(7);
      r.dst_kind = p.enumeration<MemoryKind>(7);
      r.bytes = p.number<std::uint64_t>();
      r.start_ns = p.time_ns();
      r.end_ns = p.time_ns();
      r.device_id = p.number<std::uint32_t>();
      r.context_id = p.number<std::uint32_t>();
      r.stream_id = p.number<std::uint32_t>();
      if (r.end_ns < r.start_ns) p.fail("copy ends before it starts");
      c.copies.push_back(r);
    } else if (tag == "S") {
      RawMemset r;
      r.correlation_id = p.number<std::uint32_t>();
      r.memory_kind = p.enumeration<MemoryKind>(7);
      r.bytes = p.number<std::uint64_t>();
      r.start_ns = p.time_ns();
      r.end_ns = p.time_ns();
      r.device_id = p.number<std::uint32_t>();
      r.context_id = p.number<std::uint32_t>();
      r.stream_id = p.number<std::uint32_t>();
      if (r.end_ns < r.start_ns) p.fail("memset ends before it starts");
      c.memsets.push_back(r);
    } else if (tag == "K") {
      RawKernel r;
      r.correlation_id = p.number<std::uint32_t>();
      r.start_ns = p.time_ns();
      r.end_ns = p.time_ns();
      r.device_id = p.number<std::uint32_t>();
      r.context_id = p.number<std::uint32_t>();
      r.stream_id = p.number<std::uint32_t>();
      for (int& g : r.grid) g = p.number<std::int32_t>();
      for (int& b : r.block) b = p.number<std::int32_t>();
      r.name = std::string(p.rest());
      if (r.name.empty()) p.fail("kernel without a name");
      if (r.end_ns < r.start_ns) p.fail("kernel ends before it starts");
      c.kernels.push_back(std::move(r));
      continue;
    } else if (tag == "M") {
      RawMemory r;
      r.correlation_id = p.number<std::uint32_t>();
      r.operation = p.enumeration<MemoryOperation>(2);
      r.memory_kind = p.enumeration<MemoryKind>(7);
      r.address = p.number<std::uint64_t>();
      r.bytes = p.number<std::uint64_t>();
      r.timestamp_ns = p.time_ns();
      r.device_id = p.number<std::uint32_t>();
      r.context_id = p.number<std::uint32_t>();
      r.stream_id = p.number<std::uint32_t>();
      c.memory.push_back(r);
    } else if (tag == "X") {
      RawApiCall r;
      r.correlation_id = p.number<std::uint32_t>();
      r.domain = domain_of(p);
      r.cbid = p.number<std::uint32_t>();
      const std::string_view what = p.token();
      if (what != "copy" && what != "memset") p.fail("API call kind '" + std::string(what) + "' (expected copy or memset)");
      r.what = what == "copy" ? ApiWhat::copy : ApiWhat::memset;
      r.dst = p.number<std::uint64_t>();
      r.src = p.number<std::uint64_t>();
      r.bytes = p.number<std::uint64_t>();
      r.host_ns = p.time_ns();
      if (version >= 3) {
        const std::uint64_t checked = p.decimal();
        if (checked != 0 && checked != 1) p.fail("residency flag " + std::to_string(checked) + " (expected 0 or 1)");
        r.host_checked = checked == 1;
        r.host_resident_bytes = p.decimal();
        if (r.host_resident_bytes > r.bytes) p.fail("resident bytes exceed the call's bytes");
        if (!r.host_checked && r.host_resident_bytes > 0) p.fail("resident bytes given for a destination not checked");
      }
      c.api_calls.push_back(r);
    } else if (tag == "L") {
      RawLink r;
      r.driver_correlation_id = p.number<std::uint32_t>();
      r.runtime_correlation_id = p.number<std::uint32_t>();
      c.links.push_back(r);
    } else if (tag == "H") {
      RawHostRegister r;
      const std::string_view op = p.token();
      if (op != "register" && op != "unregister") p.fail("host operation '" + std::string(op) + "'");
      r.registered = op == "register";
      r.address = p.number<std::uint64_t>();
      r.bytes = p.number<std::uint64_t>();
      r.host_ns = p.time_ns();
      c.host_registers.push_back(r);
    } else if (tag == "A" && version >= 2) {
      RawApi r;
      r.correlation_id = p.number<std::uint32_t>();
      r.domain = domain_of(p);
      r.cbid = p.number<std::uint32_t>();
      r.start_ns = p.time_ns();
      r.end_ns = p.time_ns();
      r.thread = p.number<std::uint32_t>();
      if (r.end_ns < r.start_ns) p.fail("API call ends before it starts");
      c.apis.push_back(r);
    } else if (tag == "Y" && version >= 2) {
      RawSync r;
      r.type = p.enumeration<SyncType>(4);
      r.start_ns = p.time_ns();
      r.end_ns = p.time_ns();
      r.correlation_id = p.number<std::uint32_t>();
      r.context_id = p.number<std::uint32_t>();
      r.stream_id = p.number<std::uint32_t>();
      r.event_id = p.number<std::uint32_t>();
      c.syncs.push_back(r);
    } else if (tag == "V" && version >= 2) {
      RawEventRecord r;
      r.correlation_id = p.number<std::uint32_t>();
      r.context_id = p.number<std::uint32_t>();
      r.stream_id = p.number<std::uint32_t>();
      r.event_id = p.number<std::uint32_t>();
      c.event_records.push_back(r);
    } else if (tag == "N" && version >= 2) {
      RawMarker r;
      r.flags = p.number<std::uint32_t>();
      r.timestamp_ns = p.time_ns();
      r.thread = p.number<std::uint32_t>();
      r.name = std::string(p.rest());
      if (r.name.empty()) p.fail("marker without a name");
      c.markers.push_back(std::move(r));
      continue;
    } else if (tag == "Q" && version >= 2) {
      RawApiName r;
      r.domain = domain_of(p);
      r.cbid = p.number<std::uint32_t>();
      r.name = std::string(p.rest());
      if (r.name.empty()) p.fail("API name missing");
      c.api_names.push_back(std::move(r));
      continue;
    } else if (tag == "E") {
      const std::size_t counts[7] = {c.copies.size(), c.memsets.size(), c.kernels.size(), c.memory.size(),
                                     c.api_calls.size(), c.links.size(), c.host_registers.size()};
      for (const std::size_t expected : counts) {
        if (p.number<std::uint64_t>() != expected) p.fail("record counts disagree with the end line: file cut short");
      }
      c.dropped_records = p.number<std::uint64_t>();
      if (version >= 2) {
        const std::size_t more[5] = {c.apis.size(), c.syncs.size(), c.event_records.size(), c.markers.size(),
                                     c.api_names.size()};
        for (const std::size_t expected : more) {
          if (p.number<std::uint64_t>() != expected) p.fail("record counts disagree with the end line: file cut short");
        }
      }
      ended = true;
    } else {
      p.fail("unknown record tag '" + std::string(tag) + "'");
    }
    p.done();
  }
  if (line_no == 0) throw InputError(path.string() + ": empty file (not a flashsim capture file)");
  if (!ended) {
    throw InputError(path.string() + ": no end line after line " + std::to_string(line_no) +
                     ": the capture was cut short (the process died before its exit handlers ran?)");
  }
  derive_links_from_apis(c);
  return c;
}

void derive_links_from_apis(RawCapture& c) {
  if (c.apis.empty()) return;
  std::unordered_set<std::uint32_t> linked;
  for (const RawLink& l : c.links) linked.insert(l.driver_correlation_id);
  // Per thread, runtime calls sorted by start; a driver call is inside the
  // last runtime call that started before it if that one ends after it.
  std::unordered_map<std::uint32_t, std::vector<const RawApi*>> runtime_by_thread;
  for (const RawApi& a : c.apis) {
    if (a.domain == ApiDomain::runtime) runtime_by_thread[a.thread].push_back(&a);
  }
  for (auto& [thread, calls] : runtime_by_thread) {
    std::sort(calls.begin(), calls.end(), [](const RawApi* a, const RawApi* b) { return a->start_ns < b->start_ns; });
  }
  for (const RawApi& d : c.apis) {
    if (d.domain != ApiDomain::driver || linked.count(d.correlation_id) != 0) continue;
    auto it = runtime_by_thread.find(d.thread);
    if (it == runtime_by_thread.end()) continue;
    const auto& calls = it->second;
    auto after = std::upper_bound(calls.begin(), calls.end(), d.start_ns,
                                  [](std::uint64_t t, const RawApi* a) { return t < a->start_ns; });
    if (after == calls.begin()) continue;
    const RawApi* r = *std::prev(after);
    if (r->end_ns >= d.end_ns) c.links.push_back(RawLink{d.correlation_id, r->correlation_id});
  }
}

std::vector<RawCapture> read_raw_capture_dir(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> files;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (entry.is_regular_file() && entry.path().extension() == ".raw") files.push_back(entry.path());
  }
  if (ec) throw InputError(dir.string() + ": cannot list: " + ec.message());
  std::sort(files.begin(), files.end());
  std::vector<RawCapture> out;
  out.reserve(files.size());
  for (const auto& f : files) out.push_back(read_raw_capture(f));
  return out;
}

}  // namespace flashsim::capture
