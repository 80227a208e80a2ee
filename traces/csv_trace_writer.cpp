#include "traces/csv_trace_writer.h"

#include <charconv>
#include <cstdio>
#include <string>

#include "sim/core/errors.h"
#include "traces/atomic_file.h"
#include "traces/text_fields.h"

namespace flashsim {

namespace {

constexpr const char* kHeader =
    "time_ns,block_id,bytes,op,stream_id,request_id,token_index,phase,operator_id,compute_ns,address,offset";

template <class T>
void put_number(std::string& out, T value) {
  char buf[32];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), value);
  (void)ec;
  out.append(buf, end);
}

// An optional field: empty cell when it holds its default.
template <class T>
void put_optional(std::string& out, T value, T default_value) {
  out.push_back(',');
  if (value != default_value) put_number(out, value);
}

class FileOut {
 public:
  explicit FileOut(const std::filesystem::path& path) : path_(path), f_(std::fopen(path.c_str(), "wb")) {
    if (f_ == nullptr) throw Error("cannot open '" + path.string() + "' for writing");
  }
  ~FileOut() {
    if (f_ != nullptr) std::fclose(f_);
  }
  FileOut(const FileOut&) = delete;
  FileOut& operator=(const FileOut&) = delete;
  void put(const std::string& text) {
    if (std::fwrite(text.data(), 1, text.size(), f_) != text.size()) {
      throw Error("writing '" + path_.string() + "' failed (disk full?)");
    }
  }
  void close() {
    const int rc = std::fclose(f_);
    f_ = nullptr;
    if (rc != 0) throw Error("closing '" + path_.string() + "' failed (disk full?)");
  }

 private:
  std::filesystem::path path_;
  std::FILE* f_;
};

}  // namespace

std::filesystem::path catalog_sidecar_path(const std::filesystem::path& csv_path) {
  std::filesystem::path inner = csv_path;  // t.csv.gz and t.csv.zst are t.csv compressed
  const std::string ext = trace_text::to_lower(inner.extension().string());
  if (ext == ".gz" || ext == ".zst") inner.replace_extension();
  std::filesystem::path out = csv_path;
  out.replace_filename(inner.stem().string() + ".catalog.csv");
  return out;
}

struct CsvTraceWriter::State {
  TraceMeta meta;
  AtomicFile output;
  FileOut file;
  std::string text;
  bool finished = false;
  State(std::filesystem::path path, TraceMeta m)
      : meta(std::move(m)), output(std::move(path)), file(output.temp_path()) {}
};

CsvTraceWriter::CsvTraceWriter(std::filesystem::path path, TraceMeta meta)
    : state_(std::make_unique<State>(std::move(path), std::move(meta))) {
  state_->text = kHeader;
  if (state_->meta.has_next_use) state_->text += ",next_use_index";
  state_->text += '\n';
}

CsvTraceWriter::~CsvTraceWriter() = default;

void CsvTraceWriter::write(std::span<const AccessRecord> records) {
  State& s = *state_;
  if (s.finished) throw Error("CsvTraceWriter: write() after finish() ('" + s.output.target().string() + "')");
  const AccessRecord d{};
  std::string& out = s.text;
  for (const AccessRecord& r : records) {
    put_number(out, r.time_ns);
    out.push_back(',');
    put_number(out, r.block_id);
    out.push_back(',');
    put_number(out, r.bytes);
    out += r.op == AccessOp::write ? ",w," : ",r,";
    put_number(out, r.stream_id);
    put_optional(out, r.request_id, d.request_id);
    put_optional(out, r.token_index, d.token_index);
    out += r.phase == Phase::prefill ? ",prefill" : r.phase == Phase::decode ? ",decode" : ",";
    put_optional(out, r.operator_id, d.operator_id);
    put_optional(out, r.compute_ns, d.compute_ns);
    put_optional(out, r.address, d.address);
    put_optional(out, r.offset, d.offset);
    if (s.meta.has_next_use) put_optional(out, r.next_use_index, d.next_use_index);
    out.push_back('\n');
  }
  if (out.size() > (1u << 20)) {
    s.file.put(out);
    out.clear();
  }
}

void CsvTraceWriter::finish() {
  State& s = *state_;
  if (s.finished) throw Error("CsvTraceWriter: finish() called twice ('" + s.output.target().string() + "')");
  s.finished = true;
  s.file.put(s.text);
  s.text.clear();
  s.file.close();
  if (!s.meta.catalog.empty()) {
    AtomicFile sidecar(catalog_sidecar_path(s.output.target()));
    FileOut out(sidecar.temp_path());
    std::string text = "id,name,bytes,address_begin,address_end,layer,kind\n";
    for (const auto& e : s.meta.catalog) {
      put_number(text, e.id);
      text += ',' + trace_text::csv_quote(e.name) + ',';
      put_number(text, e.bytes);
      put_optional(text, e.address_begin, kNoAddress);
      put_optional(text, e.address_end, kNoAddress);
      text.push_back(',');
      put_number(text, e.layer);
      text += ',' + trace_text::csv_quote(e.kind) + '\n';
    }
    out.put(text);
    out.close();
    sidecar.commit();
  }
  s.output.commit();
}

}  // namespace flashsim
