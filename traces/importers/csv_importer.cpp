#include "traces/importers/csv_importer.h"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <istream>
#include <limits>
#include <unordered_map>

#include "sim/core/errors.h"
#include "sim/core/input_file.h"
#include "traces/block_ids.h"
#include "traces/byte_stream_buf.h"
#include "traces/csv_trace_writer.h"
#include "traces/record_validator.h"
#include "traces/text_fields.h"
#include "traces/trace_formats.h"

namespace flashsim {

namespace {

using trace_text::ParseStatus;

enum Field : int {
  kTime, kBlockId, kBytes, kOp, kStreamId, kRequestId, kTokenIndex, kPhase, kOperatorId, kComputeNs,
  kAddress, kOffset, kNextUse, kFieldCount
};

struct FieldInfo {
  const char* name;
  std::vector<const char*> aliases;  // header names tried when unmapped, in order
};

const std::vector<FieldInfo>& field_infos() {
  static const std::vector<FieldInfo> infos = {
      {"time", {"time_ns", "time", "timestamp", "ts"}},
      {"block_id", {"block_id", "id", "obj_id", "lbn", "lba", "key"}},
      {"bytes", {"bytes", "size", "obj_size"}},
      {"op", {"op", "operation"}},
      {"stream_id", {"stream_id", "stream"}},
      {"request_id", {"request_id"}},
      {"token_index", {"token_index"}},
      {"phase", {"phase"}},
      {"operator_id", {"operator_id"}},
      {"compute_ns", {"compute_ns"}},
      {"address", {"address"}},
      {"offset", {"offset"}},
      {"next_use_index", {"next_use_index"}},
  };
  return infos;
}

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    std::string item = trace_text::to_lower(text.substr(start, end - start));
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    if (!item.empty()) out.push_back(item);
    start = end + 1;
  }
  return out;
}

bool is_index(const std::string& text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool is_blank_or_comment(const std::string& line) {
  const auto first = line.find_first_not_of(" \t\r");
  return first == std::string::npos || line[first] == '#';
}

}  // namespace

std::vector<ParamSpec> csv_import_params() {
  std::vector<ParamSpec> specs;
  for (const auto& info : field_infos()) {
    specs.push_back({info.name, ParamType::text, "",
                     std::string("column of ") + info.name + ": header name or 0-based index (empty: by name)",
                     -1e300, 1e300, {}});
  }
  specs.push_back({"time_unit", ParamType::choice, "ns", "unit of the time column (fractions allowed)", -1e300,
                   1e300, {"ns", "us", "ms", "s"}});
  specs.push_back({"header", ParamType::choice, "auto",
                   "first line is a header: auto (iff none of its cells is a number), yes, no", -1e300, 1e300,
                   {"auto", "yes", "no"}});
  specs.push_back({"delimiter", ParamType::text, ",", "cell separator: one character, or 'tab'", -1e300, 1e300, {}});
  specs.push_back({"op_read", ParamType::text, "r,read,get,gets,0", "op cell values meaning read (comma-separated)",
                   -1e300, 1e300, {}});
  specs.push_back({"op_write", ParamType::text, "w,write,set,add,replace,cas,append,prepend,update,1",
                   "op cell values meaning write (comma-separated)", -1e300, 1e300, {}});
  specs.push_back({"default_bytes", ParamType::bytes, "0", "bytes of every access when no bytes column (0: required)",
                   0, 1e300, {}});
  specs.push_back(ids_param_spec());
  specs.push_back({"catalog", ParamType::text, "auto", "block catalog CSV: path, auto (<stem>.catalog.csv) or none",
                   -1e300, 1e300, {}});
  return specs;
}

CsvImportOptions csv_import_options(const ParamValues& values) {
  CsvImportOptions o;
  for (const auto& info : field_infos()) {
    const std::string& column = values.text(info.name);
    if (!column.empty()) o.columns[info.name] = column;
  }
  const std::string& unit = values.text("time_unit");
  o.time_pow10 = unit == "s" ? 9 : unit == "ms" ? 6 : unit == "us" ? 3 : 0;
  const std::string& header = values.text("header");
  o.header = header == "yes" ? CsvImportOptions::Header::yes
             : header == "no" ? CsvImportOptions::Header::no
                              : CsvImportOptions::Header::automatic;
  const std::string& delimiter = values.text("delimiter");
  if (delimiter == "tab" || delimiter == "\\t") {
    o.delimiter = '\t';
  } else if (delimiter.size() == 1 && delimiter != "\"") {
    o.delimiter = delimiter[0];
  } else {
    throw InputError("trace format csv: parameter 'delimiter' = '" + delimiter + "': one character or 'tab'");
  }
  o.op_read = split_list(values.text("op_read"));
  o.op_write = split_list(values.text("op_write"));
  o.default_bytes = values.bytes("default_bytes");
  o.catalog = values.text("catalog");
  o.ids = id_syntax_from(values.text("ids"));
  return o;
}

// ------------------------------------------------------------------ source

struct CsvTraceSource::State {
  std::filesystem::path path;
  std::string where;
  CsvImportOptions options;
  TraceMeta meta;
  // Plain, zstd or gzip, UTF-8 or UTF-16 by its byte-order mark
  // (ByteStreamBuf): the same parser reads all, streamed.
  std::unique_ptr<ByteStreamBuf> buffer;
  std::istream in{nullptr};
  std::streampos data_start = 0;
  std::uint64_t data_start_line = 0;  // 1-based number of the first data line minus 1
  std::uint64_t line_no = 0;
  std::uint64_t record_index = 0;
  bool at_end = false;
  std::vector<std::string> header;        // column names (empty without header)
  int column[kFieldCount];                // column index per field, -1 unmapped
  std::string column_label[kFieldCount];  // for messages
  int required_columns = 0;               // 1 + largest mapped index
  std::vector<std::string> cells;
  std::string line;
  std::string lowered;
  RecordValidator validator;
  BlockIdReader ids{IdSyntax::numeric};

  [[noreturn]] void fail_cell(int f, const std::string& cell, const std::string& why) const {
    throw InputError(where + ":" + std::to_string(line_no) + ": column " + column_label[f] + " (field " +
                     field_infos()[static_cast<std::size_t>(f)].name + "): '" + trace_text::excerpt(cell) + "' " + why);
  }

  std::uint64_t cell_u64(int f, const std::string& cell, std::uint64_t max) const {
    std::uint64_t v = 0;
    const ParseStatus st = trace_text::parse_u64(cell, v);
    if (st == ParseStatus::not_a_number) fail_cell(f, cell, "is not a non-negative integer");
    if (st == ParseStatus::out_of_range || v > max) fail_cell(f, cell, "is out of range");
    return v;
  }

  std::int64_t cell_i64(int f, const std::string& cell, std::int64_t min, std::int64_t max) const {
    std::int64_t v = 0;
    const ParseStatus st = trace_text::parse_i64(cell, v);
    if (st == ParseStatus::not_a_number) fail_cell(f, cell, "is not an integer");
    if (st == ParseStatus::out_of_range || v < min || v > max) fail_cell(f, cell, "is out of range");
    return v;
  }

  static bool blank(const std::string& cell) { return cell.find_first_not_of(" \t") == std::string::npos; }

  void parse_row(AccessRecord& r) {
    const int n = trace_text::split_csv_line(line, options.delimiter, cells);
    if (n < 0) throw InputError(where + ":" + std::to_string(line_no) + ": unterminated quote");
    if (n < required_columns) {
      for (int f = 0; f < kFieldCount; ++f) {
        if (column[f] >= n) {
          throw InputError(where + ":" + std::to_string(line_no) + ": has " + std::to_string(n) +
                           " columns; column " + column_label[f] + " (field " + field_infos()[f].name +
                           ") is missing");
        }
      }
    }
    r = AccessRecord{};
    for (int f = 0; f < kFieldCount; ++f) {
      if (column[f] < 0) continue;
      const std::string& cell = cells[static_cast<std::size_t>(column[f])];
      const bool empty = blank(cell);
      if (empty && f <= kStreamId && f != kOp) fail_cell(f, cell, "is empty");
      if (empty) continue;
      switch (f) {
        case kTime: {
          std::int64_t ns = 0;
          const ParseStatus st = trace_text::parse_scaled_decimal(cell, options.time_pow10, ns);
          if (st == ParseStatus::not_a_number) fail_cell(f, cell, "is not a number");
          if (st == ParseStatus::out_of_range) fail_cell(f, cell, "is out of range");
          r.time_ns = ns;
          break;
        }
        case kBlockId: {
          std::string_view id(cell);
          id.remove_prefix(std::min(id.find_first_not_of(" \t"), id.size()));
          id.remove_suffix(id.size() - (id.find_last_not_of(" \t") + 1));
          if (!ids.read(id, r.block_id)) fail_cell(f, cell, ids.why_not(id));
          break;
        }
        case kBytes: r.bytes = cell_u64(f, cell, std::numeric_limits<std::uint64_t>::max()); break;
        case kOp: {
          lowered = trace_text::to_lower(cell);
          lowered.erase(0, lowered.find_first_not_of(" \t"));
          lowered.erase(lowered.find_last_not_of(" \t") + 1);
          if (std::find(options.op_read.begin(), options.op_read.end(), lowered) != options.op_read.end()) {
            r.op = AccessOp::read;
          } else if (std::find(options.op_write.begin(), options.op_write.end(), lowered) != options.op_write.end()) {
            r.op = AccessOp::write;
          } else {
            fail_cell(f, cell, "is neither a read nor a write value (set op_read / op_write)");
          }
          break;
        }
        case kStreamId: r.stream_id = static_cast<std::uint32_t>(cell_u64(f, cell, 0xffffffffu)); break;
        case kRequestId: r.request_id = cell_u64(f, cell, std::numeric_limits<std::uint64_t>::max()); break;
        case kTokenIndex:
          r.token_index = static_cast<std::int32_t>(cell_i64(f, cell, -1, std::numeric_limits<std::int32_t>::max()));
          break;
        case kPhase: {
          lowered = trace_text::to_lower(cell);
          if (lowered == "prefill" || lowered == "1") r.phase = Phase::prefill;
          else if (lowered == "decode" || lowered == "2") r.phase = Phase::decode;
          else if (lowered == "unknown" || lowered == "0") r.phase = Phase::unknown;
          else fail_cell(f, cell, "is not a phase (prefill, decode, unknown or 0..2)");
          break;
        }
        case kOperatorId: r.operator_id = static_cast<std::uint32_t>(cell_u64(f, cell, 0xffffffffu)); break;
        case kComputeNs:
          r.compute_ns = cell_i64(f, cell, std::numeric_limits<std::int64_t>::min(),
                                  std::numeric_limits<std::int64_t>::max());
          break;
        case kAddress: {
          std::string_view t(cell);
          if (t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) {
            std::uint64_t v = 0;
            const auto [end, ec] = std::from_chars(t.data() + 2, t.data() + t.size(), v, 16);
            if (ec != std::errc() || end != t.data() + t.size()) fail_cell(f, cell, "is not an address");
            r.address = v;
          } else {
            r.address = cell_u64(f, cell, std::numeric_limits<std::uint64_t>::max());
          }
          break;
        }
        case kOffset: r.offset = cell_u64(f, cell, std::numeric_limits<std::uint64_t>::max()); break;
        case kNextUse:
          if (cell == "-1") {
            r.next_use_index = kNeverAccessedAgain;
          } else {
            r.next_use_index = cell_u64(f, cell, std::numeric_limits<std::uint64_t>::max());
          }
          break;
        default: break;
      }
    }
    if (column[kTime] < 0) r.time_ns = static_cast<Nanoseconds>(record_index);
    if (column[kBytes] < 0) r.bytes = options.default_bytes;
    const std::string problem = validator.check(r);
    if (!problem.empty()) {
      throw InputError(where + ":" + std::to_string(line_no) + ": record " + std::to_string(record_index) + ": " +
                       problem);
    }
  }

  void resolve_columns() {
    const auto& infos = field_infos();
    std::string known;
    for (const auto& h : header) known += (known.empty() ? "" : ", ") + trace_text::excerpt(h);
    int width = header.empty() ? std::numeric_limits<int>::max() : static_cast<int>(header.size());
    for (const auto& [key, value] : options.columns) {
      const std::string& field = key;  // clang 14 cannot capture a structured binding
      const auto it = std::find_if(infos.begin(), infos.end(), [&](const FieldInfo& i) { return field == i.name; });
      if (it == infos.end()) {
        std::string names;
        for (const auto& i : infos) names += (names.empty() ? "" : ", ") + std::string(i.name);
        throw InputError(where + ": '" + key + "' is not a trace field (fields: " + names + ")");
      }
    }
    for (int f = 0; f < kFieldCount; ++f) {
      column[f] = -1;
      const auto& info = infos[static_cast<std::size_t>(f)];
      const auto mapped = options.columns.find(info.name);
      if (mapped != options.columns.end()) {
        const std::string& value = mapped->second;
        if (is_index(value)) {
          long index = std::numeric_limits<long>::max();
          std::from_chars(value.data(), value.data() + value.size(), index);  // too large: stays max
          if (index >= width) {
            throw InputError(where + ": column index " + value + " (field " + info.name + ") is beyond the header's " +
                             std::to_string(width) + " columns (" + known + ")");
          }
          column[f] = static_cast<int>(index);
        } else {
          if (header.empty()) {
            throw InputError(where + ": the file has no header, so column '" + value + "' (field " + info.name +
                             ") must be a 0-based index");
          }
          const std::string wanted = trace_text::to_lower(value);
          for (std::size_t c = 0; c < header.size(); ++c) {
            if (trace_text::to_lower(header[c]) == wanted) {
              column[f] = static_cast<int>(c);
              break;
            }
          }
          if (column[f] < 0) {
            throw InputError(where + ": column '" + value + "' (field " + info.name +
                             ") is not in the header (columns: " + known + ")");
          }
        }
      } else if (!header.empty()) {
        for (const char* alias : info.aliases) {
          for (std::size_t c = 0; c < header.size() && column[f] < 0; ++c) {
            if (trace_text::to_lower(header[c]) == alias) column[f] = static_cast<int>(c);
          }
          if (column[f] >= 0) break;
        }
      }
      if (column[f] >= 0) {
        column_label[f] = header.empty() ? "#" + std::to_string(column[f])
                                         : "'" + header[static_cast<std::size_t>(column[f])] + "'";
        required_columns = std::max(required_columns, column[f] + 1);
      }
    }
    if (column[kBlockId] < 0) {
      throw InputError(where + ": no column for field block_id" +
                       (header.empty() ? std::string(" (no header: map block_id to a 0-based index)")
                                       : " (columns: " + known + "; map one with block_id=NAME)"));
    }
    if (column[kBytes] < 0 && options.default_bytes == 0) {
      throw InputError(where + ": no column for field bytes" +
                       (header.empty() ? std::string("") : " (columns: " + known + ")") +
                       "; map one with bytes=NAME|INDEX or set default_bytes");
    }
  }
};

CsvTraceSource::CsvTraceSource(std::filesystem::path path, CsvImportOptions options)
    : state_(std::make_unique<State>()) {
  State& s = *state_;
  s.path = std::move(path);
  s.where = s.path.string();
  require_input_file(s.path);  // a folder named *.csv: "is a directory", not a read error
  s.options = std::move(options);
  s.ids = BlockIdReader(s.options.ids);
  for (auto* list : {&s.options.op_read, &s.options.op_write}) {
    for (auto& v : *list) v = trace_text::to_lower(v);
  }
  s.buffer = std::make_unique<ByteStreamBuf>(s.path, std::size_t{1} << 16, StreamContent::text);
  s.in.rdbuf(s.buffer.get());
  // A read error or a corrupt zstd or gzip stream surfaces as ByteStream's own
  // InputError (file and offset), not as a silent end of the data.
  s.in.exceptions(std::ios::badbit);
  // The first line with content decides about the header.
  std::streampos before = s.in.tellg();
  bool found = false;
  while (trace_text::read_csv_record(s.in, s.options.delimiter, s.line, s.line_no, s.where)) {
    if (!is_blank_or_comment(s.line)) {
      found = true;
      break;
    }
    before = s.in.tellg();
  }
  bool has_header = false;
  if (found) {
    const int n = trace_text::split_csv_line(s.line, s.options.delimiter, s.cells);
    if (n < 0) throw InputError(s.where + ":" + std::to_string(s.line_no) + ": unterminated quote");
    switch (s.options.header) {
      case CsvImportOptions::Header::yes: has_header = true; break;
      case CsvImportOptions::Header::no: has_header = false; break;
      case CsvImportOptions::Header::automatic:
        has_header = std::none_of(s.cells.begin(), s.cells.begin() + n,
                                  [](const std::string& c) { return trace_text::looks_numeric(c); });
        break;
    }
    if (has_header) {
      s.header.assign(s.cells.begin(), s.cells.begin() + n);
      for (auto& h : s.header) {
        h.erase(0, h.find_first_not_of(" \t"));
        h.erase(h.find_last_not_of(" \t") + 1);
      }
      // Two columns of one name: which one a field maps to would be a guess.
      std::unordered_map<std::string, std::size_t> seen;
      for (std::size_t b = 0; b < s.header.size(); ++b) {
        if (s.header[b].empty()) continue;
        const auto [it, fresh] = seen.try_emplace(trace_text::to_lower(s.header[b]), b);
        if (!fresh) {
          throw InputError(s.where + ":" + std::to_string(s.line_no) + ": column '" + trace_text::excerpt(s.header[b]) +
                           "' appears twice in the header (columns " + std::to_string(it->second) + " and " +
                           std::to_string(b) + ", from 0)");
        }
      }
    }
  }
  if (!found) throw InputError(s.where + ": the file is empty (no header, no records)");
  if (has_header) {
    s.data_start = s.in.tellg();
    s.data_start_line = s.line_no;
    // A header and nothing else is a mistake (a cut export), not a trace of 0 accesses.
    std::string next;
    bool any = false;
    std::uint64_t next_line = s.line_no;
    while (!any && trace_text::read_csv_record(s.in, s.options.delimiter, next, next_line, s.where)) {
      any = !is_blank_or_comment(next);
    }
    if (!any) throw InputError(s.where + ": a header and no records");
    s.in.clear();
  } else {
    s.data_start = before;
    s.data_start_line = s.line_no == 0 ? 0 : s.line_no - 1;
  }
  s.resolve_columns();
  s.meta.source = "csv:" + s.where;
  s.meta.has_next_use = s.column[kNextUse] >= 0;
  std::filesystem::path catalog;
  if (s.options.catalog == "auto") {
    const auto sidecar = catalog_sidecar_path(s.path);
    std::error_code ec;
    if (std::filesystem::exists(sidecar, ec)) catalog = sidecar;
  } else if (s.options.catalog != "none" && !s.options.catalog.empty()) {
    catalog = s.options.catalog;
  }
  if (!catalog.empty()) s.meta.catalog = read_catalog_csv(catalog);
  rewind();
}

CsvTraceSource::~CsvTraceSource() = default;

ReadPosition CsvTraceSource::read_position() const {
  const ByteStream& b = state_->buffer->stream();
  return {b.file_position(), b.file_size()};
}

const TraceMeta& CsvTraceSource::meta() const { return state_->meta; }

std::size_t CsvTraceSource::read(std::span<AccessRecord> out) {
  State& s = *state_;
  std::size_t filled = 0;
  while (filled < out.size() && !s.at_end) {
    if (!trace_text::read_csv_record(s.in, s.options.delimiter, s.line, s.line_no, s.where)) {
      if (s.in.bad()) throw InputError(s.where + ": read error after line " + std::to_string(s.line_no));
      s.at_end = true;
      s.meta.record_count = s.record_index;
      break;
    }
    if (is_blank_or_comment(s.line)) continue;
    s.parse_row(out[filled]);
    ++filled;
    ++s.record_index;
  }
  return filled;
}

void CsvTraceSource::rewind() {
  State& s = *state_;
  s.in.clear();
  s.in.seekg(s.data_start);
  s.line_no = s.data_start_line;
  s.record_index = 0;
  s.at_end = false;
  s.validator.reset();
  s.ids.clear();
}

std::vector<BlockCatalogEntry> read_catalog_csv(const std::filesystem::path& path) {
  const std::string where = path.string();
  require_input_file(path);
  // As the trace: plain or compressed, UTF-8 or UTF-16 by its mark.
  ByteStreamBuf buffer(path, std::size_t{1} << 16, StreamContent::text);
  std::istream in(&buffer);
  std::string line;
  std::vector<std::string> cells;
  std::uint64_t line_no = 0;
  while (trace_text::read_csv_record(in, ',', line, line_no, where)) {
    if (!is_blank_or_comment(line)) break;
  }
  const int n_header = trace_text::split_csv_line(line, ',', cells);
  std::vector<std::string> header(cells.begin(), cells.begin() + std::max(0, n_header));
  auto find = [&](const char* name) {
    for (std::size_t c = 0; c < header.size(); ++c) {
      if (trace_text::to_lower(header[c]) == name) return static_cast<int>(c);
    }
    return -1;
  };
  const int c_id = find("id"), c_name = find("name"), c_bytes = find("bytes"), c_begin = find("address_begin"),
            c_end = find("address_end"), c_layer = find("layer"), c_kind = find("kind");
  if (c_id < 0 || c_bytes < 0) throw InputError(where + ":" + std::to_string(line_no) + ": catalog header needs id and bytes");
  std::vector<BlockCatalogEntry> out;
  while (trace_text::read_csv_record(in, ',', line, line_no, where)) {
    if (is_blank_or_comment(line)) continue;
    const int n = trace_text::split_csv_line(line, ',', cells);
    if (n != static_cast<int>(header.size())) {
      throw InputError(where + ":" + std::to_string(line_no) + ": has " + std::to_string(n) + " columns, header has " +
                       std::to_string(header.size()));
    }
    BlockCatalogEntry e;
    auto u64 = [&](int c, std::uint64_t& v, bool optional) {
      if (c < 0) return;
      if (optional && cells[static_cast<std::size_t>(c)].empty()) return;
      if (trace_text::parse_u64(cells[static_cast<std::size_t>(c)], v) != ParseStatus::ok) {
        throw InputError(where + ":" + std::to_string(line_no) + ": column '" + header[static_cast<std::size_t>(c)] +
                         "': '" + trace_text::excerpt(cells[static_cast<std::size_t>(c)]) + "' is not a non-negative integer");
      }
    };
    u64(c_id, e.id, false);
    u64(c_bytes, e.bytes, false);
    u64(c_begin, e.address_begin, true);
    u64(c_end, e.address_end, true);
    if (c_layer >= 0 && !cells[static_cast<std::size_t>(c_layer)].empty()) {
      std::int64_t layer = 0;
      if (trace_text::parse_i64(cells[static_cast<std::size_t>(c_layer)], layer) != ParseStatus::ok ||
          layer < std::numeric_limits<std::int32_t>::min() || layer > std::numeric_limits<std::int32_t>::max()) {
        throw InputError(where + ":" + std::to_string(line_no) + ": column 'layer': '" +
                         trace_text::excerpt(cells[static_cast<std::size_t>(c_layer)]) + "' is not an integer");
      }
      e.layer = static_cast<std::int32_t>(layer);
    }
    if (c_name >= 0) e.name = cells[static_cast<std::size_t>(c_name)];
    if (c_kind >= 0) e.kind = cells[static_cast<std::size_t>(c_kind)];
    out.push_back(std::move(e));
  }
  return out;
}

namespace {

FLASHSIM_REGISTER_TRACE_FORMAT((TraceFormatRegistry::Entry{
    "csv",
    "CSV text, one access per line; columns mapped by header name or 0-based index; .zst or .gz, UTF-8 or UTF-16 "
    "by BOM",
    csv_import_params(),
    [](const ParamValues& p, const TraceOpenContext& c) -> std::unique_ptr<ITraceSource> {
      return std::make_unique<CsvTraceSource>(c.path, csv_import_options(p));
    }}));

}  // namespace

}  // namespace flashsim
