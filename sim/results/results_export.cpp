#include "sim/results/results_export.h"

#include <hdf5.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <deque>
#include <fstream>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <system_error>

#include "sim/core/child_process.h"
#include "sim/core/errors.h"
#include "sim/core/temp_folder.h"
#include "sim/results/summary_json.h"
#include "sim/scenario/embedded_files.h"
#include "traces/atomic_file.h"
#include "traces/hdf5_io.h"

namespace flashsim {

namespace {

using Json = nlohmann::ordered_json;
namespace fs = std::filesystem;

constexpr const char* kConverterPath = "python/flashsim/export.py";
constexpr int kExitMissingPackage = 3;  // export.py: pandas or pyarrow cannot be imported

template <class T>
std::string integer_text(T value) {
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, result.ptr);
}

// --- one CSV file, written to a temp file and renamed with the others ---

class CsvFile {
 public:
  CsvFile(const fs::path& target, const std::vector<ExportColumn>& columns) : file_(target) {
    errno = 0;
    out_.open(file_.temp_path(), std::ios::binary | std::ios::trunc);
    if (!out_) {  // the folder asked for cannot take a file: the user's to fix (exit status 2)
      const int error = errno;
      throw InputError("cannot write into '" + target.parent_path().string() + "'" +
                       (error != 0 ? std::string(": ") + std::strerror(error) : ""));
    }
    std::vector<std::string> names;
    for (const ExportColumn& c : columns) names.push_back(c.name);
    row(names);
  }
  void row(const std::vector<std::string>& cells) {
    for (std::size_t i = 0; i < cells.size(); ++i) {
      if (i > 0) out_ << ',';
      out_ << cells[i];  // already fields (csv_field for text)
    }
    out_ << '\n';
  }
  void commit() {
    errno = 0;
    out_.close();  // a full disk may only show when the last buffer is written
    if (!out_) {
      const int error = errno;
      throw Error("cannot write '" + file_.temp_path().string() + "' (for '" + file_.target().string() + "')" +
                  (error != 0 ? std::string(": ") + std::strerror(error) : ""));
    }
    make_readable(file_.temp_path());
    file_.commit();
  }

 private:
  static void make_readable(const fs::path& path) {  // mkstemp made it 0600; a table is for reading
    std::error_code ignored;
    fs::permissions(path, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read |
                              fs::perms::others_read, ignored);
  }
  AtomicFile file_;
  std::ofstream out_;
};

// --- summary.json: the summary and components tables ---

Json read_summary(const fs::path& file) {
  Json j = read_summary_json(file).doc;
  for (std::size_t i = 0; i < j["runs"].size(); ++i) {
    if (!j["runs"][i].is_object()) {
      throw InputError("'" + file.string() + "': runs[" + std::to_string(i) + "] is not an object");
    }
  }
  return j;
}

// The type a JSON value suggests for a column no schema types.
MetricType json_type(const Json& v) {
  if (v.is_number_unsigned()) return MetricType::u64;
  if (v.is_number_integer()) return MetricType::i64;
  if (v.is_number_float()) return MetricType::f64;
  return MetricType::text;
}

// Two guesses for one column: integers of both signs -> i64, a float -> f64, text wins.
MetricType widen(MetricType a, MetricType b) {
  if (a == b) return a;
  if (a == MetricType::text || b == MetricType::text) return MetricType::text;
  if (a == MetricType::f64 || b == MetricType::f64) return MetricType::f64;
  return MetricType::i64;
}

// A JSON value as the CSV field of a column of `type`; nullopt when it is not
// of that type. null (summary.json's NaN) is an empty field.
std::optional<std::string> json_cell(const Json& v, MetricType type) {
  if (v.is_null()) return std::string();
  switch (type) {
    case MetricType::u64:
      if (v.is_number_unsigned()) return integer_text(v.get<std::uint64_t>());
      return std::nullopt;
    case MetricType::i64:
      if (v.is_number_unsigned() && v.get<std::uint64_t>() <= std::uint64_t{std::numeric_limits<std::int64_t>::max()}) {
        return integer_text(v.get<std::uint64_t>());
      }
      if (v.is_number_integer() && !v.is_number_unsigned()) return integer_text(v.get<std::int64_t>());
      return std::nullopt;
    case MetricType::f64:
      if (v.is_number()) return exact_number_text(v.get<double>());
      return std::nullopt;
    case MetricType::text:
      if (v.is_string()) return csv_field(v.get<std::string>());
      return csv_field(v.dump(-1, ' ', false, Json::error_handler_t::replace));  // params: one JSON text
  }
  return std::nullopt;
}

// Rows of JSON objects (summary.json's runs, or their components) as one table:
// a leading `run` column when `run_of_row` is given, then every key (but
// `skip`) in first-seen order, typed by the metric schema (`schema_types`)
// or else by the values.
struct JsonRows {
  std::vector<const Json*> rows;
  std::vector<std::size_t> run_of_row;  ///< empty: no run column
  std::vector<std::string> where;       ///< "runs[3]" / "runs[3].components[2]", for errors
  bool where_is_value = false;          ///< a row's "value" is `where` itself (a series' values[k])
};

using Pending = std::vector<std::unique_ptr<CsvFile>>;  // written, renamed when every table is

ExportedTable write_json_table(const std::string& name, const JsonRows& input, const fs::path& out_dir,
                               const fs::path& source, bool schema_types, const std::vector<std::string>& skip,
                               Pending& pending, const std::vector<ExportColumn>& fixed = {}) {
  const bool with_run = !input.run_of_row.empty() || !fixed.empty();
  std::vector<ExportColumn> columns;
  if (with_run) columns.push_back({"run", MetricType::u64});
  std::vector<std::string> keys;
  std::vector<bool> typed;  // by the schema
  for (const ExportColumn& c : fixed) {  // a table of fixed columns has them also when empty
    keys.push_back(c.name);
    typed.push_back(true);
    columns.push_back(c);
  }
  for (const Json* row : input.rows) {
    if (!fixed.empty()) break;
    for (const auto& [key, value] : row->items()) {
      if (std::find(skip.begin(), skip.end(), key) != skip.end()) continue;
      auto it = std::find(keys.begin(), keys.end(), key);
      if (it == keys.end()) {
        keys.push_back(key);
        const auto& schema = run_metric_schema();
        const std::string& name = key;  // clang 14 captures no structured binding
        const auto spec = std::find_if(schema.begin(), schema.end(), [&name](const RunMetricSpec& m) { return m.name == name; });
        const bool known = schema_types && spec != schema.end();
        typed.push_back(known);
        columns.push_back({key, known ? spec->type : json_type(value)});
      } else {
        const std::size_t k = static_cast<std::size_t>(it - keys.begin());
        ExportColumn& c = columns[k + (with_run ? 1 : 0)];
        if (!typed[k] && !value.is_null()) c.type = widen(c.type, json_type(value));
      }
    }
  }
  const fs::path target = out_dir / (name + ".csv");
  CsvFile& csv = *pending.emplace_back(std::make_unique<CsvFile>(target, columns));
  std::vector<std::string> cells;
  for (std::size_t r = 0; r < input.rows.size(); ++r) {
    cells.clear();
    if (with_run) cells.push_back(integer_text(input.run_of_row[r]));
    for (std::size_t k = 0; k < keys.size(); ++k) {
      const ExportColumn& c = columns[k + (with_run ? 1 : 0)];
      const auto it = input.rows[r]->find(keys[k]);
      const std::string where = input.where_is_value && keys[k] == "value" ? input.where[r] : input.where[r] + "." + keys[k];
      if (!fixed.empty() && (it == input.rows[r]->end() || (c.type == MetricType::text && !it->is_string()))) {
        // A component table's columns are its entries' keys: each one there, its text a text.
        throw InputError("'" + source.string() + "': " + where + " is " +
                         (it == input.rows[r]->end() ? std::string("missing")
                                                     : it->dump(-1, ' ', false, Json::error_handler_t::replace) +
                                                           ", not a text"));
      }
      if (it == input.rows[r]->end()) {
        cells.emplace_back();  // a key this row lacks
        continue;
      }
      std::optional<std::string> cell = json_cell(*it, c.type);
      if (!cell) {
        throw InputError("'" + source.string() + "': " + where + " is " +
                         it->dump(-1, ' ', false, Json::error_handler_t::replace) + ", not " +
                         std::string(to_string(c.type)) + " (the results schema's type of '" + keys[k] + "')");
      }
      cells.push_back(std::move(*cell));
    }
    csv.row(cells);
  }
  return {name, target, columns, input.rows.size()};
}

// Every run's list `key` (components, component_texts, component_series) as
// rows with their run; a run without the list has none.
JsonRows component_rows(const Json& runs, const std::string& key, const fs::path& json_file) {
  JsonRows out;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const auto c = runs[i].find(key);
    if (c == runs[i].end()) continue;
    const std::string where = "runs[" + std::to_string(i) + "]." + key;
    if (!c->is_array()) throw InputError("'" + json_file.string() + "': " + where + " is not a list");
    for (std::size_t k = 0; k < c->size(); ++k) {
      if (!(*c)[k].is_object()) {
        throw InputError("'" + json_file.string() + "': " + where + "[" + std::to_string(k) + "] is not an object");
      }
      out.rows.push_back(&(*c)[k]);
      out.run_of_row.push_back(i);
      out.where.push_back(where + "[" + std::to_string(k) + "]");
    }
  }
  return out;
}

// --- results.h5: the timeseries and requests tables ---

struct DatasetColumn {
  std::string name;
  MetricType type;
};

// The datasets (not subgroups) of a group, in HDF5 name order (h5py's).
std::vector<DatasetColumn> dataset_columns(hid_t group, const std::string& what) {
  std::vector<std::string> names;
  auto collect = [](hid_t, const char* name, const H5L_info_t*, void* data) -> herr_t {
    static_cast<std::vector<std::string>*>(data)->push_back(name);
    return 0;
  };
  if (H5Literate(group, H5_INDEX_NAME, H5_ITER_INC, nullptr, collect, &names) < 0) {
    throw InputError(what + ": cannot list its members");
  }
  std::vector<DatasetColumn> out;
  for (const std::string& name : names) {
    const hid_t object = H5Oopen(group, name.c_str(), H5P_DEFAULT);
    if (object < 0) throw InputError(what + ": cannot open " + name);
    const bool dataset = H5Iget_type(object) == H5I_DATASET;
    H5Oclose(object);
    if (!dataset) continue;
    h5::Handle ds = h5::open_dataset(group, name.c_str());
    h5::Handle type(h5::check_id(H5Dget_type(ds.get()), what + "/" + name + ": cannot read its type"), H5Tclose);
    switch (H5Tget_class(type.get())) {
      case H5T_INTEGER:
        out.push_back({name, H5Tget_sign(type.get()) == H5T_SGN_NONE ? MetricType::u64 : MetricType::i64});
        break;
      case H5T_FLOAT: out.push_back({name, MetricType::f64}); break;
      case H5T_STRING: out.push_back({name, MetricType::text}); break;
      default: throw InputError(what + "/" + name + ": not a number or text dataset");
    }
  }
  return out;
}

// One dataset read whole, as CSV fields.
std::vector<std::string> dataset_cells(hid_t group, const DatasetColumn& column, MetricType as,
                                       const std::string& what) {
  h5::Handle ds = h5::open_dataset(group, column.name.c_str());
  const std::string where = what + "/" + column.name;
  const hsize_t n = h5::length(ds.get(), where);
  std::vector<std::string> cells;
  cells.reserve(n);
  auto read = [&](auto zero, hid_t mem_type) {
    std::vector<decltype(zero)> values(n);
    h5::read_range(ds.get(), mem_type, 0, n, values.data());
    return values;
  };
  if (column.type == MetricType::text) {
    for (const std::string& s : h5::read_strings(ds.get(), n)) cells.push_back(csv_field(s));
  } else if (as == MetricType::f64 || column.type == MetricType::f64) {
    for (double v : read(0.0, H5T_NATIVE_DOUBLE)) cells.push_back(exact_number_text(v));
  } else if (column.type == MetricType::u64 && as != MetricType::i64) {
    for (std::uint64_t v : read(std::uint64_t{0}, H5T_NATIVE_UINT64)) cells.push_back(integer_text(v));
  } else {
    for (std::int64_t v : read(std::int64_t{0}, H5T_NATIVE_INT64)) cells.push_back(integer_text(v));
  }
  return cells;
}

// run_NNN -> NNN; nullopt for other names.
std::optional<std::size_t> run_number(const std::string& name) {
  if (name.size() <= 4 || name.compare(0, 4, "run_") != 0) return std::nullopt;
  std::size_t value = 0;
  const auto result = std::from_chars(name.data() + 4, name.data() + name.size(), value);
  if (result.ec != std::errc() || result.ptr != name.data() + name.size()) return std::nullopt;
  return value;
}

// /timeseries/run_NNN[/sub] of every run as one table, `run` first.
ExportedTable write_h5_table(const std::string& name, hid_t file, const std::string& file_name,
                             const std::vector<std::pair<std::size_t, std::string>>& runs, const std::string& sub,
                             const fs::path& out_dir, Pending& pending) {
  auto group_path = [&](const std::string& run_group) { return "/timeseries/" + run_group + (sub.empty() ? "" : "/" + sub); };
  // Pass 1: the columns, a union over the runs in first-seen order.
  std::vector<ExportColumn> columns{{"run", MetricType::u64}};
  std::vector<std::vector<DatasetColumn>> per_run(runs.size());
  std::vector<bool> present(runs.size(), false);
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const std::string path = group_path(runs[i].second);
    if (!h5::link_exists(file, path.c_str())) continue;  // requests/: only runs that had some
    present[i] = true;
    h5::Handle g(H5Gopen2(file, path.c_str(), H5P_DEFAULT), H5Gclose);
    if (!g) throw InputError("'" + file_name + "': cannot open group " + path);
    per_run[i] = dataset_columns(g.get(), "'" + file_name + "' " + path);
    for (const DatasetColumn& d : per_run[i]) {
      auto it = std::find_if(columns.begin() + 1, columns.end(), [&](const ExportColumn& c) { return c.name == d.name; });
      if (it == columns.end()) {
        columns.push_back({d.name, d.type});
      } else {
        it->type = widen(it->type, d.type);
      }
    }
  }
  // Pass 2: one run at a time (a run's windows can be many).
  const fs::path target = out_dir / (name + ".csv");
  CsvFile& csv = *pending.emplace_back(std::make_unique<CsvFile>(target, columns));
  std::size_t rows = 0;
  std::vector<std::string> cells(columns.size());
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if (!present[i]) continue;
    const std::string path = group_path(runs[i].second);
    const std::string what = "'" + file_name + "' " + path;
    h5::Handle g(H5Gopen2(file, path.c_str(), H5P_DEFAULT), H5Gclose);
    if (!g) throw InputError("'" + file_name + "': cannot open group " + path);
    std::vector<std::vector<std::string>> data(columns.size());
    std::optional<std::size_t> length;
    for (const DatasetColumn& d : per_run[i]) {
      const std::size_t k = static_cast<std::size_t>(
          std::find_if(columns.begin(), columns.end(), [&](const ExportColumn& c) { return c.name == d.name; }) -
          columns.begin());
      data[k] = dataset_cells(g.get(), d, columns[k].type, what);
      if (length && *length != data[k].size()) {
        throw InputError(what + ": datasets of unequal length (" + d.name + " has " + std::to_string(data[k].size()) +
                         " rows, " + per_run[i].front().name + " " + std::to_string(*length) + ")");
      }
      length = data[k].size();
    }
    const std::string run_text = integer_text(runs[i].first);
    for (std::size_t r = 0; r < length.value_or(0); ++r) {
      cells[0] = run_text;
      for (std::size_t k = 1; k < columns.size(); ++k) cells[k] = data[k].empty() ? std::string() : data[k][r];
      csv.row(cells);
    }
    rows += length.value_or(0);
  }
  return {name, target, columns, rows};
}

// The run groups of /timeseries, by run number.
std::vector<std::pair<std::size_t, std::string>> run_groups(hid_t file, const std::string& file_name) {
  if (!h5::link_exists(file, "timeseries")) throw InputError("'" + file_name + "' has no /timeseries group");
  h5::Handle top(H5Gopen2(file, "timeseries", H5P_DEFAULT), H5Gclose);
  if (!top) throw InputError("'" + file_name + "': cannot open /timeseries");
  std::vector<std::string> names;
  auto collect = [](hid_t, const char* name, const H5L_info_t*, void* data) -> herr_t {
    static_cast<std::vector<std::string>*>(data)->push_back(name);
    return 0;
  };
  if (H5Literate(top.get(), H5_INDEX_NAME, H5_ITER_INC, nullptr, collect, &names) < 0) {
    throw InputError("'" + file_name + "': cannot list /timeseries");
  }
  std::vector<std::pair<std::size_t, std::string>> runs;
  for (const std::string& n : names) {
    if (const auto number = run_number(n)) runs.emplace_back(*number, n);
  }
  std::sort(runs.begin(), runs.end());
  return runs;
}

void write_text(const fs::path& path, std::string_view text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) throw Error("cannot write '" + path.string() + "'");
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

const std::vector<std::string>& export_table_names() {
  static const std::vector<std::string> names{"summary",    "timeseries",      "requests",
                                              "components", "component_texts", "component_series"};
  return names;
}

std::string csv_field(std::string_view text) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(text);
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string exact_number_text(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  std::string text(buffer, result.ptr);
  if (text.find_first_of(".e") == std::string::npos) text += ".0";
  return text;
}

std::vector<ExportedTable> export_results_csv(const fs::path& results, const fs::path& out_dir) {
  std::error_code ec;
  const fs::path dir = fs::is_regular_file(results, ec) ? results.parent_path() : results;
  if (!fs::is_directory(dir.empty() ? fs::path(".") : dir, ec)) {
    throw InputError("'" + results.string() + "' is not a results folder (none there)");
  }
  const fs::path json_file = dir / "summary.json";
  const fs::path h5_file = dir / "results.h5";
  const Json summary = read_summary(json_file);
  if (!fs::is_regular_file(h5_file, ec)) {
    throw InputError("cannot read '" + h5_file.string() + "': no such file (a results folder holds results.h5 beside summary.json)");
  }
  h5::QuietErrors quiet;
  const hid_t id = H5Fopen(h5_file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (id < 0) {
    const std::string detail = h5::last_error();
    throw InputError("cannot open '" + h5_file.string() + "' as HDF5" + (detail.empty() ? "" : ": " + detail));
  }
  h5::Handle file(id, H5Fclose);
  const Json& list = summary["runs"];
  const auto groups = run_groups(file.get(), h5_file.string());
  if (groups.size() != list.size()) {
    throw InputError("'" + h5_file.string() + "' has " + std::to_string(groups.size()) + " runs in /timeseries, '" +
                     json_file.string() + "' " + std::to_string(list.size()) + " (not one run's pair of files)");
  }
  JsonRows runs;
  for (std::size_t i = 0; i < list.size(); ++i) {
    runs.rows.push_back(&list[i]);
    runs.where.push_back("runs[" + std::to_string(i) + "]");
  }
  const JsonRows components = component_rows(list, "components", json_file);
  const JsonRows texts = component_rows(list, "component_texts", json_file);
  // A series is one row per value (long form): component, name, unit, index, value.
  std::deque<Json> series_values;
  JsonRows series;
  series.where_is_value = true;
  const JsonRows series_lists = component_rows(list, "component_series", json_file);
  for (std::size_t r = 0; r < series_lists.rows.size(); ++r) {
    const Json& s = *series_lists.rows[r];
    const auto values = s.find("values");
    if (values == s.end() || !values->is_array()) {
      throw InputError("'" + json_file.string() + "': " + series_lists.where[r] + ".values is not a list");
    }
    for (std::size_t k = 0; k < values->size(); ++k) {
      Json row = Json::object();
      for (const char* key : {"component", "name", "unit"}) {
        if (const auto it = s.find(key); it != s.end()) row[key] = *it;
      }
      row["index"] = k;
      row["value"] = (*values)[k];
      series_values.push_back(std::move(row));
      series.rows.push_back(&series_values.back());
      series.run_of_row.push_back(series_lists.run_of_row[r]);
      series.where.push_back(series_lists.where[r] + ".values[" + std::to_string(k) + "]");
    }
  }

  fs::create_directories(out_dir, ec);
  if (ec) throw InputError("cannot create the output folder '" + out_dir.string() + "': " + ec.message());
  Pending pending;
  std::vector<ExportedTable> tables;
  tables.push_back(write_json_table("summary", runs, out_dir, json_file, true,
                                    {"components", "component_texts", "component_series"}, pending));
  tables.push_back(write_h5_table("timeseries", file.get(), h5_file.string(), groups, "", out_dir, pending));
  tables.push_back(write_h5_table("requests", file.get(), h5_file.string(), groups, "requests", out_dir, pending));
  // The component tables have summary.json's keys in its order: component, name, unit, value.
  const ExportColumn component{"component", MetricType::text}, name{"name", MetricType::text},
      unit{"unit", MetricType::text}, value{"value", MetricType::f64};
  tables.push_back(
      write_json_table("components", components, out_dir, json_file, false, {}, pending, {component, name, unit, value}));
  tables.push_back(write_json_table("component_texts", texts, out_dir, json_file, false, {}, pending,
                                    {component, name, {"text", MetricType::text}}));
  tables.push_back(write_json_table("component_series", series, out_dir, json_file, false, {}, pending,
                                    {component, name, unit, {"index", MetricType::u64}, value}));
  // Every table complete before any is renamed: a bad value anywhere leaves no table behind.
  for (auto& csv : pending) csv->commit();
  return tables;
}

std::string export_manifest_json(const std::vector<ExportedTable>& tables) {
  Json list = Json::array();
  for (const ExportedTable& t : tables) {
    Json columns = Json::array();
    for (const ExportColumn& c : t.columns) columns.push_back({{"name", c.name}, {"type", to_string(c.type)}});
    list.push_back({{"name", t.name}, {"file", t.file.string()}, {"rows", t.rows}, {"columns", columns}});
  }
  Json j;
  j["tables"] = list;
  return j.dump(1) + "\n";
}

std::vector<ExportedTable> export_results_parquet(const fs::path& results, const fs::path& out_dir,
                                                  const ParquetExportOptions& options) {
  const EmbeddedFile* script = find_embedded_file(kConverterPath);
  if (script == nullptr) throw Error(std::string("this flashsim binary was built without ") + kConverterPath);
  const TempFolder temp("flashsim-export-");
  std::vector<ExportedTable> tables = export_results_csv(results, temp.path() / "csv");
  std::error_code ec;
  fs::create_directories(out_dir, ec);
  if (ec) throw InputError("cannot create the output folder '" + out_dir.string() + "': " + ec.message());
  const fs::path manifest = temp.path() / "tables.json";
  const fs::path script_file = temp.path() / "export.py";
  write_text(manifest, export_manifest_json(tables));
  write_text(script_file, script->data);
  const std::vector<std::string> args{options.python, "-s", script_file.string(), "--manifest", manifest.string(),
                                      "--out", fs::absolute(out_dir).string()};
  const ChildOutcome p = run_child(args, temp.path() / "stdout.txt", temp.path() / "stderr.txt");
  if (!p.started) {
    throw Error("cannot run '" + options.python + "' (the Python that writes Parquet; FLASHSIM_PYTHON names another): " +
                std::strerror(p.start_errno));
  }
  const std::string err = output_tail(read_text(temp.path() / "stderr.txt"));
  if (p.exit_code == kExitMissingPackage) throw Error(err);  // what to install, said by the script
  if (p.exit_code != 0) {
    throw Error("the Parquet converter (" + std::string(kConverterPath) + ", run by '" + options.python + "') failed (" +
                (p.exit_code < 0 ? std::string("killed by a signal") : "exit status " + std::to_string(p.exit_code)) +
                ")" + (err.empty() ? "" : ": " + err));
  }
  for (ExportedTable& t : tables) t.file = out_dir / (t.name + ".parquet");
  return tables;
}

}  // namespace flashsim
