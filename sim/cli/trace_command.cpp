// flashsim trace import|convert|stats|next-use|formats: the canonical trace
// file and its importers (traces/), and trace statistics (traces/stats/).
// Library code throws; main() turns errors into exit codes.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "sim/cache/lru_curve.h"
#include "sim/cli/cli_parse.h"
#include "sim/cli/command_registry.h"
#include "sim/cli/registry_listing.h"
#include "sim/core/errors.h"
#include "sim/core/unit_parse.h"
#include "sim/results/results_table.h"
#include "sim/run/read_progress.h"
#include "sim/scenario/scenario.h"
#include "traces/stats/footprint.h"
#ifdef FLASHSIM_HAVE_LEMON
#include "sim/bound/optimal_bound.h"
#endif
#include "traces/atomic_file.h"
#include "traces/hdf5_trace.h"
#include "traces/importers/kineto.h"
#include "traces/next_use.h"
#include "traces/program.h"
#include "traces/stats/stats_report.h"
#include "traces/stats/trace_stats.h"
#include "traces/trace_formats.h"

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
    "  flashsim trace bound TRACE --capacity C [--capacity C ...] [--json] [--format F]\n"
    "      upper and lower bounds on the optimal hit ratio (by access and by byte) for variable-size\n"
    "      blocks: FOO (min-cost flow), PFOO-L and segmented FOO-U on long traces (docs/policies.md)\n"
    "  flashsim trace formats\n"
    "      the trace formats and their options (-o KEY=VALUE)\n"
    "\n"
    "\n"
    "import, convert and stats print their progress on stderr (-q, --quiet: none; --progress-interval S).\n"
    "See docs/traces.md for the file format, the importers' rules and the statistics' definitions.\n";

struct CommonOptions {
  std::string format;
  std::vector<std::string> maps;
  std::vector<std::string> options;
  std::string time_unit;
};

void add_import_options(CLI::App& app, CommonOptions& c) {
  app.add_option("-m,--map", c.maps, "FIELD=COLUMN: csv column (header name or 0-based index) of a field (repeatable)")
      ->allow_extra_args(false);
  app.add_option("--time-unit", c.time_unit, "csv time column unit: ns, us, ms or s");
  app.add_option("-o,--option", c.options, "KEY=VALUE: an option of the input format (repeatable)")
      ->allow_extra_args(false);
}

struct ProgressOptions {
  bool quiet = false;
  double interval_s = 10;
};

void add_progress_options(CLI::App& app, ProgressOptions& p) {
  app.add_flag("-q,--quiet,--no-progress", p.quiet, "no progress lines on stderr (stdout is the same either way)");
  app.add_option("--progress-interval", p.interval_s,
                 "seconds between progress lines when stderr is not a terminal (a log, a pipe)")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 86400.0));
}

/// Progress of reading `input` on stderr (sim/run/read_progress.h): its
/// first line now, before the trace is opened.
std::unique_ptr<ReadProgress> reading_progress(const char* action, const std::string& input, const ProgressOptions& p) {
  std::error_code ec;
  const auto bytes = std::filesystem::is_regular_file(input, ec) ? std::filesystem::file_size(input, ec) : 0;
  return std::make_unique<ReadProgress>(
      p.quiet ? nullptr : &std::cerr, isatty(STDERR_FILENO) != 0, std::string("flashsim trace ") + action + ": " + input,
      bytes > 0 && !ec ? "reading " + format_bytes_si(bytes) : std::string("reading"),
      std::chrono::milliseconds(static_cast<long long>(p.interval_s * 1000)));
}

std::string records_read(const ProgressTraceSource& s) {
  return "read " + std::to_string(s.records_read()) + " records (" + std::to_string(s.passes()) +
         (s.passes() == 1 ? " pass)" : " passes)");
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

void print_kineto_report(const ITraceSource& source) {
  if (const auto* k = dynamic_cast<const CopyWeightTraceSource*>(&source)) {
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
                      const CommonOptions& c, bool next_use, const Hdf5WriteOptions& h5, const ProgressOptions& p,
                      const char* action) {
  const auto progress = reading_progress(action, input, p);
  std::unique_ptr<ITraceSource> source = open_trace(input, format, format_options(c));
  print_kineto_report(*source);
  ProgressTraceSource watched(*source, *progress);
  std::uint64_t n = 0;
  {
    // Temp files of an import killed earlier beside the same output.
    const std::filesystem::path out_dir = std::filesystem::path(output).parent_path();
    const std::string removed = describe_removed(remove_stale_temp_files(out_dir.empty() ? "." : out_dir, ".tmp-"));
    if (!removed.empty()) std::cerr << "flashsim trace: " << removed << "\n";
    std::unique_ptr<ITraceSink> sink = create_trace_sink(output, source->meta(), h5);
    n = copy_trace(watched, *sink);
  }
  if (next_use) {
    if (detect_trace_format(output) != "hdf5") throw InputError("--next-use needs an .h5 output");
    add_next_use(output, output, h5);
  }
  progress->finish(records_read(watched));
  std::cout << "wrote " << n << " records to " << output << (next_use ? " (with next_use_index)" : "") << "\n";
  return 0;
}

/// The capacities of `flag` (--capacity-bytes / --capacity-blocks), each > 0.
std::vector<std::uint64_t> parse_list(const std::string& text, bool bytes, const char* flag) {
  std::vector<std::uint64_t> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (item.empty()) continue;
    std::uint64_t v = 0;
    try {
      if (bytes) {
        v = parse_bytes(item);
      } else {
        const std::int64_t n = parse_integer(item);
        if (n < 0) throw InputError("'" + item + "' is negative");
        v = static_cast<std::uint64_t>(n);
      }
    } catch (const std::exception& e) {
      throw InputError(std::string(flag) + ": " + e.what());
    }
    if (v == 0) throw InputError(std::string(flag) + ": a capacity must be > 0, got '" + item + "'");
    out.push_back(v);
  }
  return out;
}

int do_import(const std::vector<std::string>& args, bool convert) {
  CommonOptions c;
  std::string input, output, format;
  bool next_use = false;
  Hdf5WriteOptions h5;
  CLI::App app(convert ? "Converts INPUT to OUTPUT (input format from INPUT's name unless --format)."
                       : "Imports INPUT, read as FORMAT, into OUTPUT (.h5 or .csv).",
               convert ? "flashsim trace convert" : "flashsim trace import");
  app.footer(kUsage);
  if (!convert) app.add_option("format", format, "input format (flashsim trace formats)")->required();
  app.add_option("input", input, "input trace")->required();
  app.add_option("output", output, "output trace (.h5 or .csv)")->required();
  app.add_flag("--next-use", next_use, "add next_use_index (h5 output only)");
  app.add_option("--deflate", h5.deflate_level, "h5 output: deflate level 0..9 (0: uncompressed, fastest to read)")
      ->capture_default_str()
      ->check(CLI::Range(0, 9));
  if (convert) app.add_option("-f,--format", format, "input format (default: from INPUT's name)");
  add_import_options(app, c);
  ProgressOptions progress;
  add_progress_options(app, progress);
  if (!parse_command_line(app, args)) return 0;
  return import_or_convert(format, input, output, c, next_use, h5, progress, convert ? "convert" : "import");
}

int do_stats(const std::vector<std::string>& args) {
  CommonOptions c;
  std::string input, blocks_list, bytes_list;
  long long points = 16;
  bool json = false;
  CLI::App app("Records, unique blocks, footprint, reuse distances and LRU miss-ratio curves of a trace.",
               "flashsim trace stats");
  app.footer(kUsage);
  app.add_option("trace", input, "the trace")->required();
  app.add_option("-f,--format", c.format, "input format (default: from TRACE's name)");
  app.add_option("--mrc-points", points,
                 "capacity points of each miss-ratio curve: i/N of the unique blocks or footprint bytes, i = 1..N")
      ->capture_default_str();
  app.add_option("--capacity-blocks", blocks_list, "explicit LRU capacities in blocks, comma-separated");
  app.add_option("--capacity-bytes", bytes_list, "explicit LRU capacities in bytes, comma-separated (units: 2MiB)");
  app.add_flag("--json", json, "print JSON instead of text");
  std::string size_change = "refetch";
  app.add_option("--size-change", size_change,
                 "a block accessed with another size than it holds: refetch (a miss; one pass) or hit "
                 "(libCacheSim's rule; the byte curve is then an LRU simulation per capacity), as the scenario "
                 "key cache.size_change")
      ->check(CLI::IsMember({"refetch", "hit"}))
      ->capture_default_str();
  add_import_options(app, c);
  ProgressOptions progress_options;
  add_progress_options(app, progress_options);
  if (!parse_command_line(app, args)) return 0;
  if (points < 1 || points > 100000) throw InputError("--mrc-points " + std::to_string(points) + ": expected 1 to 100000");
  const auto progress = reading_progress("stats", input, progress_options);
  std::unique_ptr<ITraceSource> source = open_trace(input, c.format, format_options(c));
  if (!json) print_kineto_report(*source);
  ProgressTraceSource watched(*source, *progress);
  StatsOptions options;
  options.auto_points = static_cast<std::size_t>(points);
  options.capacity_blocks = parse_list(blocks_list, false, "--capacity-blocks");
  options.capacity_bytes = parse_list(bytes_list, true, "--capacity-bytes");
  options.size_change = size_change == "hit" ? SizeChange::hit : SizeChange::refetch;
  TraceStats stats = compute_stats(watched, options);
  // The one-pass stack cannot follow size_change hit (a block keeps the size
  // of its last admission, which depends on the capacity): simulate it.
  if (options.size_change == SizeChange::hit) simulate_lru_byte_curve(watched, SizeChange::hit, stats.mrc_bytes);
  progress->finish(records_read(watched));
  if (json) {
    std::cout << format_stats_json(stats) << "\n";
  } else {
    std::cout << "trace            " << input << "\nsource           " << source->meta().source << "\n"
              << "schema           " << source->meta().schema_version << "\n";
    if (const auto& program = source->meta().program) {
      std::cout << "program          " << describe_program(*program) << "\n";
      if (program->schema_version() >= 3) {
        std::cout << "capture host     " << describe_capture_host(program->host) << "\n"
                  << "repeat marks     " << program->repeat_marks_ns.size() << "\n";
      }
    }
    std::cout << format_stats_text(stats);
  }
  return 0;
}

int do_next_use(const std::vector<std::string>& args) {
  if (args.size() != 2) throw InputError(std::string("next-use takes INPUT.h5 OUTPUT.h5\n") + kUsage);
  add_next_use(args[0], args[1]);
  std::cout << "wrote " << args[1] << " with next_use_index\n";
  return 0;
}

int do_bound(const std::vector<std::string>& args) {
#ifdef FLASHSIM_HAVE_LEMON
  CommonOptions c;
  std::string input;
  std::vector<std::string> capacities;
  bool json = false;
  long long exact = 200'000, segment = 50'000;
  CLI::App app("Bounds on the optimal hit ratio for variable-size blocks (FOO; PFOO-L and segmented FOO-U beyond\n"
               "--exact-max-accesses): no policy can hit more than the upper bound; the lower bound is a\n"
               "schedule that exists (Berger, Beckmann, Harchol-Balter, SIGMETRICS 2018).",
               "flashsim trace bound");
  app.footer(kUsage);
  app.add_option("trace", input, "the trace")->required();
  app.add_option("-f,--format", c.format, "input format (default: from TRACE's name)");
  app.add_option("-c,--capacity", capacities, "fast-tier capacity: bytes (2GiB) or a share of the footprint (10%); repeatable")
      ->required()
      ->allow_extra_args(false);
  app.add_option("--exact-max-accesses", exact, "solve FOO on the whole trace up to this many accesses")
      ->capture_default_str();
  app.add_option("--segment", segment, "beyond it: accesses per segment of the lower bound")->capture_default_str();
  app.add_flag("--json", json, "print JSON instead of text");
  add_import_options(app, c);
  if (!parse_command_line(app, args)) return 0;
  if (exact < 1) throw InputError("--exact-max-accesses: expected >= 1");
  if (segment < 2) throw InputError("--segment: expected >= 2");
  std::unique_ptr<ITraceSource> source = open_trace(input, c.format, format_options(c));
  const std::vector<AccessRecord> records = read_all_records(*source);
  std::vector<ByteCount> bytes;
  ByteCount footprint = 0;
  for (const auto& text : capacities) {
    const CapacitySpec spec = parse_option("--capacity", text, CapacitySpec::parse);
    if (spec.is_fraction && footprint == 0) footprint = measure_footprint(*source).bytes;
    bytes.push_back(spec.is_fraction ? spec.resolve(footprint) : spec.bytes);
    if (bytes.back() == 0) throw InputError("--capacity " + text + ": 0 bytes of a " + std::to_string(footprint) + " B footprint");
  }
  BoundOptions options;
  options.exact_max_accesses = static_cast<std::size_t>(exact);
  options.segment_accesses = static_cast<std::size_t>(segment);
  // A min-cost flow's time depends on the trace, not only its length (10 s
  // for 113 k cloudPhysics accesses, minutes for 107 k accesses of 117 MB
  // expert tensors): say what is being solved before a long wait.
  const std::size_t flow_accesses =
      records.size() <= options.exact_max_accesses ? records.size() : std::min(records.size(), options.segment_accesses);
  if (flow_accesses > 20'000) {
    std::cerr << "flashsim trace bound: " << bytes.size() << " capacit" << (bytes.size() == 1 ? "y" : "ies")
              << ", min-cost flows over " << flow_accesses << " accesses"
              << (records.size() <= options.exact_max_accesses ? " (exact FOO)" : " per segment")
              << ": seconds to minutes, depending on the trace; --exact-max-accesses and --segment trade "
                 "tightness for time\n";
  }
  const std::vector<HitBound> bounds = optimal_hit_bounds(records, bytes, options);
  if (json) {
    nlohmann::ordered_json j;
    j["trace"] = input;
    for (std::size_t i = 0; i < bounds.size(); ++i) {
      const HitBound& b = bounds[i];
      j["bounds"].push_back({{"capacity", capacities[i]},
                             {"capacity_bytes", b.capacity_bytes},
                             {"hit_ratio_by_byte_upper", b.hit_ratio_by_byte_upper},
                             {"hit_ratio_by_byte_lower", b.hit_ratio_by_byte_lower},
                             {"hit_ratio_by_access_upper", b.hit_ratio_by_access_upper},
                             {"hit_ratio_by_access_lower", b.hit_ratio_by_access_lower},
                             {"method", b.method},
                             {"accesses", b.accesses},
                             {"reuse_intervals", b.intervals},
                             {"bytes", b.bytes},
                             {"seconds", b.seconds}});
    }
    std::cout << j.dump(1) << "\n";
    return 0;
  }
  std::printf("trace %s: %zu accesses, %llu reuse intervals\n", input.c_str(), records.size(),
              static_cast<unsigned long long>(bounds.front().intervals));
  std::printf("%-12s %16s %-26s %-22s %-22s %8s\n", "capacity", "bytes", "method", "hit ratio by access",
              "hit ratio by byte", "seconds");
  for (std::size_t i = 0; i < bounds.size(); ++i) {
    const HitBound& b = bounds[i];
    char access[64], byte[64];
    std::snprintf(access, sizeof access, "%.2f%% .. %.2f%%", 100 * b.hit_ratio_by_access_lower,
                  100 * b.hit_ratio_by_access_upper);
    std::snprintf(byte, sizeof byte, "%.2f%% .. %.2f%%", 100 * b.hit_ratio_by_byte_lower, 100 * b.hit_ratio_by_byte_upper);
    std::printf("%-12s %16llu %-26s %-22s %-22s %8.2f\n", capacities[i].c_str(),
                static_cast<unsigned long long>(b.capacity_bytes), b.method.c_str(), access, byte, b.seconds);
  }
  std::printf("(lower .. upper: no policy hits more than the upper bound; the lower bound is a schedule that exists)\n");
  return 0;
#else
  (void)args;
  throw Error("this flashsim was built without LEMON (Debian liblemon-dev): `trace bound` is not available");
#endif
}

int do_formats() {
  list_registry(std::cout, "trace formats (options: -o KEY=VALUE, or workload.import in a scenario)",
                TraceFormatRegistry::instance());
  return 0;
}

}  // namespace

namespace {

int trace_command(int argc, char** argv) {
  return run_action(argc, argv, "trace", kUsage,
                    {{"import", [](const auto& args) { return do_import(args, false); }},
                     {"convert", [](const auto& args) { return do_import(args, true); }},
                     {"stats", do_stats},
                     {"next-use", do_next_use},
                     {"formats", [](const auto&) { return do_formats(); }},
                     {"bound", do_bound}});
}

}  // namespace

FLASHSIM_REGISTER_COMMAND("trace", "trace import|convert|stats|next-use|bound|formats ...",
                          "import traces (CSV, libCacheSim oracleGeneral, PyTorch Kineto, ...) into\n"
                          "the canonical HDF5 form, and print their statistics",
                          &trace_command);

}  // namespace flashsim::cli
