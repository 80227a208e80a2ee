// `flashsim results export`: RFC 4180 quoting, doubles that read back to the
// same bits, and the tables of a real results folder (the mini Mixtral under
// LRU and 2Q: windows, requests, components) checked against summary.json
// and against each other; bad folders named. Parquet's values are checked
// against the Python package in python/tests/test_export.py.
#include "sim/results/results_export.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <random>

#include "tests/app/app_test_util.h"
#include "tests/support/temp_dir.h"

namespace flashsim {
namespace {

TEST(ResultsExport, CsvFieldQuotesOnlyWhatRfc4180Needs) {
  EXPECT_EQ(csv_field("lru"), "lru");
  EXPECT_EQ(csv_field(""), "");
  EXPECT_EQ(csv_field("cache.capacity=50%"), "cache.capacity=50%");
  EXPECT_EQ(csv_field("mlru(a=1,b=2)"), "\"mlru(a=1,b=2)\"");
  EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(csv_field("two\nlines"), "\"two\nlines\"");
  EXPECT_EQ(csv_field("cr\r"), "\"cr\r\"");
}

TEST(ResultsExport, DoublesAreShortestAndReadBackExactly) {
  EXPECT_EQ(exact_number_text(0.1), "0.1");
  EXPECT_EQ(exact_number_text(1.0 / 3.0), "0.3333333333333333");
  EXPECT_EQ(exact_number_text(2.0 / 3.0), "0.6666666666666666");
  EXPECT_EQ(exact_number_text(1.0), "1.0");  // still a float to a reader guessing types
  EXPECT_EQ(exact_number_text(0.0), "0.0");
  EXPECT_EQ(exact_number_text(-2.5), "-2.5");
  EXPECT_EQ(exact_number_text(1e300), "1e+300");
  EXPECT_EQ(exact_number_text(5e-324), "5e-324");  // the smallest subnormal
  EXPECT_EQ(exact_number_text(9007199254740993.0), "9007199254740992.0");  // 2^53 + 1 is not a double
  EXPECT_EQ(exact_number_text(std::nan("")), "nan");
  EXPECT_EQ(exact_number_text(std::numeric_limits<double>::infinity()), "inf");
  EXPECT_EQ(exact_number_text(-std::numeric_limits<double>::infinity()), "-inf");
  // Any finite bit pattern reads back (strtod, correctly rounded) to the same bits.
  std::mt19937_64 rng(13);
  for (int i = 0; i < 200000; ++i) {
    const double v = std::bit_cast<double>(rng());
    if (!std::isfinite(v)) continue;
    const std::string text = exact_number_text(v);
    ASSERT_EQ(std::bit_cast<std::uint64_t>(std::strtod(text.c_str(), nullptr)), std::bit_cast<std::uint64_t>(v))
        << text;
    // Shortest: fixed only where it is no longer than scientific ("-2264237770112210829312.0").
    ASSERT_LE(text.size(), 25u) << text;
  }
}

#ifdef FLASHSIM_BINARY

using test::run_flashsim;

// RFC 4180 rows of `text` (quoted fields with commas, quotes and newlines).
std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> rows(1);
  std::string field;
  bool quoted = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      rows.back().push_back(field);
      field.clear();
    } else if (c == '\n') {
      rows.back().push_back(field);
      field.clear();
      rows.emplace_back();
    } else {
      field += c;
    }
  }
  EXPECT_FALSE(quoted) << "unterminated quote";
  EXPECT_TRUE(rows.back().empty() && field.empty()) << "no final newline";
  rows.pop_back();
  return rows;
}

// One CSV table: header and rows, cells by column name.
struct Table {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  std::string at(std::size_t row, const std::string& column) const {
    for (std::size_t k = 0; k < header.size(); ++k) {
      if (header[k] == column) return rows.at(row).at(k);
    }
    ADD_FAILURE() << "no column " << column;
    return "";
  }
  double sum(const std::string& column, const std::string& run) const {
    double total = 0;
    for (std::size_t r = 0; r < rows.size(); ++r) {
      if (at(r, "run") == run) total += std::strtod(at(r, column).c_str(), nullptr);
    }
    return total;
  }
};

Table read_table(const std::filesystem::path& file) {
  auto rows = parse_csv(test::read_file(file));
  Table t;
  if (rows.empty()) {
    ADD_FAILURE() << file << " is empty";
    return t;
  }
  t.header = rows.front();
  t.rows.assign(rows.begin() + 1, rows.end());
  for (const auto& r : t.rows) EXPECT_EQ(r.size(), t.header.size()) << file;
  return t;
}

class ResultsExportCli : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new test::TempDir;
    const std::string mini = std::string(FLASHSIM_SOURCE_DIR) + "/scenarios/examples/mixtral-mini-experts.yaml";
    const auto o = run_flashsim(dir_->path(), "run " + mini + " --set 'policies=[lru, 2q]' --out res --no-progress");
    ASSERT_EQ(o.code, 0) << o.err;
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  static test::TempDir* dir_;
};
test::TempDir* ResultsExportCli::dir_ = nullptr;

TEST_F(ResultsExportCli, CsvTablesEqualSummaryJsonAndEachOther) {
  const auto o = run_flashsim(dir_->path(), "results export res --format csv");
  ASSERT_EQ(o.code, 0) << o.err;
  const std::filesystem::path out = dir_->path() / "res" / "export-csv";
  EXPECT_NE(o.out.find("summary.csv (2 rows)"), std::string::npos) << o.out;
  const std::string json_text = test::read_file(dir_->path() / "res" / "summary.json");
  const nlohmann::ordered_json doc = nlohmann::ordered_json::parse(json_text);
  const Table summary = read_table(out / "summary.csv");
  // Columns: summary.json's keys but components, in order.
  std::vector<std::string> keys;
  for (const auto& [k, v] : doc["runs"][0].items()) {
    if (k != "components" && k != "component_texts" && k != "component_series") keys.push_back(k);
  }
  EXPECT_EQ(summary.header, keys);
  ASSERT_EQ(summary.rows.size(), 2u);
  std::size_t windows = 0, requests = 0, components = 0;
  for (std::size_t r = 0; r < 2; ++r) {
    const auto& run = doc["runs"][r];
    // Every double to the last digit: the same bits as summary.json's.
    for (const char* metric : {"hit_ratio_by_access", "hit_ratio_by_byte", "tokens_per_second", "tpot_mean_ns"}) {
      const double csv = std::strtod(summary.at(r, metric).c_str(), nullptr);
      EXPECT_EQ(std::bit_cast<std::uint64_t>(csv), std::bit_cast<std::uint64_t>(run[metric].get<double>()))
          << metric << " " << summary.at(r, metric);
    }
    // The text too (nlohmann writes the shortest round trip as well).
    const std::string hit_ratio = summary.at(r, "hit_ratio_by_access");
    EXPECT_GT(hit_ratio.size(), 10u) << hit_ratio;  // a ratio of many digits, not a round number
    EXPECT_NE(json_text.find("\"hit_ratio_by_access\": " + hit_ratio + ",\n"), std::string::npos) << hit_ratio;
    EXPECT_EQ(summary.at(r, "bytes_fetched"), std::to_string(run["bytes_fetched"].get<std::uint64_t>()));
    EXPECT_EQ(summary.at(r, "oom_token_index"), std::to_string(run["oom_token_index"].get<std::int64_t>()));
    windows += run["windows"].get<std::size_t>();
    requests += run["requests"].get<std::size_t>();
    components += run["components"].size();
  }
  EXPECT_EQ(summary.at(0, "policy_label"), "lru");
  EXPECT_EQ(summary.at(0, "params"), "{}");
  EXPECT_EQ(summary.at(1, "params"), "{\"kin\":\"0.25\",\"kout\":\"0.5\"}");  // quoted in the file, one field
  EXPECT_NE(test::read_file(out / "summary.csv").find(",\"{\"\"kin\"\":\"\"0.25\"\",\"\"kout\"\":\"\"0.5\"\"}\","),
            std::string::npos);

  // Time series: one row per window of each run; per run the windows' counters add up to the summary's.
  const Table ts = read_table(out / "timeseries.csv");
  EXPECT_EQ(ts.header.front(), "run");
  EXPECT_EQ(ts.header.at(1), "accesses");  // h5py's (name) order, as Results.timeseries
  EXPECT_EQ(ts.rows.size(), windows);
  ASSERT_GT(windows, 10u);
  for (std::size_t r = 0; r < 2; ++r) {
    const std::string run = std::to_string(r);
    for (const char* counter : {"accesses", "hits", "misses", "bytes_fetched"}) {
      EXPECT_EQ(ts.sum(counter, run), doc["runs"][r][counter].get<double>()) << counter << " run " << run;
    }
  }
  const Table rq = read_table(out / "requests.csv");
  EXPECT_EQ(rq.rows.size(), requests);
  ASSERT_GT(requests, 0u);
  EXPECT_EQ(rq.sum("output_tokens", "0"), doc["runs"][0]["output_tokens"].get<double>());
  const Table cs = read_table(out / "components.csv");
  EXPECT_EQ(cs.header, (std::vector<std::string>{"run", "component", "name", "unit", "value"}));
  EXPECT_EQ(cs.rows.size(), components);
  ASSERT_GT(components, 0u);
  EXPECT_EQ(cs.at(0, "component"), doc["runs"][0]["components"][0]["component"].get<std::string>());
  // No temp files left beside the tables.
  std::size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(out)) {
    EXPECT_EQ(e.path().extension(), ".csv") << e.path();
    ++files;
  }
  EXPECT_EQ(files, 6u);  // summary, timeseries, requests, components, component_texts, component_series
}

// A program engine run reports texts and series: each is a table, the
// series one row per value, equal to summary.json's lists.
TEST_F(ResultsExportCli, ComponentTextsAndSeriesAreTablesOfTheirOwn) {
  const std::string capture = std::string(FLASHSIM_SOURCE_DIR) + "/validate/baselines/h200/programs/double_buffer_prefetch.h5";
  auto o = run_flashsim(dir_->path(), "run --trace " + capture +
                                          " --engine program --policies as_recorded --set engine.skip_steps=10 "
                                          "--out prog --no-progress");
  ASSERT_EQ(o.code, 0) << o.err;
  o = run_flashsim(dir_->path(), "results export prog --format csv");
  ASSERT_EQ(o.code, 0) << o.err;
  const nlohmann::ordered_json run =
      nlohmann::ordered_json::parse(test::read_file(dir_->path() / "prog" / "summary.json"))["runs"][0];
  const std::filesystem::path out = dir_->path() / "prog" / "export-csv";
  const Table texts = read_table(out / "component_texts.csv");
  EXPECT_EQ(texts.header, (std::vector<std::string>{"run", "component", "name", "text"}));
  ASSERT_EQ(texts.rows.size(), run["component_texts"].size());
  ASSERT_GT(texts.rows.size(), 3u);
  for (std::size_t k = 0; k < texts.rows.size(); ++k) {
    EXPECT_EQ(texts.at(k, "name"), run["component_texts"][k]["name"].get<std::string>());
    EXPECT_EQ(texts.at(k, "text"), run["component_texts"][k]["text"].get<std::string>());
  }
  const Table series = read_table(out / "component_series.csv");
  EXPECT_EQ(series.header, (std::vector<std::string>{"run", "component", "name", "unit", "index", "value"}));
  std::size_t values = 0, row_of_step = 0;
  bool found = false;
  for (const auto& s : run["component_series"]) {
    if (s["name"] == "step_ns") {
      row_of_step = values;
      found = true;
    }
    values += s["values"].size();
  }
  ASSERT_TRUE(found);
  EXPECT_EQ(series.rows.size(), values);
  // program.step_ns: 8 steps after the skip of 10 (of 19 marks), in order, to the bit.
  const auto& steps = run["component_series"];
  for (const auto& s : steps) {
    if (s["name"] != "step_ns") continue;
    ASSERT_EQ(s["values"].size(), 8u);
    for (std::size_t i = 0; i < 8; ++i) {
      EXPECT_EQ(series.at(row_of_step + i, "name"), "step_ns");
      EXPECT_EQ(series.at(row_of_step + i, "unit"), "ns");
      EXPECT_EQ(series.at(row_of_step + i, "index"), std::to_string(i));
      EXPECT_EQ(std::strtod(series.at(row_of_step + i, "value").c_str(), nullptr), s["values"][i].get<double>());
    }
  }
  // The summary table keeps none of the three lists.
  const Table summary = read_table(out / "summary.csv");
  for (const std::string& h : summary.header) EXPECT_EQ(h.find("component"), std::string::npos) << h;
}

TEST_F(ResultsExportCli, AValueOfTheWrongTypeIsNamedAndNothingIsWritten) {
  const std::filesystem::path bad = dir_->path() / "bad";
  std::filesystem::create_directories(bad);
  std::filesystem::copy_file(dir_->path() / "res" / "results.h5", bad / "results.h5");
  std::string json = test::read_file(dir_->path() / "res" / "summary.json");
  const std::size_t at = json.find("\"hits\": ", json.find("\"run\": 1,"));
  ASSERT_NE(at, std::string::npos);
  json.replace(at, json.find(',', at) - at, "\"hits\": \"many\"");
  test::write_file(bad / "summary.json", json);
  const auto o = run_flashsim(dir_->path(), "results export bad --format csv");
  EXPECT_EQ(o.code, 2) << o.err;
  EXPECT_NE(o.err.find("'bad/summary.json': runs[1].hits is \"many\", not u64"), std::string::npos) << o.err;
  // Every table complete before any is renamed: none there, nor temp files.
  EXPECT_TRUE(std::filesystem::is_empty(bad / "export-csv"));
}

// A component table's text columns hold texts, and each entry has every
// column's key; an output folder that cannot be made is the user's to fix.
TEST_F(ResultsExportCli, ComponentEntriesAndTheOutputFolderAreChecked) {
  const std::filesystem::path bad = dir_->path() / "badc";
  std::filesystem::create_directories(bad);
  std::filesystem::copy_file(dir_->path() / "res" / "results.h5", bad / "results.h5");
  nlohmann::ordered_json doc = nlohmann::ordered_json::parse(test::read_file(dir_->path() / "res" / "summary.json"));
  doc["runs"][0]["component_texts"] = nlohmann::ordered_json::parse(R"([{"component": "p", "name": "n", "text": [1]}])");
  test::write_file(bad / "summary.json", doc.dump(1));
  auto o = run_flashsim(dir_->path(), "results export badc --format csv");
  EXPECT_EQ(o.code, 2) << o.err;
  EXPECT_NE(o.err.find("'badc/summary.json': runs[0].component_texts[0].text is [1], not a text"), std::string::npos)
      << o.err;
  doc["runs"][0]["component_texts"] = nlohmann::ordered_json::parse(R"([{"component": "p", "text": "t"}])");
  doc["runs"][0]["component_series"] =
      nlohmann::ordered_json::parse(R"([{"component": "p", "name": "s", "unit": "ns", "values": [1, "x"]}])");
  test::write_file(bad / "summary.json", doc.dump(1));
  o = run_flashsim(dir_->path(), "results export badc --format csv");
  EXPECT_EQ(o.code, 2) << o.err;
  EXPECT_NE(o.err.find("runs[0].component_texts[0].name is missing"), std::string::npos) << o.err;
  doc["runs"][0].erase("component_texts");
  test::write_file(bad / "summary.json", doc.dump(1));
  o = run_flashsim(dir_->path(), "results export badc --format csv");
  EXPECT_EQ(o.code, 2) << o.err;
  EXPECT_NE(o.err.find("runs[0].component_series[0].values[1] is \"x\", not f64"), std::string::npos) << o.err;
  test::write_file(dir_->path() / "a-file", "x");
  o = run_flashsim(dir_->path(), "results export res --format csv --out a-file");
  EXPECT_EQ(o.code, 2) << o.err;
  EXPECT_NE(o.err.find("cannot create the output folder 'a-file'"), std::string::npos) << o.err;
}

TEST_F(ResultsExportCli, ParquetWithoutPyarrowSaysWhatToInstall) {
  // A Python that cannot start.
  const std::string env = "FLASHSIM_PYTHON=/no/such/python ";
  const std::string command = "cd '" + dir_->path().string() + "' && " + env + "'" + FLASHSIM_BINARY +
                              "' results export res --format parquet --out pq > out.txt 2> err.txt";
  int status = std::system(command.c_str());
  EXPECT_EQ(WEXITSTATUS(status), 1);
  EXPECT_NE(test::read_file(dir_->path() / "err.txt").find("cannot run '/no/such/python'"), std::string::npos)
      << test::read_file(dir_->path() / "err.txt");
  // Debian's own python3 has no pyarrow (it is a PyPI package, in the project's .venv).
  if (std::system("/usr/bin/python3 -s -c 'import pyarrow' 2>/dev/null") == 0) {
    GTEST_SKIP() << "/usr/bin/python3 has pyarrow: no Python without it to try";
  }
  const std::string debian = "cd '" + dir_->path().string() + "' && FLASHSIM_PYTHON=/usr/bin/python3 '" +
                             FLASHSIM_BINARY + "' results export res --format parquet --out pq > out.txt 2> err.txt";
  status = std::system(debian.c_str());
  EXPECT_EQ(WEXITSTATUS(status), 1);
  const std::string err = test::read_file(dir_->path() / "err.txt");
  EXPECT_NE(err.find("pyarrow cannot be imported by '/usr/bin/python3'"), std::string::npos) << err;
  EXPECT_NE(err.find("/usr/bin/python3 -m pip install pyarrow"), std::string::npos) << err;
  EXPECT_FALSE(std::filesystem::exists(dir_->path() / "pq" / "summary.parquet"));
}

TEST(ResultsExportErrors, BadFoldersAreNamed) {
  test::TempDir dir;
  auto err = [&](const std::string& args) {
    const auto o = run_flashsim(dir.path(), "results export " + args);
    EXPECT_EQ(o.code, 2) << args << ": " << o.err;
    return o.err;
  };
  EXPECT_NE(err("nothing --format csv").find("'nothing' is not a results folder"), std::string::npos);
  std::filesystem::create_directories(dir / "empty");
  EXPECT_NE(err("empty --format csv").find("cannot read 'empty/summary.json'"), std::string::npos);
  std::filesystem::create_directories(dir / "bad");
  test::write_file(dir / "bad" / "summary.json", "{ nope");
  EXPECT_NE(err("bad --format csv").find("'bad/summary.json' is not JSON"), std::string::npos);
  test::write_file(dir / "bad" / "summary.json", "{\"runs\": [{\"run\": 0, \"hits\": 3}]}");
  EXPECT_NE(err("bad --format csv").find("cannot read 'bad/results.h5'"), std::string::npos);
  test::write_file(dir / "bad" / "results.h5", "not hdf5");
  EXPECT_NE(err("bad --format csv").find("cannot open 'bad/results.h5' as HDF5"), std::string::npos);
  EXPECT_NE(err("bad --format xlsx").find("--format"), std::string::npos);
  EXPECT_NE(err("bad").find("--format"), std::string::npos);  // required
  EXPECT_NE(err("").find("RESULTS"), std::string::npos);
  const auto o = run_flashsim(dir.path(), "results frobnicate");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("unknown results action 'frobnicate'"), std::string::npos) << o.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "bad" / "export-csv" / "summary.csv"));
}

#endif  // FLASHSIM_BINARY

}  // namespace
}  // namespace flashsim
