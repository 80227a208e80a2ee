#include "traces/hdf5_trace.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <mutex>
#include <set>
#include <string>
#include <tuple>

#include "sim/core/errors.h"
#include "sim/core/hash_map.h"
#include "sim/core/input_file.h"
#include "traces/atomic_file.h"
#include "traces/child_probe.h"
#include "traces/hdf5_io.h"
#include "traces/hdf5_program.h"

namespace flashsim {

namespace {

constexpr const char* kRecordsGroup = "records";
constexpr const char* kCatalogGroup = "catalog";
constexpr const char* kOperatorsGroup = "operators";
constexpr const char* kStreamsGroup = "streams";
// Traces with more streams than this carry no /streams group (a reader's
// first pass finds them); real traces have a handful.
constexpr std::size_t kMaxSummaryStreams = 1 << 16;

// A numeric 1-D dataset of `n` elements from `data`.
void write_column(hid_t group, const char* name, hid_t file_type, hid_t mem_type, std::size_t n, const void* data) {
  const hsize_t chunk = std::clamp<hsize_t>(n, 1, 65536);
  h5::Handle d = h5::create_extendible(group, name, file_type, mem_type, chunk, 4, nullptr);
  h5::set_length(d.get(), n);
  h5::write_range(d.get(), mem_type, 0, n, data);
}

// A list of variable-length lists as two datasets: <name>_length (u32, one
// per entry) and <name> (the elements of every entry, concatenated).
template <class T>
void write_ragged(hid_t group, const std::string& name, hid_t file_type, hid_t mem_type,
                  const std::vector<const std::vector<T>*>& lists) {
  std::vector<std::uint32_t> lengths;
  std::vector<T> values;
  lengths.reserve(lists.size());
  for (const auto* list : lists) {
    lengths.push_back(static_cast<std::uint32_t>(list->size()));
    values.insert(values.end(), list->begin(), list->end());
  }
  write_column(group, (name + "_length").c_str(), H5T_STD_U32LE, H5T_NATIVE_UINT32, lengths.size(), lengths.data());
  write_column(group, name.c_str(), file_type, mem_type, values.size(), values.data());
}

void write_catalog(hid_t file, const std::vector<BlockCatalogEntry>& catalog) {
  h5::Handle group = h5::create_group(file, kCatalogGroup);
  const std::size_t n = catalog.size();
  std::vector<std::uint64_t> ids(n), bytes(n), begins(n), ends(n);
  std::vector<std::int32_t> layers(n), concepts(n);
  std::vector<std::string> names(n), kinds(n), segments(n);
  std::vector<const std::vector<float>*> embeddings(n);
  bool any_segment = false, any_concept = false, any_embedding = false;
  for (std::size_t i = 0; i < n; ++i) {
    ids[i] = catalog[i].id;
    bytes[i] = catalog[i].bytes;
    begins[i] = catalog[i].address_begin;
    ends[i] = catalog[i].address_end;
    layers[i] = catalog[i].layer;
    names[i] = catalog[i].name;
    kinds[i] = catalog[i].kind;
    segments[i] = catalog[i].segment;
    concepts[i] = catalog[i].concept_id;
    embeddings[i] = &catalog[i].embedding;
    any_segment |= !catalog[i].segment.empty();
    any_concept |= catalog[i].concept_id != -1;
    any_embedding |= !catalog[i].embedding.empty();
  }
  const hid_t g = group.get();
  write_column(g, "id", H5T_STD_U64LE, H5T_NATIVE_UINT64, n, ids.data());
  h5::write_strings(g, "name", names);
  write_column(g, "bytes", H5T_STD_U64LE, H5T_NATIVE_UINT64, n, bytes.data());
  write_column(g, "address_begin", H5T_STD_U64LE, H5T_NATIVE_UINT64, n, begins.data());
  write_column(g, "address_end", H5T_STD_U64LE, H5T_NATIVE_UINT64, n, ends.data());
  write_column(g, "layer", H5T_STD_I32LE, H5T_NATIVE_INT32, n, layers.data());
  h5::write_strings(g, "kind", kinds);
  // Optional columns: written only when some entry differs from the default,
  // so a recorded trace's file is what it was before they existed.
  if (any_segment) h5::write_strings(g, "segment", segments);
  if (any_concept) write_column(g, "concept_id", H5T_STD_I32LE, H5T_NATIVE_INT32, n, concepts.data());
  if (any_embedding) write_ragged<float>(g, "embedding", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, embeddings);
}

void write_operators(hid_t file, const std::vector<OperatorEntry>& operators) {
  if (operators.empty()) return;
  h5::Handle group = h5::create_group(file, kOperatorsGroup);
  const std::size_t n = operators.size();
  std::vector<std::string> names(n), segments(n);
  std::vector<std::int32_t> layers(n);
  std::vector<std::int64_t> compute(n);
  std::vector<const std::vector<BlockId>*> blocks(n), routed(n);
  for (std::size_t i = 0; i < n; ++i) {
    names[i] = operators[i].name;
    segments[i] = operators[i].segment;
    layers[i] = operators[i].layer;
    compute[i] = operators[i].compute_ns;
    blocks[i] = &operators[i].blocks;
    routed[i] = &operators[i].routed_blocks;
  }
  const hid_t g = group.get();
  h5::write_strings(g, "name", names);
  write_column(g, "layer", H5T_STD_I32LE, H5T_NATIVE_INT32, n, layers.data());
  h5::write_strings(g, "segment", segments);
  write_column(g, "compute_ns", H5T_STD_I64LE, H5T_NATIVE_INT64, n, compute.data());
  write_ragged<BlockId>(g, "blocks", H5T_STD_U64LE, H5T_NATIVE_UINT64, blocks);
  write_ragged<BlockId>(g, "routed_blocks", H5T_STD_U64LE, H5T_NATIVE_UINT64, routed);
}

// The streams a first pass would find (TraceMeta::streams) as columns of
// /streams, and whether any record has a request (its attribute has_requests).
void write_streams(hid_t file, const std::vector<StreamSummary>& streams, bool has_requests) {
  h5::Handle group = h5::create_group(file, kStreamsGroup);
  const std::size_t n = streams.size();
  std::vector<std::uint32_t> ids(n);
  std::vector<std::int64_t> first(n);
  std::vector<std::uint64_t> records(n);
  for (std::size_t i = 0; i < n; ++i) {
    ids[i] = streams[i].stream_id;
    first[i] = streams[i].first_time_ns;
    records[i] = streams[i].records;
  }
  const hid_t g = group.get();
  write_column(g, "stream_id", H5T_STD_U32LE, H5T_NATIVE_UINT32, n, ids.data());
  write_column(g, "first_time_ns", H5T_STD_I64LE, H5T_NATIVE_INT64, n, first.data());
  write_column(g, "records", H5T_STD_U64LE, H5T_NATIVE_UINT64, n, records.data());
  h5::write_attr_int(g, "has_requests", H5T_STD_U8LE, has_requests ? 1 : 0);
}

// Reads the ragged lists written by write_ragged: `n` lists, or none when
// both datasets are absent. Throws InputError naming the dataset.
template <class T>
std::vector<std::vector<T>> read_ragged(hid_t group, const std::string& name, hid_t mem_type, hsize_t n,
                                        const std::string& prefix) {
  const std::string length_name = name + "_length";
  const bool has_lengths = h5::link_exists(group, length_name.c_str());
  const bool has_values = h5::link_exists(group, name.c_str());
  if (!has_lengths && !has_values) return {};
  if (has_lengths != has_values) {
    throw InputError(prefix + (has_lengths ? name : length_name) + " is missing (" +
                     (has_lengths ? length_name : name) + " is present)");
  }
  h5::Handle lengths_d = h5::open_dataset(group, length_name.c_str());
  if (h5::length(lengths_d.get(), prefix + length_name) != n) {
    throw InputError(prefix + length_name + " does not have one element per entry (" + std::to_string(n) + ")");
  }
  std::vector<std::uint32_t> lengths(n);
  h5::read_range(lengths_d.get(), H5T_NATIVE_UINT32, 0, n, lengths.data());
  std::uint64_t total = 0;
  for (std::uint32_t len : lengths) total += len;
  h5::Handle values_d = h5::open_dataset(group, name.c_str());
  const hsize_t have = h5::length(values_d.get(), prefix + name);
  if (have != total) {
    throw InputError(prefix + name + " has " + std::to_string(have) + " elements, " + length_name + " sums to " +
                     std::to_string(total));
  }
  std::vector<T> values(total);
  h5::read_range(values_d.get(), mem_type, 0, total, values.data());
  std::vector<std::vector<T>> out(n);
  std::size_t at = 0;
  for (hsize_t i = 0; i < n; ++i) {
    out[i].assign(values.begin() + static_cast<std::ptrdiff_t>(at),
                  values.begin() + static_cast<std::ptrdiff_t>(at + lengths[i]));
    at += lengths[i];
  }
  return out;
}

std::vector<BlockCatalogEntry> read_catalog(hid_t file, const std::string& where) {
  std::vector<BlockCatalogEntry> catalog;
  if (!h5::link_exists(file, kCatalogGroup)) return catalog;
  h5::Handle group = h5::open_group(file, kCatalogGroup);
  const std::string prefix = where + ": dataset /catalog/";
  if (!h5::link_exists(group.get(), "id")) throw InputError(prefix + "id is missing");
  h5::Handle ids = h5::open_dataset(group.get(), "id");
  const hsize_t n = h5::length(ids.get(), prefix + "id");
  catalog.resize(n);
  std::vector<std::uint64_t> u64(n);
  std::vector<std::int32_t> i32(n);
  h5::read_range(ids.get(), H5T_NATIVE_UINT64, 0, n, u64.data());
  for (hsize_t i = 0; i < n; ++i) catalog[i].id = u64[i];
  auto open_column = [&](const char* name) -> h5::Handle {
    if (!h5::link_exists(group.get(), name)) return {};
    h5::Handle d = h5::open_dataset(group.get(), name);
    const hsize_t len = h5::length(d.get(), prefix + name);
    if (len != n) {
      throw InputError(prefix + name + " has " + std::to_string(len) + " elements, /catalog/id has " +
                       std::to_string(n));
    }
    return d;
  };
  auto u64_column = [&](const char* name, std::uint64_t BlockCatalogEntry::*member) {
    h5::Handle d = open_column(name);
    if (!d) return;
    h5::read_range(d.get(), H5T_NATIVE_UINT64, 0, n, u64.data());
    for (hsize_t i = 0; i < n; ++i) catalog[i].*member = u64[i];
  };
  auto string_column = [&](const char* name, std::string BlockCatalogEntry::*member) {
    h5::Handle d = open_column(name);
    if (!d) return;
    std::vector<std::string> values;
    try {
      values = h5::read_strings(d.get(), n);
    } catch (const Error& e) {
      throw InputError(prefix + name + ": " + e.what());
    }
    for (hsize_t i = 0; i < n; ++i) catalog[i].*member = std::move(values[i]);
  };
  u64_column("bytes", &BlockCatalogEntry::bytes);
  u64_column("address_begin", &BlockCatalogEntry::address_begin);
  u64_column("address_end", &BlockCatalogEntry::address_end);
  string_column("name", &BlockCatalogEntry::name);
  string_column("kind", &BlockCatalogEntry::kind);
  string_column("segment", &BlockCatalogEntry::segment);
  auto i32_column = [&](const char* name, std::int32_t BlockCatalogEntry::*member) {
    h5::Handle d = open_column(name);
    if (!d) return;
    h5::read_range(d.get(), H5T_NATIVE_INT32, 0, n, i32.data());
    for (hsize_t i = 0; i < n; ++i) catalog[i].*member = i32[i];
  };
  i32_column("layer", &BlockCatalogEntry::layer);
  i32_column("concept_id", &BlockCatalogEntry::concept_id);
  auto embeddings = read_ragged<float>(group.get(), "embedding", H5T_NATIVE_FLOAT, n, prefix);
  for (hsize_t i = 0; i < embeddings.size(); ++i) catalog[i].embedding = std::move(embeddings[i]);
  return catalog;
}

std::vector<OperatorEntry> read_operators(hid_t file, const std::string& where) {
  std::vector<OperatorEntry> operators;
  if (!h5::link_exists(file, kOperatorsGroup)) return operators;
  h5::Handle group = h5::open_group(file, kOperatorsGroup);
  const hid_t g = group.get();
  const std::string prefix = where + ": dataset /operators/";
  if (!h5::link_exists(g, "name")) throw InputError(prefix + "name is missing");
  h5::Handle names_d = h5::open_dataset(g, "name");
  const hsize_t n = h5::length(names_d.get(), prefix + "name");
  operators.resize(n);
  auto strings = [&](const char* name, std::string OperatorEntry::*member, h5::Handle d) {
    if (!d) return;
    std::vector<std::string> values;
    try {
      values = h5::read_strings(d.get(), n);
    } catch (const Error& e) {
      throw InputError(prefix + name + ": " + e.what());
    }
    for (hsize_t i = 0; i < n; ++i) operators[i].*member = std::move(values[i]);
  };
  auto open_column = [&](const char* name) -> h5::Handle {
    if (!h5::link_exists(g, name)) return {};
    h5::Handle d = h5::open_dataset(g, name);
    const hsize_t len = h5::length(d.get(), prefix + name);
    if (len != n) {
      throw InputError(prefix + name + " has " + std::to_string(len) + " elements, /operators/name has " +
                       std::to_string(n));
    }
    return d;
  };
  strings("name", &OperatorEntry::name, std::move(names_d));
  strings("segment", &OperatorEntry::segment, open_column("segment"));
  if (h5::Handle d = open_column("layer")) {
    std::vector<std::int32_t> v(n);
    h5::read_range(d.get(), H5T_NATIVE_INT32, 0, n, v.data());
    for (hsize_t i = 0; i < n; ++i) operators[i].layer = v[i];
  }
  if (h5::Handle d = open_column("compute_ns")) {
    std::vector<std::int64_t> v(n);
    h5::read_range(d.get(), H5T_NATIVE_INT64, 0, n, v.data());
    for (hsize_t i = 0; i < n; ++i) operators[i].compute_ns = v[i];
  }
  auto blocks = read_ragged<BlockId>(g, "blocks", H5T_NATIVE_UINT64, n, prefix);
  for (hsize_t i = 0; i < blocks.size(); ++i) operators[i].blocks = std::move(blocks[i]);
  auto routed = read_ragged<BlockId>(g, "routed_blocks", H5T_NATIVE_UINT64, n, prefix);
  for (hsize_t i = 0; i < routed.size(); ++i) operators[i].routed_blocks = std::move(routed[i]);
  return operators;
}

// /streams (write_streams) into meta, checked against the records' count;
// absent: meta.streams_known stays false. Throws InputError naming the dataset.
void read_streams(hid_t file, const std::string& where, TraceMeta& meta) {
  if (!h5::link_exists(file, kStreamsGroup)) return;
  h5::Handle group = h5::open_group(file, kStreamsGroup);
  const hid_t g = group.get();
  const std::string prefix = where + ": /streams/";
  hsize_t n = 0;
  std::vector<h5::Handle> columns;
  for (const char* name : {"stream_id", "first_time_ns", "records"}) {
    if (!h5::link_exists(g, name)) throw InputError(prefix + name + " is missing");
    columns.push_back(h5::open_dataset(g, name));
    const hsize_t len = h5::length(columns.back().get(), prefix + name);
    if (columns.size() == 1) n = len;
    if (len != n) throw InputError(prefix + name + " has " + std::to_string(len) + " elements, /streams/stream_id has " + std::to_string(n));
  }
  if (n > kMaxSummaryStreams) {
    throw InputError(prefix + "stream_id has " + std::to_string(n) + " elements, more than the " +
                     std::to_string(kMaxSummaryStreams) + " a trace may list");
  }
  const std::optional<std::int64_t> has_requests = h5::read_attr_int(g, "has_requests");
  if (!has_requests || (*has_requests != 0 && *has_requests != 1)) {
    throw InputError(where + ": attribute /streams has_requests is missing or not 0/1");
  }
  std::vector<std::uint32_t> ids(n);
  std::vector<std::int64_t> first(n);
  std::vector<std::uint64_t> records(n);
  h5::read_range(columns[0].get(), H5T_NATIVE_UINT32, 0, n, ids.data());
  h5::read_range(columns[1].get(), H5T_NATIVE_INT64, 0, n, first.data());
  h5::read_range(columns[2].get(), H5T_NATIVE_UINT64, 0, n, records.data());
  std::set<std::uint32_t> seen;
  std::uint64_t total = 0;
  for (hsize_t i = 0; i < n; ++i) {
    if (!seen.insert(ids[i]).second) throw InputError(prefix + "stream_id[" + std::to_string(i) + "] = " + std::to_string(ids[i]) + ": listed twice");
    if (records[i] == 0 || records[i] > meta.record_count - total) {
      throw InputError(prefix + "records[" + std::to_string(i) + "] = " + std::to_string(records[i]) +
                       ": the streams' records must be > 0 and sum to record_count (" + std::to_string(meta.record_count) + ")");
    }
    total += records[i];
    meta.streams.push_back(StreamSummary{ids[i], first[i], records[i]});
  }
  if (total != meta.record_count) {
    throw InputError(prefix + "records sum to " + std::to_string(total) + ", record_count is " + std::to_string(meta.record_count));
  }
  meta.has_requests = *has_requests == 1;
  meta.streams_known = true;
}

}  // namespace

// ---------------------------------------------------------------- writer

struct Hdf5TraceWriter::State {
  AtomicFile output;
  TraceMeta meta;
  Hdf5WriteOptions options;
  h5::Handle file;
  h5::Handle records;
  std::vector<h5::Handle> datasets;  // per record field; empty handle = not created (yet)
  std::vector<AccessRecord> buffer;
  std::vector<unsigned char> packed;
  std::uint64_t written = 0;
  bool finished = false;
  bool failed = false;  // a write() threw: the file may lack records

  State(std::filesystem::path path, TraceMeta m, Hdf5WriteOptions o)
      : output(std::move(path)), meta(std::move(m)), options(o) {}

  // What a first pass would find (TraceMeta::streams), kept as records are written.
  std::vector<StreamSummary> streams;
  HashMap<std::uint32_t, std::size_t> stream_slot;
  std::size_t last_slot = 0;
  bool any_request = false;
  bool too_many_streams = false;

  void note_streams(std::span<const AccessRecord> records) {
    for (const AccessRecord& r : records) {
      if (r.request_id != kNoRequest) any_request = true;
      if (too_many_streams) continue;
      if (streams.empty() || streams[last_slot].stream_id != r.stream_id) {
        const auto [it, added] = stream_slot.emplace(r.stream_id, streams.size());
        if (added) {
          if (streams.size() == kMaxSummaryStreams) {
            too_many_streams = true;
            continue;
          }
          streams.push_back(StreamSummary{r.stream_id, r.time_ns, 0});
        }
        last_slot = it->second;
      }
      ++streams[last_slot].records;
    }
  }

  bool wanted(std::size_t k, bool any_non_default) const {
    const auto& field = h5::record_fields()[k];
    if (field.core) return true;
    if (k == h5::next_use_field_index()) return meta.has_next_use;
    return !options.omit_default_fields || any_non_default;
  }

  void create(std::size_t k) {
    const auto& field = h5::record_fields()[k];
    unsigned char fill[h5::kMaxElementSize];
    field.default_value(fill);
    // A trace shorter than one chunk gets a chunk of its length: a reader
    // inflates whole chunks, and 64 Ki records of fill for a 300-record
    // capture cost more than replaying it (BENCHMARKS.md, issue 27 (a)).
    const std::size_t known = written + buffer.size();
    const std::size_t chunk = std::clamp<std::size_t>(known, 1, options.chunk_records);
    datasets[k] = h5::create_extendible(records.get(), field.name, field.file_type(), field.mem_type(), chunk,
                                        options.deflate_level, fill);
    // Records before this one were all default: extending reads them back as the fill value.
    if (written > 0) h5::set_length(datasets[k].get(), written);
  }

  void flush() {
    const std::size_t n = buffer.size();
    if (n == 0) return;
    note_streams(buffer);
    const auto& fields = h5::record_fields();
    for (std::size_t k = 0; k < fields.size(); ++k) {
      const auto& field = fields[k];
      if (!datasets[k]) {
        const bool any = std::any_of(buffer.begin(), buffer.end(),
                                     [&](const AccessRecord& r) { return !field.is_default(r); });
        if (!wanted(k, any)) continue;
        create(k);
      }
      field.gather(buffer.data(), n, packed.data());
      h5::set_length(datasets[k].get(), written + n);
      h5::write_range(datasets[k].get(), field.mem_type(), written, n, packed.data());
    }
    written += n;
    buffer.clear();
  }
};

Hdf5TraceWriter::Hdf5TraceWriter(std::filesystem::path path, TraceMeta meta, Hdf5WriteOptions options) {
  if (options.chunk_records == 0) throw Error("Hdf5TraceWriter: chunk_records must be > 0");
  if (options.deflate_level < 0 || options.deflate_level > 9) {
    throw Error("Hdf5TraceWriter: deflate_level must be in 0..9");
  }
  if (meta.schema_version < kTraceSchemaVersionOldest || meta.schema_version > kTraceSchemaVersion) {
    throw Error("Hdf5TraceWriter: cannot write schema version " + std::to_string(meta.schema_version) +
                " (this build writes " + std::to_string(kTraceSchemaVersionOldest) + " to " +
                std::to_string(kTraceSchemaVersion) + ")");
  }
  state_ = std::make_unique<State>(std::move(path), std::move(meta), options);
  h5::QuietErrors quiet;
  state_->file = h5::create_file(state_->output.temp_path().string());
  state_->records = h5::create_group(state_->file.get(), kRecordsGroup);
  state_->datasets.resize(h5::record_fields().size());
  state_->buffer.reserve(options.chunk_records);
  state_->packed.resize(options.chunk_records * h5::kMaxElementSize);
}

Hdf5TraceWriter::~Hdf5TraceWriter() {
  if (!state_) return;
  h5::QuietErrors quiet;
  // Still open here = never finished: the output is deleted, so closing must
  // not write (a failing close would leave HDF5's id table corrupt).
  if (state_->file) h5::abandon_file(state_->file.get());
  state_->datasets.clear();
  state_->records.reset();
  state_->file.reset();
  // state_->output's destructor removes the temp file unless committed.
}

void Hdf5TraceWriter::write(std::span<const AccessRecord> records) {
  State& s = *state_;
  if (s.finished) throw Error("Hdf5TraceWriter: write() after finish() ('" + s.output.target().string() + "')");
  if (s.failed) throw Error("writing '" + s.output.target().string() + "': an earlier write failed");
  h5::QuietErrors quiet;
  try {
    while (!records.empty()) {
      const std::size_t room = s.options.chunk_records - s.buffer.size();
      const std::size_t n = std::min(room, records.size());
      s.buffer.insert(s.buffer.end(), records.begin(), records.begin() + static_cast<std::ptrdiff_t>(n));
      records = records.subspan(n);
      if (s.buffer.size() == s.options.chunk_records) s.flush();
    }
  } catch (const Error& e) {
    s.failed = true;
    throw Error("writing '" + s.output.target().string() + "': " + e.what());
  }
}

void Hdf5TraceWriter::set_catalog(std::vector<BlockCatalogEntry> catalog) { state_->meta.catalog = std::move(catalog); }

std::uint64_t Hdf5TraceWriter::records_written() const { return state_->written + state_->buffer.size(); }

void Hdf5TraceWriter::finish() {
  State& s = *state_;
  if (s.finished) throw Error("Hdf5TraceWriter: finish() called twice ('" + s.output.target().string() + "')");
  h5::QuietErrors quiet;
  try {
    if (s.failed) throw Error("an earlier write failed");
    s.flush();
    for (std::size_t k = 0; k < s.datasets.size(); ++k) {
      if (!s.datasets[k] && s.wanted(k, false)) s.create(k);
    }
    const hid_t root = s.file.get();
    // The oldest version that holds the trace (older readers keep working).
    h5::write_attr_int(root, "schema_version", H5T_STD_I32LE,
                       s.meta.program ? s.meta.program->schema_version() : kTraceSchemaVersionOldest);
    h5::write_attr_string(root, "source", s.meta.source);
    h5::write_attr_string(root, "units", kTraceUnits);
    h5::write_attr_int(root, "record_count", H5T_STD_U64LE, static_cast<std::int64_t>(s.written));
    h5::write_attr_int(root, "has_next_use", H5T_STD_U8LE, s.meta.has_next_use ? 1 : 0);
    write_catalog(root, s.meta.catalog);
    write_operators(root, s.meta.operators);
    if (s.meta.program) write_program(root, *s.meta.program);
    if (s.written > 0 && !s.too_many_streams) write_streams(root, s.streams, s.any_request);
    // Everything reaches the disk while all objects are open; only then close
    // (hdf5_io.h, "closing files being written").
    h5::flush_file(root, "flushing");
    s.datasets.clear();
    s.records.reset();
    h5::check_status(H5Fclose(s.file.release()), "closing");
  } catch (const Error& e) {
    s.finished = true;
    if (s.file) h5::abandon_file(s.file.get());
    s.datasets.clear();
    s.records.reset();
    s.file.reset();
    s.output.discard();
    throw Error("writing '" + s.output.target().string() + "': " + e.what());
  }
  s.finished = true;
  s.output.commit();
}

// ---------------------------------------------------------------- reader

struct Hdf5TraceSource::State {
  std::filesystem::path path;
  std::string where;  // path as text, for messages
  TraceMeta meta;
  std::string units;
  std::size_t window = 0;
  h5::Handle file;
  std::vector<h5::Handle> datasets;                 // per record field; empty = absent
  std::vector<std::vector<unsigned char>> columns;  // per record field: the window's values, packed
  std::uint64_t window_begin = 0;                   // file index of the window's first record
  std::size_t window_len = 0;
  std::size_t window_pos = 0;
  std::uint64_t next_index = 0;  // file index of the first record after the window
  RecordValidator validator;

  void load_window() {
    const std::uint64_t remaining = meta.record_count - next_index;
    const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(window, remaining));
    const auto& fields = h5::record_fields();
    for (std::size_t k = 0; k < fields.size(); ++k) {
      if (!datasets[k]) continue;
      try {
        h5::read_range(datasets[k].get(), fields[k].mem_type(), next_index, n, columns[k].data());
      } catch (const Error& e) {
        throw InputError(where + ": dataset /records/" + fields[k].name + ", records " +
                         std::to_string(next_index) + ".." + std::to_string(next_index + n - 1) + ": " + e.what());
      }
    }
    window_begin = next_index;
    window_len = n;
    window_pos = 0;
    next_index += n;
  }

  // Builds out[0..n) from the window at window_pos, in cache-sized blocks.
  void decode(AccessRecord* out, std::size_t n) {
    constexpr std::size_t kBlock = 1024;
    const auto& fields = h5::record_fields();
    for (std::size_t done = 0; done < n; done += kBlock) {
      const std::size_t m = std::min(kBlock, n - done);
      AccessRecord* o = out + done;
      const std::size_t at = window_pos + done;
      std::fill_n(o, m, AccessRecord{});
      for (std::size_t k = 0; k < fields.size(); ++k) {
        if (datasets[k]) fields[k].scatter(columns[k].data() + at * fields[k].element_size, m, o);
      }
      for (std::size_t i = 0; i < m; ++i) {
        std::string problem = validator.check(o[i]);
        if (!problem.empty()) {
          throw InputError(where + ": record " + std::to_string(window_begin + at + i) + ": " + problem);
        }
      }
    }
    window_pos += n;
  }
};

Hdf5TraceSource::Hdf5TraceSource(std::filesystem::path path, std::size_t window_records)
    : state_(std::make_unique<State>()) {
  State& s = *state_;
  s.path = std::move(path);
  s.where = s.path.string();
  s.window = std::max<std::size_t>(1, window_records);
  require_input_file(s.path);
  if (!is_hdf5_file(s.path)) throw InputError(s.where + ": not an HDF5 file");
  h5::QuietErrors quiet;
  probe(s);
  try {
    open(s);
  } catch (const InputError& e) {
    if (std::string_view(e.what()).starts_with(s.where)) throw;
    throw InputError(s.where + ": " + e.what());
  } catch (const Error& e) {
    throw InputError(s.where + ": unreadable (a damaged file?): " + e.what());
  }
}

void Hdf5TraceSource::probe(const State& s) {
  // Once per file (path, size, modification time) and process: the runner
  // opens one trace once per run.
  static std::mutex mutex;
  static std::set<std::tuple<std::string, std::uintmax_t, std::filesystem::file_time_type::rep>> probed;
  std::error_code ec;
  const auto size = std::filesystem::file_size(s.path, ec);
  const auto mtime = std::filesystem::last_write_time(s.path, ec).time_since_epoch().count();
  {
    std::lock_guard lock(mutex);
    if (ec || !probed.emplace(s.where, size, mtime).second) return;
  }
  // A whole-file probe of a sound trace takes well under a second (metadata
  // and two windows); 30 s is only reached by a file libhdf5 loops on.
  constexpr std::chrono::seconds kProbeTimeout{30};
  const std::string death = death_in_child([&] {
    State p;
    p.path = s.path;
    p.where = s.where;
    p.window = s.window;
    open(p);
    // The first and the last window: the chunk index at both ends.
    if (p.meta.record_count == 0) return;
    p.load_window();
    if (p.meta.record_count > p.window) {
      p.next_index = p.meta.record_count - p.window;
      p.load_window();
    }
  }, kProbeTimeout);
  if (!death.empty()) {
    throw InputError(s.where + ": damaged HDF5 file: a child process that read it first with the HDF5 library " +
                     death);
  }
}

void Hdf5TraceSource::open(State& s) {
  s.file = h5::open_file_read(s.where);
  const hid_t root = s.file.get();
  const auto version = h5::read_attr_int(root, "schema_version");
  if (!version) throw InputError(s.where + ": attribute schema_version is missing (not a flashsim trace?)");
  if (*version < kTraceSchemaVersionOldest || *version > kTraceSchemaVersion) {
    throw InputError(s.where + ": schema_version " + std::to_string(*version) + " is not supported (this build reads " +
                     std::to_string(kTraceSchemaVersionOldest) + " to " + std::to_string(kTraceSchemaVersion) + ")");
  }
  s.meta.schema_version = static_cast<int>(*version);
  const auto count = h5::read_attr_int(root, "record_count");
  if (!count) throw InputError(s.where + ": attribute record_count is missing");
  if (*count < 0) throw InputError(s.where + ": attribute record_count is negative");
  s.meta.record_count = static_cast<std::uint64_t>(*count);
  s.meta.source = h5::read_attr_string(root, "source").value_or("");
  s.units = h5::read_attr_string(root, "units").value_or("");
  s.meta.has_next_use = h5::read_attr_int(root, "has_next_use").value_or(0) != 0;

  if (!h5::link_exists(root, kRecordsGroup)) throw InputError(s.where + ": group /records is missing");
  h5::Handle records = h5::open_group(root, kRecordsGroup);
  const auto& fields = h5::record_fields();
  s.datasets.resize(fields.size());
  for (std::size_t k = 0; k < fields.size(); ++k) {
    const std::string name = std::string("/records/") + fields[k].name;
    if (!h5::link_exists(records.get(), fields[k].name)) {
      if (fields[k].core) throw InputError(s.where + ": dataset " + name + " is missing");
      if (k == h5::next_use_field_index() && s.meta.has_next_use) {
        throw InputError(s.where + ": has_next_use is set but dataset " + name + " is missing");
      }
      continue;
    }
    s.datasets[k] = h5::open_dataset(records.get(), fields[k].name);
    const hsize_t n = h5::length(s.datasets[k].get(), s.where + ": dataset " + name);
    if (n != s.meta.record_count) {
      throw InputError(s.where + ": dataset " + name + " has " + std::to_string(n) + " elements, record_count is " +
                       std::to_string(s.meta.record_count));
    }
  }
  s.meta.catalog = read_catalog(root, s.where);
  s.meta.operators = read_operators(root, s.where);
  if (*version >= 2) s.meta.program = read_program(root, s.where, s.meta.record_count, s.meta.schema_version);
  read_streams(root, s.where, s.meta);
  s.window = static_cast<std::size_t>(std::min<std::uint64_t>(s.window, std::max<std::uint64_t>(1, s.meta.record_count)));
  s.columns.resize(fields.size());
  for (std::size_t k = 0; k < fields.size(); ++k) {
    if (s.datasets[k]) s.columns[k].resize(s.window * fields[k].element_size);
  }
}

Hdf5TraceSource::~Hdf5TraceSource() {
  if (!state_) return;
  h5::QuietErrors quiet;
  state_->datasets.clear();
  state_->file.reset();
}

const TraceMeta& Hdf5TraceSource::meta() const { return state_->meta; }
const std::string& Hdf5TraceSource::units() const { return state_->units; }

std::vector<std::string> Hdf5TraceSource::present_fields() const {
  std::vector<std::string> out;
  for (std::size_t k = 0; k < state_->datasets.size(); ++k) {
    if (state_->datasets[k]) out.emplace_back(h5::record_fields()[k].name);
  }
  return out;
}

std::size_t Hdf5TraceSource::read(std::span<AccessRecord> out) {
  State& s = *state_;
  std::size_t filled = 0;
  h5::QuietErrors quiet;
  while (filled < out.size()) {
    if (s.window_pos == s.window_len) {
      if (s.next_index >= s.meta.record_count) break;
      s.load_window();
    }
    const std::size_t n = std::min(out.size() - filled, s.window_len - s.window_pos);
    s.decode(out.data() + filled, n);
    filled += n;
  }
  return filled;
}

void Hdf5TraceSource::rewind() {
  State& s = *state_;
  s.window_pos = s.window_len = 0;
  s.window_begin = s.next_index = 0;
  s.validator.reset();
}

bool is_hdf5_file(const std::filesystem::path& path) {
  static const unsigned char kSignature[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
  std::ifstream in(path, std::ios::binary);
  unsigned char head[8] = {};
  if (!in.read(reinterpret_cast<char*>(head), 8)) return false;
  // HDF5 allows a user block before the superblock; our files have none.
  return std::memcmp(head, kSignature, 8) == 0;
}

}  // namespace flashsim
