// libCacheSim's plain-text trace (format "txt"; libCacheSim
// traceReader/generalReader/txt.c): one object id per line and nothing else
// (no time, no size, no op). Empty lines are skipped, as libCacheSim does; a
// "\r" before "\n" is dropped, and so are blanks around the id.
// ids (traces/block_ids.h): numeric (default), each line an unsigned
// integer, decimal or 0x-hex (libCacheSim's strtoull base 0 would also read
// a leading-0 id as octal; here "010" is ten); hex; text, each distinct line
// an object numbered 1, 2, 3 … in order of first appearance (as libCacheSim's
// string interning numbers them; one table entry per distinct line in
// memory); hash, XXH64 of the line.
// Mapping: block_id = the id; bytes = object_bytes (default 1, libCacheSim's
// size of a request without one); time_ns = 0; op = read; stream_id = 0; no
// next use. A line that is not an id fails naming the file, line and record.
#include "sim/core/errors.h"
#include "traces/block_ids.h"
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

class TxtTraceSource final : public ITraceSource, public IReadPosition {
 public:
  TxtTraceSource(std::filesystem::path path, IdSyntax ids, ByteCount object_bytes)
      : stream_(std::move(path), std::size_t{1} << 20, StreamContent::text), ids_(ids), object_bytes_(object_bytes) {
    meta_.source = "txt:" + stream_.where();
  }

  const TraceMeta& meta() const override { return meta_; }
  ReadPosition read_position() const override { return {stream_.file_position(), stream_.file_size()}; }

  std::size_t read(std::span<AccessRecord> out) override {
    std::size_t filled = 0;
    while (filled < out.size() && stream_.read_line(line_)) {
      ++line_number_;
      trace_text::refuse_nul(line_, stream_.where(), line_number_);
      const std::string_view id_text = trim(line_);
      if (id_text.empty()) continue;
      AccessRecord& r = out[filled];
      r = AccessRecord{};
      if (!ids_.read(id_text, r.block_id)) {
        throw InputError(stream_.where() + ": line " + std::to_string(line_number_) + " (record " +
                         std::to_string(record_) + "): '" + trace_text::excerpt(id_text) + "' " +
                         ids_.why_not(id_text) + " (a txt trace holds one id per line)");
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
  BlockIdReader ids_;
  ByteCount object_bytes_;
  TraceMeta meta_;
  std::string line_;
  std::uint64_t line_number_ = 0;  // 1-based number of the last line read
  std::uint64_t record_ = 0;       // 0-based index of the next record
};

FLASHSIM_REGISTER_TRACE_FORMAT((TraceFormatRegistry::Entry{
    "txt",
    "libCacheSim plain text: one object id per line (no time or size); .zst or .gz too",
    {ids_param_spec(),
     {"object_bytes", ParamType::bytes, "1", "bytes of every request (the format has no size; libCacheSim uses 1)", 1,
      281474976710656.0, {}}},
    [](const ParamValues& p, const TraceOpenContext& c) -> std::unique_ptr<ITraceSource> {
      return std::make_unique<TxtTraceSource>(c.path, id_syntax_from(p.text("ids")), p.bytes("object_bytes"));
    }}));

}  // namespace

}  // namespace flashsim
