// libCacheSim's plain-text trace (format "txt"; libCacheSim
// traceReader/generalReader/txt.c): one object id per line and nothing else
// (no time, no size, no op). Empty lines are skipped, as libCacheSim does; a
// "\r" before "\n" is dropped, and so are blanks around the id.
// ids=numeric (default): each line is an unsigned integer, decimal or 0x-hex
// (libCacheSim's strtoull base 0 would also read a leading-0 id as octal;
// here "010" is ten). ids=text: each distinct line is an object, numbered
// 1, 2, 3 … in order of first appearance (as libCacheSim's string interning
// numbers them); this keeps one table entry per distinct line in memory.
// Mapping: block_id = the id; bytes = object_bytes (default 1, libCacheSim's
// size of a request without one); time_ns = 0; op = read; stream_id = 0; no
// next use. A line that is not an id fails naming the file, line and record.
#include <charconv>

#include "sim/core/errors.h"
#include "sim/core/hash_map.h"
#include "traces/byte_stream.h"
#include "traces/read_position.h"
#include "traces/text_fields.h"
#include "traces/trace_formats.h"

namespace flashsim {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

bool parse_id(std::string_view s, std::uint64_t& out) {
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    const char* end = s.data() + s.size();
    const auto [ptr, ec] = std::from_chars(s.data() + 2, end, out, 16);
    return ec == std::errc{} && ptr == end;
  }
  return trace_text::parse_u64(s, out) == trace_text::ParseStatus::ok;
}

class TxtTraceSource final : public ITraceSource, public IReadPosition {
 public:
  TxtTraceSource(std::filesystem::path path, bool text_ids, ByteCount object_bytes)
      : stream_(std::move(path)), text_ids_(text_ids), object_bytes_(object_bytes) {
    meta_.source = "txt:" + stream_.where();
  }

  const TraceMeta& meta() const override { return meta_; }
  ReadPosition read_position() const override { return {stream_.file_position(), stream_.file_size()}; }

  std::size_t read(std::span<AccessRecord> out) override {
    std::size_t filled = 0;
    while (filled < out.size() && stream_.read_line(line_)) {
      ++line_number_;
      const std::string_view id_text = trim(line_);
      if (id_text.empty()) continue;
      AccessRecord& r = out[filled];
      r = AccessRecord{};
      if (text_ids_) {
        const auto [it, added] = ids_.try_emplace(std::string(id_text), ids_.size() + 1);
        r.block_id = it->second;
      } else if (!parse_id(id_text, r.block_id)) {
        throw InputError(stream_.where() + ": line " + std::to_string(line_number_) + " (record " +
                         std::to_string(record_) + "): '" + std::string(id_text.substr(0, 80)) +
                         "' is not an unsigned integer object id (a txt trace holds one id per line; "
                         "-o ids=text reads any text as an id)");
      }
      r.bytes = object_bytes_;
      ++record_;
      ++filled;
    }
    return filled;
  }

  void rewind() override {
    stream_.rewind();
    line_number_ = record_ = 0;
    ids_.clear();
  }

 private:
  ByteStream stream_;
  bool text_ids_;
  ByteCount object_bytes_;
  TraceMeta meta_;
  std::string line_;
  std::uint64_t line_number_ = 0;  // 1-based number of the last line read
  std::uint64_t record_ = 0;       // 0-based index of the next record
  HashMap<std::string, std::uint64_t> ids_;
};

FLASHSIM_REGISTER_TRACE_FORMAT((TraceFormatRegistry::Entry{
    "txt",
    "libCacheSim plain text: one object id per line (no time or size); .zst too",
    {{"ids", ParamType::choice, "numeric",
      "numeric: each line an unsigned integer (decimal or 0x-hex); text: each distinct line an object", -1e300, 1e300,
      {"numeric", "text"}},
     {"object_bytes", ParamType::bytes, "1", "bytes of every request (the format has no size; libCacheSim uses 1)", 1,
      281474976710656.0, {}}},
    [](const ParamValues& p, const TraceOpenContext& c) -> std::unique_ptr<ITraceSource> {
      return std::make_unique<TxtTraceSource>(c.path, p.text("ids") == "text",
                                              p.bytes("object_bytes"));
    }}));

}  // namespace

}  // namespace flashsim
