// flashsim trace import|convert|stats|next-use|formats: the canonical trace
// file and its importers (traces/), and trace statistics (traces/stats/).
// Library code throws; main() turns errors into exit codes.
#include <boost/program_options.hpp>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "sim/cli/commands.h"
#include "sim/core/errors.h"
#include "sim/core/unit_parse.h"
#include "traces/hdf5_trace.h"
#include "traces/importers/kineto.h"
#include "traces/next_use.h"
#include "traces/stats/stats_report.h"
#include "traces/stats/trace_stats.h"
#include "traces/trace_formats.h"

namespace po = boost::program_options;

namespace flashsim::cli {

namespace {

constexpr const char* kUsage =
    "usage:\n"
    "  flashsim trace import FORMAT INPUT OUTPUT [--map FIELD=COLUMN ...] [--time-unit U] [-o KEY=VALUE ...]\n"
    "                       [--next-use]\n"
    "      read INPUT as FORMAT (csv, oraclegeneral, kineto, hdf5) and write OUTPUT (.h5 or .csv)\n"
    "  flashsim trace convert INPUT OUTPUT [--format F] [same options as import]\n"
    "      the same, with the input format taken from INPUT's name (.h5, .csv, .oracleGeneral[.bin],\n"
    "      .json[.gz]) unless --format is given; h5 -> csv and csv -> h5 round-trip\n"
    "  flashsim trace stats TRACE [--format F] [--mrc-points N] [--capacity-blocks LIST]\n"
    "                       [--capacity-bytes LIST] [--json] [import options]\n"
    "      records, unique blocks, footprint, time span, reuse-distance histogram and the LRU\n"
    "      miss-ratio curves (capacity in blocks and in bytes), from one stack-distance pass\n"
    "  flashsim trace next-use INPUT.h5 OUTPUT.h5\n"
    "      add next_use_index (for Belady/OPT) out of core\n"
    "  flashsim trace formats\n"
    "      the trace formats and their options (-o KEY=VALUE)\n"
    "\n"
    "See docs/traces.md for the file format, the importers' rules and the statistics' definitions.\n";

struct CommonOptions {
  std::string format;
  std::vector<std::string> maps;
  std::vector<std::string> options;
  std::string time_unit;
};

void add_import_options(po::options_description& d, CommonOptions& c) {
  d.add_options()("map,m", po::value(&c.maps)->composing(),
                  "FIELD=COLUMN: csv column (header name or 0-based index) of a field (repeatable)")(
      "time-unit", po::value(&c.time_unit), "csv time column unit: ns, us, ms or s")(
      "option,o", po::value(&c.options)->composing(), "KEY=VALUE: an option of the input format (repeatable)");
}

std::pair<std::string, std::string> split_pair(const std::string& text, const char* what) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0) {
    throw InputError(std::string(what) + " '" + text + "' is not KEY=VALUE");
  }
  return {text.substr(0, eq), text.substr(eq + 1)};
}

std::map<std::string, std::string> format_options(const CommonOptions& c) {
  std::map<std::string, std::string> out;
  for (const auto& m : c.maps) {
    auto [k, v] = split_pair(m, "--map");
    out[k] = v;
  }
  for (const auto& o : c.options) {
    auto [k, v] = split_pair(o, "--option");
    out[k] = v;
  }
  if (!c.time_unit.empty()) out["time_unit"] = c.time_unit;
  return out;
}

po::variables_map parse(const std::vector<std::string>& args, const po::options_description& visible,
                        const po::positional_options_description& positional) {
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(visible).positional(positional).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    throw InputError(std::string(e.what()) + "\n" + kUsage);
  }
  return vm;
}

void print_kineto_report(const ITraceSource& source) {
  if (const auto* k = dynamic_cast<const KinetoTraceSource*>(&source)) {
    const KinetoImportReport& r = k->report();
    std::cerr << "kineto: " << r.memcpy_events << " gpu_memcpy events: " << r.htod_copies << " host-to-device ("
              << r.htod_bytes << " B), " << r.dtoh_copies << " device-to-host (" << r.dtoh_bytes << " B, dropped), "
              << r.other_copies << " other (dropped)\n"
              << "kineto: " << r.passes << " forward passes of " << r.weight_blocks << " weight blocks";
    if (r.layers) std::cerr << " (" << r.layers << " layers of " << r.weights_per_layer << ")";
    std::cerr << "; kept " << r.weight_accesses << " weight accesses (" << r.weight_bytes << " B); dropped "
              << r.input_copies << " input copies (" << r.input_bytes << " B)\n";
  }
}

int import_or_convert(const std::string& format, const std::string& input, const std::string& output,
                      const CommonOptions& c, bool next_use, const Hdf5WriteOptions& h5) {
  std::unique_ptr<ITraceSource> source = open_trace(input, format, format_options(c));
  print_kineto_report(*source);
  std::uint64_t n = 0;
  {
    std::unique_ptr<ITraceSink> sink = create_trace_sink(output, source->meta(), h5);
    n = copy_trace(*source, *sink);
  }
  if (next_use) {
    if (detect_trace_format(output) != "hdf5") throw InputError("--next-use needs an .h5 output");
    add_next_use(output, output, h5);
  }
  std::cout << "wrote " << n << " records to " << output << (next_use ? " (with next_use_index)" : "") << "\n";
  return 0;
}

std::vector<std::uint64_t> parse_list(const std::string& text, bool bytes) {
  std::vector<std::uint64_t> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (item.empty()) continue;
    if (bytes) {
      out.push_back(parse_bytes(item));
    } else {
      const std::int64_t v = parse_integer(item);
      if (v < 0) throw InputError("capacity '" + item + "' is negative");
      out.push_back(static_cast<std::uint64_t>(v));
    }
  }
  return out;
}

int do_import(const std::vector<std::string>& args, bool convert) {
  CommonOptions c;
  std::string input, output, format;
  bool next_use = false, help = false;
  Hdf5WriteOptions h5;
  po::options_description visible(convert ? "flashsim trace convert INPUT OUTPUT" : "flashsim trace import FORMAT INPUT OUTPUT");
  visible.add_options()("help,h", po::bool_switch(&help), "this help")(
      "next-use", po::bool_switch(&next_use), "add next_use_index (h5 output only)")(
      "deflate", po::value(&h5.deflate_level)->default_value(h5.deflate_level),
      "h5 output: deflate level 0..9 (0: uncompressed, fastest to read)");
  if (convert) visible.add_options()("format,f", po::value(&format), "input format (default: from INPUT's name)");
  add_import_options(visible, c);
  po::options_description all;
  all.add(visible);
  all.add_options()("input-format", po::value(&format))("input", po::value(&input))("output", po::value(&output));
  po::positional_options_description pos;
  if (!convert) pos.add("input-format", 1);
  pos.add("input", 1).add("output", 1);
  parse(args, all, pos);
  if (help) {
    std::cout << visible << "\n" << kUsage;
    return 0;
  }
  if (input.empty() || output.empty() || (!convert && format.empty())) {
    throw InputError(std::string("missing ") + (!convert && format.empty() ? "FORMAT" : input.empty() ? "INPUT" : "OUTPUT") +
                     "\n" + kUsage);
  }
  if (h5.deflate_level < 0 || h5.deflate_level > 9) throw InputError("--deflate must be in 0..9");
  return import_or_convert(format, input, output, c, next_use, h5);
}

int do_stats(const std::vector<std::string>& args) {
  CommonOptions c;
  std::string input, blocks_list, bytes_list;
  long long points = 16;
  bool json = false, help = false;
  po::options_description visible("flashsim trace stats TRACE");
  visible.add_options()("help,h", po::bool_switch(&help), "this help")(
      "format,f", po::value(&c.format), "input format (default: from TRACE's name)")(
      "mrc-points", po::value(&points)->default_value(16),
      "capacity points of each miss-ratio curve: i/N of the unique blocks or footprint bytes, i = 1..N")(
      "capacity-blocks", po::value(&blocks_list), "explicit LRU capacities in blocks, comma-separated")(
      "capacity-bytes", po::value(&bytes_list), "explicit LRU capacities in bytes, comma-separated (units: 2MiB)")(
      "json", po::bool_switch(&json), "print JSON instead of text");
  add_import_options(visible, c);
  po::options_description all;
  all.add(visible);
  all.add_options()("input", po::value(&input));
  po::positional_options_description pos;
  pos.add("input", 1);
  parse(args, all, pos);
  if (help) {
    std::cout << visible << "\n" << kUsage;
    return 0;
  }
  if (input.empty()) throw InputError(std::string("missing TRACE\n") + kUsage);
  std::unique_ptr<ITraceSource> source = open_trace(input, c.format, format_options(c));
  if (!json) print_kineto_report(*source);
  if (points < 1 || points > 100000) throw InputError("--mrc-points " + std::to_string(points) + ": expected 1 to 100000");
  StatsOptions options;
  options.auto_points = static_cast<std::size_t>(points);
  options.capacity_blocks = parse_list(blocks_list, false);
  options.capacity_bytes = parse_list(bytes_list, true);
  const TraceStats stats = compute_stats(*source, options);
  if (json) {
    std::cout << format_stats_json(stats) << "\n";
  } else {
    std::cout << "trace            " << input << "\nsource           " << source->meta().source << "\n"
              << format_stats_text(stats);
  }
  return 0;
}

int do_next_use(const std::vector<std::string>& args) {
  if (args.size() != 2) throw InputError(std::string("next-use takes INPUT.h5 OUTPUT.h5\n") + kUsage);
  add_next_use(args[0], args[1]);
  std::cout << "wrote " << args[1] << " with next_use_index\n";
  return 0;
}

int do_formats() {
  for (const auto* e : TraceFormatRegistry::instance().entries()) {
    std::cout << e->name << " — " << e->summary << "\n";
    for (const auto& p : e->params) {
      std::cout << "    " << p.name << " (" << to_string(p.type) << ", default '" << p.default_value << "'): " << p.doc
                << "\n";
    }
  }
  return 0;
}

}  // namespace

int trace_command(int argc, char** argv) {
  // argv[0] is "trace"; argv[1] the action.
  if (argc < 2) throw InputError(std::string("flashsim trace needs an action\n") + kUsage);
  const std::string action = argv[1];
  const std::vector<std::string> args(argv + 2, argv + argc);
  if (action == "--help" || action == "-h" || action == "help") {
    std::cout << kUsage;
    return 0;
  }
  if (action == "import") return do_import(args, false);
  if (action == "convert") return do_import(args, true);
  if (action == "stats") return do_stats(args);
  if (action == "next-use") return do_next_use(args);
  if (action == "formats") return do_formats();
  throw InputError("unknown trace action '" + action + "'\n" + kUsage);
}

}  // namespace flashsim::cli
