// `flashsim results export`: a results folder (results.h5 + summary.json of
// `flashsim run`, `sweep merge` or `replay`) as the tables
// the Python package shows (python/flashsim/__init__.py, Results), six flat tables:
//   summary     one row per run: every key of summary.json's runs but
//               the component lists, in their order, typed by the metric schema
//               (sim/results/metric_schema.h); `params` as one JSON text
//               column ({"kin":"0.25","kout":"0.5"}, the summary.json object):
//               one set of columns whatever policies ran, json.loads gives
//               Results.summary's dict back.
//   timeseries  every run's per-window datasets (/timeseries/run_NNN/*, the
//               group's datasets, not its subgroups), a `run` column first,
//               then the datasets in HDF5 name order (h5py's, so the columns
//               are Results.timeseries(run)'s).
//   requests    the same for /timeseries/run_NNN/requests/ (Results.requests).
//   components  summary.json's runs[].components rows with a `run` column:
//               run, component, name, unit, value (Results.components).
//   component_texts   runs[].component_texts: run, component, name, text
//               (Results.component_texts).
//   component_series  runs[].component_series, one row per value: run,
//               component, name, unit, index, value (Results.component_series).
// The tables are defined here only: CSV is written here, Parquet by
// python/flashsim/export.py from this CSV and the column types
// (export_manifest_json), so the two formats cannot drift.
#pragma once
#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "sim/results/metric_schema.h"

namespace flashsim {

/// One column of an exported table. The types are the schema's: u64, i64,
/// f64, text.
struct ExportColumn {
  std::string name;
  MetricType type = MetricType::u64;
};

/// One table as written.
struct ExportedTable {
  std::string name;  ///< "summary", "timeseries", "requests", "components", "component_texts", "component_series"
  std::filesystem::path file;
  std::vector<ExportColumn> columns;
  std::size_t rows = 0;
};

/// The tables' names, in the order they are written.
const std::vector<std::string>& export_table_names();

/// RFC 4180 field: `text` as is, or in double quotes (inner quotes doubled)
/// when it holds a comma, a quote, CR or LF.
std::string csv_field(std::string_view text);

/// A double as the shortest text that reads back to the same bits (std::to_chars):
/// "0.1", "0.3333333333333333", "1e+300", "5e-324"; a whole number keeps ".0"
/// ("1.0") so that readers guessing types see a float; "nan", "inf", "-inf".
std::string exact_number_text(double value);

/// Writes `results`'s six tables as CSV files into `out_dir` (created):
/// summary.csv, timeseries.csv, requests.csv, components.csv,
/// component_texts.csv, component_series.csv; header row of
/// column names, LF line ends, RFC 4180 quoting, integers exact, doubles by
/// exact_number_text, a key a run lacks as an empty field. Each file is
/// written to a temp file beside it and renamed (traces/atomic_file.h).
/// `results` is the folder or a file in it (summary.json). Throws
/// InputError naming the file when summary.json or results.h5 is missing or
/// is not a flashsim results file (a run without its group, a value of the
/// wrong type for its metric, datasets of unequal length), Error when
/// writing fails.
std::vector<ExportedTable> export_results_csv(const std::filesystem::path& results,
                                              const std::filesystem::path& out_dir);

/// The tables as JSON, for the Parquet converter: {"tables": [{"name",
/// "file", "rows", "columns": [{"name", "type"}]}]}.
std::string export_manifest_json(const std::vector<ExportedTable>& tables);

struct ParquetExportOptions {
  /// The interpreter that runs python/flashsim/export.py (compiled into the
  /// binary); it needs pandas and pyarrow.
  std::string python;
};

/// Writes the four tables as Parquet files (summary.parquet, ...) into
/// `out_dir`: CSV into a temp folder first, then the converter, which writes
/// each file to a temp file beside its target and renames it. Throws what
/// export_results_csv throws, and Error when the interpreter cannot be
/// started or the converter fails (its message: for a missing pyarrow, what
/// to install).
std::vector<ExportedTable> export_results_parquet(const std::filesystem::path& results,
                                                  const std::filesystem::path& out_dir,
                                                  const ParquetExportOptions& options);

}  // namespace flashsim
