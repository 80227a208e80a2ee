// Regression tests for issue 14's classes of bad input: each must end in an
// error that names its cause, never a signal, exhausted memory or
// "internal error".
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sys/resource.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <limits>
#include <sstream>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "sim/core/errors.h"
#include "sim/engine/hardware_profile.h"
#include "sim/engine/event/l2_model.h"
#include "sim/model/roofline.h"
#include "sim/prefetch/i_prefetcher.h"
#include "sim/run/progress.h"
#include "sim/core/unit_parse.h"
#include "sim/core/warnings.h"
#include "sim/run/scenario_runner.h"
#include "sim/scenario/config_tree.h"
#include "sim/scenario/scenario_document.h"
#include "tests/app/app_test_util.h"
#include "tests/support/temp_dir.h"
#include "traces/atomic_file.h"
#include "traces/child_probe.h"
#include "traces/importers/csv_importer.h"
#include "traces/record_validator.h"
#include "traces/trace_formats.h"
#include "traces/trace_source.h"
#include "sim/workload/image_concepts.h"
#include "sim/workload/workload_io.h"

namespace flashsim {
namespace {

using ::testing::HasSubstr;

std::string yaml_error(const std::string& text) {
  try {
    parse_yaml_text(text, "s.yaml");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(Hardening, YamlAliasBombIsRefusedBeforeItIsExpanded) {
  // "Billion laughs": 9^10 scalars if expanded.
  std::string text = "a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n";
  for (int i = 1; i < 10; ++i) {
    text += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [";
    for (int j = 0; j < 9; ++j) text += (j ? ", *a" : "*a") + std::to_string(i - 1);
    text += "]\n";
  }
  const std::string e = yaml_error(text);
  EXPECT_THAT(e, HasSubstr("s.yaml:"));
  EXPECT_THAT(e, HasSubstr("expands to more than 1000000 nodes"));
}

TEST(Hardening, YamlAliasOfLongStringsIsBoundedByText) {
  std::string text = "a: &a \"" + std::string(1 << 20, 'x') + "\"\nb: [";
  for (int j = 0; j < 100; ++j) text += j ? ", *a" : "*a";
  text += "]\n";
  EXPECT_THAT(yaml_error(text), HasSubstr("more than 64 MiB of text"));
}

TEST(Hardening, YamlAliasOfItsOwnAncestorIsAnError) {
  EXPECT_THAT(yaml_error("a: &x [1, *x]\n"), HasSubstr("nests deeper than 256 levels"));
}

TEST(Hardening, YamlAliasesWithinBoundsAreExpanded) {
  const ConfigNode n = parse_yaml_text("base: &b {x: 1}\nuse: *b\n", "s.yaml");
  ASSERT_NE(n.find("use"), nullptr);
  ASSERT_NE(n.find("use")->find("x"), nullptr);
  EXPECT_EQ(n.find("use")->find("x")->scalar, "1");
}

// A second document after `---` was dropped without a word (so was a stray
// bracket after the first); one before the
// first key (a leading `---`) is the YAML document start and stays allowed.
TEST(Hardening, ASecondYamlDocumentIsRefusedAtItsLine) {
  EXPECT_THAT(yaml_error("name: a\n---\nname: b\n"), HasSubstr("s.yaml:2:1: more after the first YAML document"));
  // A stray bracket after the first document: YAML::LoadAll never returns on it (fuzzing found it).
  EXPECT_THAT(yaml_error("# a comment\n, medium, long]\n"), HasSubstr("more after the first YAML document"));
  EXPECT_EQ(yaml_error("---\nname: a\n"), "");
  // Empty documents lose nothing: a lone trailing `---` is let be, a later scenario is not.
  EXPECT_EQ(yaml_error("name: a\n---\n"), "");
  EXPECT_EQ(yaml_error("name: a\n---\n---\n...\n"), "");
  EXPECT_THAT(yaml_error("name: a\n---\n---\nname: b\n"), HasSubstr("s.yaml:3:1: more after the first YAML document"));
  EXPECT_EQ(parse_yaml_text("---\nname: a\n", "s.yaml").find("name")->scalar, "a");
}

// --- HDF5 traces ---

const std::filesystem::path kCapture = std::filesystem::path(FLASHSIM_SOURCE_DIR) / "hw/capture/example/offload_stream.capture.h5";

std::vector<char> bytes_of(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_bytes(const std::filesystem::path& p, const std::vector<char>& b) {
  std::ofstream(p, std::ios::binary).write(b.data(), static_cast<std::streamsize>(b.size()));
}

// "" if the trace opens and reads; else the InputError's message. Any other
// exception fails the test (a signal would end it).
std::string read_error(const std::filesystem::path& p) {
  try {
    auto source = open_trace(p);
    read_all_records(*source);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(Hardening, Hdf5HeapObjectLongerThanItsStringIsRefusedNamingTheFile) {
  // The catalog's names live in a global heap collection ("GCOL"); its first
  // object's size (8 bytes after index, references and reserved) is made
  // larger than the string: HDF5 1.10 copied it past its buffer (SIGSEGV).
  test::TempDir dir;
  std::vector<char> b = bytes_of(kCapture);
  const std::string sig = "GCOL";
  auto at = std::search(b.begin(), b.end(), sig.begin(), sig.end());
  ASSERT_NE(at, b.end());
  const std::size_t size_field = static_cast<std::size_t>(at - b.begin()) + 16 + 8;
  const std::uint64_t huge = 1u << 20;
  std::memcpy(b.data() + size_field, &huge, sizeof huge);
  write_bytes(dir / "t.h5", b);
  const std::string e = read_error(dir / "t.h5");
  EXPECT_THAT(e, HasSubstr((dir / "t.h5").string() + ": "));
  EXPECT_THAT(e, HasSubstr("corrupt"));
}

TEST(Hardening, Hdf5DamageThatCrashesHdf5ItselfIsAnErrorNotASignal) {
  // Found by the HDF5 fuzz target: a chunk dimension of 0 makes HDF5 1.10
  // divide by zero while opening the dataset (SIGFPE in H5D__chunk_set_info).
  const std::filesystem::path p =
      std::filesystem::path(FLASHSIM_SOURCE_DIR) / "tests/fuzz/regressions/hdf5/chunk-dim-zero-fpe.h5";
  const std::string e = read_error(p);
  EXPECT_THAT(e, HasSubstr(p.string() + ": damaged HDF5 file: a child process that read it first with the HDF5 library died of signal 8"));
}

TEST(Hardening, Hdf5DamageThatLoopsHdf5ForeverIsStoppedAndNamed) {
  // Found by the HDF5 fuzz target (a timeout): libhdf5 never returns from
  // opening this file. The probe child is stopped after 30 s.
  const std::filesystem::path p =
      std::filesystem::path(FLASHSIM_SOURCE_DIR) / "tests/fuzz/regressions/hdf5-slow/btree-endless-loop.h5";
  const std::string e = read_error(p);
  EXPECT_THAT(e, HasSubstr(p.string() + ": damaged HDF5 file: a child process that read it first with the HDF5 library "
                                        "did not finish in 30 s (an endless loop?) and was stopped"));
}

TEST(Hardening, AChildInAnEndlessLoopIsStoppedAtItsTimeout) {
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(death_in_child([] { for (volatile bool forever = true; forever;) {} }, std::chrono::milliseconds(300)),
            "did not finish in 300 ms (an endless loop?) and was stopped");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
  EXPECT_EQ(death_in_child([] {}, std::chrono::seconds(5)), "");
}

TEST(Hardening, Hdf5CorruptionAnywhereIsAnErrorNamingTheFile) {
  // 8 bytes of 0xFF at every 61st position of a real capture (62 KB):
  // each read either succeeds or throws an InputError naming the file.
  test::TempDir dir;
  const std::vector<char> clean = bytes_of(kCapture);
  const std::filesystem::path p = dir / "t.h5";
  int errors = 0;
  for (std::size_t pos = 0; pos < clean.size(); pos += 61) {
    std::vector<char> b = clean;
    std::fill_n(b.begin() + static_cast<std::ptrdiff_t>(pos), std::min<std::size_t>(8, b.size() - pos), '\xff');
    write_bytes(p, b);
    const std::string e = read_error(p);
    if (e.empty()) continue;
    ++errors;
    EXPECT_EQ(e.rfind(p.string() + ": ", 0), 0u) << "at byte " << pos << ": " << e;
  }
  EXPECT_GT(errors, 50);  // the damage was seen, not skipped
}

// --- CSV messages ---

std::string csv_error(const test::TempDir& dir, const std::string& text) {
  test::write_file(dir / "t.csv", text);
  return read_error(dir / "t.csv");
}

TEST(Hardening, CsvQuotedNewlineIsOneRecordAndLineNumbersStayPhysical) {
  test::TempDir dir;
  test::write_file(dir / "t.csv", "block_id,bytes,note\n1,4096,\"two\nlines\"\n2,x,y\n");
  const std::string e = read_error(dir / "t.csv");
  EXPECT_THAT(e, HasSubstr("t.csv:4: column 'bytes'"));  // the bad row is the 4th physical line
}

TEST(Hardening, CsvUnterminatedQuoteNamesTheLineItBeganOn) {
  test::TempDir dir;
  EXPECT_THAT(csv_error(dir, "block_id,bytes\n1,4096\n2,\"4096\n3,4096\n"),
              HasSubstr("t.csv:3: unterminated quote (the record runs to the end of the file)"));
}

TEST(Hardening, CsvHugeRecordIsRefusedWithoutReadingItAll) {
  test::TempDir dir;
  EXPECT_THAT(csv_error(dir, "block_id,bytes\n1," + std::string(3u << 20, '9') + "\n"),
              HasSubstr("t.csv:2: a record longer than 1048576 bytes"));
}

TEST(Hardening, CsvLongCellIsCutInTheMessage) {
  test::TempDir dir;
  const std::string e = csv_error(dir, "block_id,bytes\n1," + std::string(5000, 'x') + "\n");
  EXPECT_THAT(e, HasSubstr("... (5000 bytes)' is not a non-negative integer"));
  EXPECT_LT(e.size(), 300u);
}

TEST(Hardening, CsvDuplicatedColumnIsAnError) {
  test::TempDir dir;
  EXPECT_THAT(csv_error(dir, "time_ns,block_id,bytes,Block_ID\n0,1,4096,2\n"),
              HasSubstr("t.csv:1: column 'Block_ID' appears twice in the header (columns 1 and 3, from 0)"));
}

// --- paths ---

TEST(Hardening, ASymlinkLoopAsATraceIsNamedAsSuch) {
  test::TempDir dir;
  std::filesystem::create_symlink(dir / "b.csv", dir / "a.csv");
  std::filesystem::create_symlink(dir / "a.csv", dir / "b.csv");
  EXPECT_EQ(test::error_of<InputError>([&] { open_trace(dir / "a.csv"); }),
            (dir / "a.csv").string() + ": too many levels of symbolic links (a link loop?)");
  const std::string text = "name: x\nworkload: {trace: a.csv}\ncache: {capacity: 1MiB}\npolicies: [lru]\n";
  const std::string e = test::error_of<InputError>(
      [&] { ScenarioDocument::from_text(text, "s.yaml", dir.path()).resolve(SweepPoint{}); });
  EXPECT_THAT(e, HasSubstr("s.yaml:2:"));
  EXPECT_THAT(e, HasSubstr("too many levels of symbolic links"));
}

// --- what a run needs, known before it starts ---

TEST(Hardening, AGranularityNeedingMoreMemoryThanTheLimitIsRefusedWithItsNumbers) {
  // 4 blocks of 1 MiB, 2 passes, at 256 B: 16384 pieces, 32768 accesses:
  // 16384 x 400 + 32768 x 16 = 7,077,888 B per run.
  test::TempDir dir;
  test::write_file(dir / "t.csv", test::cyclic_csv(4, 2, 1u << 20));
  const std::string text = "name: g\nworkload: {trace: t.csv}\ncache: {capacity: 1MiB, granularity: 256B}\npolicies: [lru]\n";
  const ScenarioDocument doc = ScenarioDocument::from_text(text, "g.yaml", dir.path());
  RunnerOptions o;
  o.jobs = 1;
  o.max_memory_bytes = 7'077'887;
  const std::string e = test::error_of<InputError>([&] { run_scenario(doc, o); });
  EXPECT_THAT(e, HasSubstr("key 'cache.granularity'"));
  EXPECT_THAT(e, HasSubstr("16384 distinct pieces and 32768 accesses"));
  EXPECT_THAT(e, HasSubstr("--max-memory"));
  o.max_memory_bytes = 7'077'888;  // exactly the estimate: runs
  EXPECT_EQ(run_scenario(doc, o).runs.size(), 1u);
}

TEST(Hardening, AMultiDayTimestampedTraceFailsBeforeTheRunWithTheWindowItNeeds) {
  test::TempDir dir;
  test::write_file(dir / "t.csv", "time_ns,block_id,bytes\n0,1,4096\n259200000000000,2,4096\n");
  const std::string text = "name: d\nworkload: {trace: t.csv, issue: timestamp}\ncache: {capacity: 8KiB}\npolicies: [lru]\n";
  const ScenarioDocument doc = ScenarioDocument::from_text(text, "d.yaml", dir.path());
  RunnerOptions o;
  o.jobs = 1;
  o.engine = [](ITraceSource&, const EngineConfig&, const ComponentChoice&, const EngineContext&) -> EngineResult {
    ADD_FAILURE() << "the run started";
    return {};
  };
  const std::string e = test::error_of<InputError>([&] { run_scenario(doc, o); });
  EXPECT_THAT(e, HasSubstr("key 'outputs.window'"));
  EXPECT_THAT(e, HasSubstr("25920001 windows"));
  EXPECT_THAT(e, HasSubstr("at least 259200001 ns"));
}

TEST(Hardening, ASweepOfTooManyPointsIsRefusedBeforeItIsExpanded) {
  // 1000^3 points would not fit in memory; the product is checked first.
  std::string values = "[";
  for (int i = 0; i < 1000; ++i) values += (i ? ", " : "") + std::to_string(i + 1) + "MiB";
  values += "]";
  const std::string text = "name: s\nworkload: {trace: builtin:llama-2048x22}\ncache: {capacity: 1GiB}\npolicies: [lru]\n"
                           "sweep:\n  cache.capacity: " + values + "\n  seed: " + values + "\n  policies.0.impl: " + values + "\n";
  const ScenarioDocument doc = ScenarioDocument::from_text(text, "s.yaml", ".");
  const std::string e = test::error_of<InputError>([&] { doc.points(); });
  EXPECT_THAT(e, HasSubstr("1000 (cache.capacity) x 1000 (seed) x 1000 (policies.0.impl) points"));
  EXPECT_THAT(e, HasSubstr("--max-points"));
}

// --- likely mistakes ---

TEST(Hardening, ABareNumberForADurationIsReadAsNanosecondsAndSaidSo) {
  std::vector<std::string> said;
  const WarningSink previous = set_warning_sink([&](const std::string& m) { said.push_back(m); });
  const std::string text = "name: w\nworkload: {trace: builtin:llama-2048x22}\ncache: {capacity: 50%}\n"
                           "policies: [{impl: mlru, age_window: 500}, {impl: mlru, age_window: 500us}]\n";
  const ScenarioDocument doc = ScenarioDocument::from_text(text, "w.yaml", ".");
  const Scenario s = doc.resolve(SweepPoint{});
  doc.resolve(SweepPoint{});  // said once, not per resolution
  set_warning_sink(previous);
  ASSERT_EQ(said.size(), 1u);
  EXPECT_THAT(said[0], HasSubstr("w.yaml:4:37: key 'policies.0.age_window': the bare number 500 is read as 500 ns"));
  EXPECT_EQ(parse_duration_ns(s.policies[0].choice.params.at("age_window")), 500);
  EXPECT_EQ(parse_duration_ns(s.policies[1].choice.params.at("age_window")), 500'000);
}

TEST(Hardening, AFractionParameterTakesAPercentageAsCapacitiesDo) {
  const std::string text = "name: f\nworkload: {trace: builtin:llama-2048x22}\ncache: {capacity: 50%}\n"
                           "policies: [{impl: s3fifo, small_ratio: 10%}]\n";
  const Scenario s = ScenarioDocument::from_text(text, "f.yaml", ".").resolve(SweepPoint{});
  EXPECT_DOUBLE_EQ(parse_real(s.policies[0].choice.params.at("small_ratio")), 0.1);
}

TEST(Hardening, APinOfABlockNotInTheTraceIsAnError) {
  test::TempDir dir;
  test::write_file(dir / "t.csv", test::cyclic_csv(4, 2, 4096));
  const std::string text = "name: p\nworkload: {trace: t.csv}\ncache: {capacity: 8KiB, pin: {blocks: [2, 7, 9]}}\npolicies: [lru]\n";
  RunnerOptions o;
  o.jobs = 1;
  const std::string e =
      test::error_of<InputError>([&] { run_scenario(ScenarioDocument::from_text(text, "p.yaml", dir.path()), o); });
  EXPECT_THAT(e, HasSubstr("key 'cache.pin.blocks': block 7, 9 never accessed in the trace"));
}

// --- found by a new user's attack on a clean clone ---

TEST(Hardening, APointLimitWithoutASweepIsNotASegfault) {
  // expand_sweep named the first axis of an empty sweep (SIGSEGV with --max-points 0).
  EXPECT_EQ(expand_sweep({}, 0).size(), 1u);
  EXPECT_EQ(expand_sweep({}, 1).size(), 1u);
}

TEST(Hardening, AHugeCsvColumnIndexIsAnErrorNotStdOutOfRange) {
  test::TempDir dir;
  test::write_file(dir / "t.csv", "block_id,bytes\n1,4096\n");
  CsvImportOptions o;
  o.columns["block_id"] = "99999999999999999999";
  const std::string e = test::error_of<InputError>([&] { CsvTraceSource(dir / "t.csv", o); });
  EXPECT_THAT(e, HasSubstr("column index 99999999999999999999 (field block_id) is beyond the header's 2 columns"));
}

TEST(Hardening, AFolderNamedLikeACsvTraceOrCatalogIsNamedAsAFolder) {
  test::TempDir dir;
  std::filesystem::create_directory(dir / "d.csv");
  EXPECT_EQ(test::error_of<InputError>([&] { open_trace(dir / "d.csv"); }),
            (dir / "d.csv").string() + ": is a directory, not a file");
  test::write_file(dir / "t.csv", "block_id,bytes\n1,4096\n");
  std::filesystem::create_directory(dir / "t.catalog.csv");
  EXPECT_THAT(test::error_of<InputError>([&] { open_trace(dir / "t.csv"); }), HasSubstr("t.catalog.csv: is a directory"));
}

// --- leftovers ---

TEST(Hardening, AnOutputThatIsADeviceOrAFifoIsNotReplaced) {
  // As root, `predict --json /dev/full` renamed its temp file over the device.
  test::TempDir dir;
  ASSERT_EQ(::mkfifo((dir / "fifo").c_str(), 0600), 0);
  EXPECT_THAT(test::error_of<InputError>([&] { AtomicFile f(dir / "fifo"); }),
              HasSubstr("fifo: exists and is not a regular file (a device, FIFO or socket): refusing to replace it"));
  EXPECT_TRUE(std::filesystem::is_fifo(dir / "fifo"));
  test::write_file(dir / "plain", "x");
  EXPECT_NO_THROW(AtomicFile(dir / "plain"));
}

TEST(Hardening, TempFilesOfDeadProcessesAreRemovedAndOthersKept) {
  test::TempDir dir;
  // pid 1 is alive; a pid above pid_max (4194304 on Linux) is not.
  for (const char* n : {"r.h5.tmp-1-abcdef", "r.h5.tmp-99999999-abcdef", "r.h5.tmp-abcdef", "r.h5"}) {
    test::write_file(dir / n, "x");
  }
  const auto removed = remove_stale_temp_files(dir.path(), ".tmp-");
  ASSERT_EQ(removed.size(), 1u);
  EXPECT_EQ(removed[0].filename(), "r.h5.tmp-99999999-abcdef");
  EXPECT_TRUE(std::filesystem::exists(dir / "r.h5.tmp-1-abcdef"));
  EXPECT_TRUE(std::filesystem::exists(dir / "r.h5.tmp-abcdef"));
  EXPECT_TRUE(std::filesystem::exists(dir / "r.h5"));
}

// --- in-range values that needed more memory or time than there is ---

TEST(Hardening, AnL2OfTooManySetsIsRefusedWithItsNumbers) {
  L2Spec spec;
  spec.capacity_bytes = 4'000'000'000;  // 1 B lines, 16 ways: 250 M sets (tables of 5 GB)
  spec.line_bytes = 1;
  spec.sector_bytes = 1;
  spec.sampled_sets = 0;
  EXPECT_THAT(test::error_of<InputError>([&] { L2Model m(spec); }),
              HasSubstr("= 250000000 sets, more than the 16777216 an L2 model may have"));
  spec.capacity_bytes = std::uint64_t{1} << 35;  // 2^24 sets of 16 x 128 B lines, all simulated: 2^28 lines
  spec.line_bytes = 128;
  spec.sector_bytes = 32;
  EXPECT_THAT(test::error_of<InputError>([&] { L2Model m(spec); }),
              HasSubstr("16777216 simulated sets x 16 ways = 268435456 lines, more than the 67108864"));
  spec.sampled_sets = L2Spec::kAutoSampledSets;  // the same L2 under set sampling: fine
  EXPECT_EQ(L2Model(spec).stats().simulated_sets, 256u);
}

TEST(Hardening, AMarkovWindowOfABillionAllocatesNothingUpFront) {
  // The ring of transitions grows with the transitions seen; it was 4 GB at
  // construction. In a child under a 1 GiB address-space limit.
  const std::string death = death_in_child([] {
    rlimit limit{std::uint64_t{1} << 30, std::uint64_t{1} << 30};
    setrlimit(RLIMIT_AS, &limit);
    TraceMeta meta;
    PrefetcherContext context;
    context.meta = &meta;
    try {
      auto p = PrefetcherRegistry::instance().create("markov", {{"window", "1000000000"}, {"state", "block"}}, context);
    } catch (const std::bad_alloc&) {
      std::abort();
    }
  });
  EXPECT_EQ(death, "");
}

TEST(Hardening, ALookaheadDeeperThanTheCycleWalksTheCycleOnce) {
  // cycle_depth 10^9 walked 10^9 positions per access (hours); past one
  // cycle it only revisits, so it equals the depth of the whole cycle.
  auto run = [](const std::string& depth) {
    const std::string text = "name: la\nworkload: {trace: builtin:llama-2048x22}\ncache: {capacity: 50%}\n"
                             "policies: [lru]\nprefetch: [{impl: lookahead, cycle_depth: " + depth + "}]\n";
    RunnerOptions o;
    o.jobs = 1;
    return run_scenario(ScenarioDocument::from_text(text, "la.yaml", "."), o).runs.at(0).result.metrics.total;
  };
  const auto deep = run("1000000000");
  const auto cycle = run("1000");  // more than the cycle's ~200 blocks
  EXPECT_GT(deep.prefetches, 0u);
  EXPECT_EQ(deep.prefetches, cycle.prefetches);
  EXPECT_EQ(deep.hits, cycle.hits);
}

/// A two-layer Llama-shaped config.json in `dir` and a context that finds
/// it, with a memory limit.
WorkloadContext tiny_model_context(const test::TempDir& dir, ByteCount memory_limit_bytes) {
  test::write_file(dir / "m.json", R"({"model_type":"llama","hidden_size":64,"intermediate_size":128,
    "num_hidden_layers":2,"num_attention_heads":4,"num_key_value_heads":2,"vocab_size":256,"torch_dtype":"float16"})");
  WorkloadContext context;
  context.base_dir = dir.path();
  context.memory_limit_bytes = memory_limit_bytes;
  return context;
}

TEST(Hardening, AGeneratedCatalogAboveTheMemoryLimitIsRefusedBeforeItIsBuilt) {
  test::TempDir dir;
  WorkloadContext context = tiny_model_context(dir, 1'000'000);
  // 10^7 requests x (input + logits + 2 layers x ceil(35 KV tokens / 16) pages = 8 blocks).
  const std::map<std::string, std::string> params = {{"model", "m.json"}, {"requests", "10000000"},
                                                     {"prompt_tokens", "4"}, {"output_tokens", "32"}};
  const std::string e = test::error_of<InputError>([&] { make_workload("serving", params, context); });
  EXPECT_THAT(e, HasSubstr("10000000 requests of 8 blocks each"));
  EXPECT_THAT(e, HasSubstr("--max-memory"));
  context.memory_limit_bytes = 0;  // unchecked: a small one builds
  EXPECT_NO_THROW(make_workload("serving", {{"model", "m.json"}, {"requests", "3"}}, context));
  EXPECT_THAT(test::error_of<InputError>(
                  [&] { make_workload("serving", {{"model", "m.json"}, {"concepts", "1000000"}}, context); }),
              HasSubstr("'concepts' = '1000000': out of range [1, 20000]"));
}

TEST(Hardening, ARooflineTooSlowForATraceIsAnErrorNotANegativeComputeTime) {
  ComputeSpec compute;
  compute.peak_flops = 1e-300;
  EXPECT_THAT(test::error_of<InputError>([&] { roofline_ns(1e6, 0, compute); }),
              HasSubstr("peak_flops or hbm_bandwidth is far too small"));
  compute.peak_flops = 1e12;
  EXPECT_EQ(roofline_ns(1e6, 0, compute), 1000);
}

TEST(Hardening, AComputeTimeOrTimestampNearTheInt64LimitIsRefusedAtItsRecord) {
  RecordValidator v;
  AccessRecord r;
  r.bytes = 1;
  r.compute_ns = std::numeric_limits<Nanoseconds>::max();
  EXPECT_THAT(v.check(r), HasSubstr("more than 2^40 ns"));
  r.compute_ns = kMaxComputeNs;
  EXPECT_EQ(v.check(r), "");
  r.time_ns = std::numeric_limits<Nanoseconds>::max();
  EXPECT_THAT(v.check(r), HasSubstr("beyond ±2^62 ns"));
}

TEST(Hardening, AFineWeightGranularityIsRefusedBeforeTheCatalogIsBuilt) {
  // The new user's attack: llama-2-7b at 1 KiB weight blocks (13 M blocks)
  // ended in bad_alloc; --max-memory was checked only after the weights.
  test::TempDir dir;
  WorkloadContext context = tiny_model_context(dir, 1'000'000);
  const std::string e = test::error_of<InputError>(
      [&] { make_workload("serving", {{"model", "m.json"}, {"granularity", "1B"}, {"requests", "1"}}, context); });
  EXPECT_THAT(e, HasSubstr("granularity: 1 B splits the model's weights into"));
  EXPECT_THAT(e, HasSubstr("--max-memory"));
}

TEST(Hardening, ConceptNeighbourSearchAndClustersAreBoundedUpFront) {
  ConceptOptions o;
  o.concepts = 20000;
  o.embedding_dim = 4096;  // 1.6e12 multiply-adds: ~17 minutes
  EXPECT_THAT(test::error_of<InputError>([&] { ImageConcepts c(o, 1); }),
              HasSubstr("concepts^2 x embedding_dim = 20000^2 x 4096 = 1638400000000"));
  o.concepts = 64;
  o.clusters = 1000000;  // 1e6 centres of 4096 doubles: 32 GB
  EXPECT_THAT(test::error_of<InputError>([&] { ImageConcepts c(o, 1); }),
              HasSubstr("concept_clusters x embedding_dim = 1000000 x 4096 cluster-centre values, more than 16777216"));
}

TEST(Hardening, PerAccessLatenciesAndAllDurationsAreBounded) {
  // 1e18 ns latencies wrapped stall_ns negative with exit 0.
  EXPECT_THAT(test::error_of<InputError>(
                  [] { ParamValues::resolve("link", LinkSpec::param_specs(), {{"latency", "1e18ns"}}); }),
              HasSubstr("out of range [0, 1000000000] ns"));
  EXPECT_NO_THROW(ParamValues::resolve("link", LinkSpec::param_specs(), {{"latency", "1s"}}));
  // 1 B/s made one 4 GiB transfer 4.3e18 ns: stall_ns saturated, latencies wrong.
  EXPECT_THAT(test::error_of<InputError>(
                  [] { ParamValues::resolve("link", LinkSpec::param_specs(), {{"bandwidth", "1B/s"}}); }),
              HasSubstr("out of range [1000000, 1e+18] B/s"));  // with its unit (issue 30)
  const std::string text = "name: w\nworkload: {trace: builtin:llama-2048x22}\ncache: {capacity: 1GiB}\n"
                           "policies: [lru]\noutputs: {window: 1e18ns}\n";
  EXPECT_THAT(test::error_of<InputError>(
                  [&] { ScenarioDocument::from_text(text, "w.yaml", ".").resolve(SweepPoint{}); }),
              HasSubstr("out of range [0, 1099511627776] ns"));
}

TEST(Hardening, MarkovBlockStatesOverPiecesOfAGranularityArePrefetched) {
  // Pieces a trace without a catalog splits into were "not in the catalog";
  // a prefetched block's size is now its last recorded access's.
  test::TempDir dir;
  std::string csv = "time_ns,block_id,bytes\n";
  for (int i = 0; i < 40; ++i) csv += std::to_string(i) + "," + std::to_string(i % 3) + "," + (i % 3 ? "2000" : "1500") + "\n";
  test::write_file(dir / "t.csv", csv);
  const std::string text = "name: m\nworkload: {trace: t.csv}\ncache: {capacity: 50%, granularity: 1000B}\n"
                           "policies: [{impl: lru, prefetch: [{impl: markov, state: block, threshold: 0, refresh: 1}]}]\n";
  RunnerOptions o;
  o.jobs = 1;
  const auto r = run_scenario(ScenarioDocument::from_text(text, "m.yaml", dir.path()), o);
  EXPECT_GT(r.runs.at(0).result.metrics.total.prefetches, 0u);
}

TEST(Hardening, ASweepTooLargeForMemoryIsRefusedBeforeItIsExpanded) {
  std::string values = "[";
  for (int i = 0; i < 1000; ++i) values += (i ? ", " : "") + std::to_string(i + 1) + "MiB";
  values += "]";
  const std::string text = "name: s\nworkload: {trace: builtin:llama-2048x22}\ncache: {capacity: 1GiB}\npolicies: [lru]\n"
                           "sweep:\n  cache.capacity: " + values + "\n  seed: " + values + "\n";
  RunnerOptions o;
  o.max_memory_bytes = std::uint64_t{1} << 30;
  EXPECT_THAT(test::error_of<InputError>([&] { run_scenario(ScenarioDocument::from_text(text, "s.yaml", "."), o); }),
              HasSubstr("s.yaml: sweep: 1000000 points would hold about 45.78 GiB (48 KiB a point)"));
}

// --- messages ---

TEST(Hardening, ANulByteInACsvCellIsShownNotCutTheMessage) {
  test::TempDir dir;
  const std::string e = csv_error(dir, std::string("block_id,bytes\n1,12\0x\n", 23));
  // Named as not text (issue 29), the whole message past the NUL kept.
  EXPECT_THAT(e, HasSubstr(":2: a NUL byte at byte 4 of the line: not text (binary data, a damaged file, or UTF-16"));
}

TEST(Hardening, AScenarioThatIsALinkLoopIsNamedAsSuch) {
  test::TempDir dir;
  std::filesystem::create_symlink(dir / "s.yaml", dir / "s.yaml");
  EXPECT_THAT(test::error_of<InputError>([&] { ScenarioDocument::from_file(dir / "s.yaml"); }),
              HasSubstr("s.yaml: cannot open file: too many levels of symbolic links"));
}

TEST(Hardening, ProgressOffATerminalIsPlainLinesTheFirstAtOnceTheLastAlways) {
  std::ostringstream out;
  ProgressReporter p(&out, false, "resolving", 5, std::chrono::hours(1));
  for (int i = 1; i <= 5; ++i) p.done("point " + std::to_string(i));
  EXPECT_EQ(out.str(), "resolving [1/5] point 1\nresolving [5/5] point 5\n");
}

TEST(Hardening, ASignalRemovesTheResultsFoldersARunCreated) {
  // What the SIGINT/SIGTERM handler does (remove_live_temp_files), with the
  // folders nested: the innermost goes first whatever the order of slots.
  // OutputDir registers the folders it created outermost first, like this.
  test::TempDir dir;
  std::filesystem::create_directories(dir / "a/b/c");
  SignalCleanupGuard a(dir / "a"), b(dir / "a/b"), c(dir / "a/b/c");
  remove_live_temp_files();
  EXPECT_FALSE(std::filesystem::exists(dir / "a"));
}

#ifdef FLASHSIM_BINARY
TEST(Hardening, AFailedRunLeavesNoFoldersItCreated) {
  test::TempDir dir;
  test::write_file(dir / "t.csv", "time_ns,block_id,bytes\n0,1,4096\n259200000000000,2,4096\n");
  test::write_file(dir / "d.yaml", "name: d\nworkload: {trace: t.csv, issue: timestamp}\ncache: {capacity: 8KiB}\npolicies: [lru]\n");
  const test::Outcome o = test::run_flashsim(dir.path(), "run d.yaml --out new/results");
  EXPECT_EQ(o.code, 2) << o.err;  // bad input
  EXPECT_THAT(o.err, HasSubstr("outputs.window"));
  EXPECT_FALSE(std::filesystem::exists(dir / "new"));
}

TEST(Hardening, CommandLineValuesAreRefusedNamingTheirOption) {
  test::TempDir dir;
  test::Outcome o = test::run_flashsim(dir.path(), "workload generate llama-2-7b --out x.h5 --seed -5");
  EXPECT_EQ(o.code, 2);
  EXPECT_THAT(o.err, HasSubstr("--seed: Value -5 not in range 0 to 9223372036854775807"));
  const std::string trace = std::string(FLASHSIM_SOURCE_DIR) + "/validate/baselines/h200/programs/double_buffer_prefetch.h5";
  o = test::run_flashsim(dir.path(), "predict " + trace + " --capture-gap 5parsecs");
  EXPECT_EQ(o.code, 2) << o.err;
  EXPECT_THAT(o.err, HasSubstr("--capture-gap (measured, or a duration): "));
  o = test::run_flashsim(dir.path(), "predict " + trace + " --resident-first lots");
  EXPECT_EQ(o.code, 2) << o.err;
  EXPECT_THAT(o.err, HasSubstr("--static-placement: "));
  std::filesystem::create_directory(dir / "j");
  o = test::run_flashsim(dir.path(), "predict " + trace + " --json j");
  EXPECT_EQ(o.code, 2) << o.err;
  EXPECT_THAT(o.err, HasSubstr("--json j: is a folder, not a file"));
  EXPECT_EQ(o.out, "");  // refused before the prediction ran
  o = test::run_flashsim(dir.path(), "run --out ''");
  EXPECT_EQ(o.code, 2) << o.err;
  EXPECT_THAT(o.err, HasSubstr("--out: an empty path"));
}
#endif

}  // namespace
}  // namespace flashsim

namespace flashsim {
namespace {

TEST(ReadTextFile, ReadsEveryByteAcrossItsPiecesAndRefusesOneByteBeyondTheBound) {
  test::TempDir dir;
  // Sizes around the 64 KiB pieces it reads in, and exactly the 16 MiB bound.
  for (const std::size_t size : {std::size_t{0}, std::size_t{1}, std::size_t{65535}, std::size_t{65536},
                                 std::size_t{65537}, std::size_t{3 * 65536 + 7}, std::size_t{16u << 20}}) {
    std::string text(size, 'a');
    for (std::size_t i = 0; i < size; i += 4099) text[i] = static_cast<char>('b' + i % 23);
    test::write_file(dir / "f.yaml", text);
    EXPECT_EQ(read_text_file(dir / "f.yaml", "f.yaml"), text) << size;
  }
  test::write_file(dir / "big.yaml", std::string((16u << 20) + 1, 'x'));
  EXPECT_THROW(read_text_file(dir / "big.yaml", "big.yaml"), InputError);
}

}  // namespace
}  // namespace flashsim
