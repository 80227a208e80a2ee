// Kineto (PyTorch profiler) importer: pass delimiting, weights vs. inputs,
// exact time, catalog layers, errors; and the facts of the recorded H200 trace.
#include <zlib.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

#include "sim/core/errors.h"
#include "tests/support/shared_data.h"
#include "tests/support/temp_dir.h"
#include "tests/traces/trace_test_util.h"
#include "traces/hdf5_trace.h"
#include "traces/importers/kineto.h"
#include "traces/trace_formats.h"

namespace flashsim {
namespace {

using test::TempDir;

struct Copy {
  char dir;  // 'H' host-to-device, 'D' device-to-host, 'P' peer
  ByteCount bytes;
};

// One pass: embedding, two inputs (sizes vary by pass), a DtoH sync, two
// "layers" of (norm 16, 64, 64), the LM head, and the logits read back.
std::vector<Copy> pass(int k) {
  return {{'H', 1000}, {'H', ByteCount(k == 0 ? 8 : 2)}, {'H', ByteCount(3 + k)}, {'D', 1}, {'H', 16}, {'H', 64},
          {'H', 64},   {'H', 16},                        {'H', 64},               {'H', 64}, {'H', 1000}, {'D', 4}};
}

// ts of copy i: 1000.5 µs + i × 10.25 µs, written with 3 decimals.
std::string ts_text(std::size_t i) {
  char buf[64];
  const long long ns = 1000500 + static_cast<long long>(i) * 10250;
  std::snprintf(buf, sizeof(buf), "%lld.%03lld", ns / 1000, ns % 1000);
  return buf;
}

std::string kineto_json(const std::vector<Copy>& copies) {
  std::string events;
  // Events written in reverse time order, with unrelated events between them:
  // the importer must sort by ts and ignore the rest.
  for (std::size_t n = copies.size(); n-- > 0;) {
    const Copy& c = copies[n];
    const char* name = c.dir == 'H' ? "Memcpy HtoD (Pageable -> Device)"
                       : c.dir == 'D' ? "Memcpy DtoH (Device -> Pinned)"
                                      : "Memcpy PtoP (Device -> Device)";
    if (!events.empty()) events += ",\n";
    events += R"J({"ph": "X", "cat": "gpu_memcpy", "name": ")J";
    events += name;
    events += R"J(", "pid": 0, "tid": 7, "ts": )J" + ts_text(n);
    events += R"J(, "dur": 1.5, "args": {"External id": 5, "device": 0, "stream": 7, "bytes": )J";
    events += std::to_string(c.bytes);
    events += R"J(, "memory bandwidth (GB/s)": 1.5, "nested": {"bytes": 99}}})J";
    events += R"J(,
{"ph": "X", "cat": "cpu_op", "name": "aten::copy_", "ts": 5.5, "dur": 2, "args": {"bytes": 12345}})J";
  }
  return R"J({"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "H200"}], "traceEvents": [
)J" + events + R"J(
], "traceName": "x"})J";
}

std::vector<Copy> passes(int n) {
  std::vector<Copy> all;
  for (int k = 0; k < n; ++k) {
    const auto p = pass(k);
    all.insert(all.end(), p.begin(), p.end());
  }
  return all;
}

TEST(Kineto, SeparatesWeightsFromInputsAndFindsLayers) {
  TempDir dir;
  const auto copies = passes(3);
  test::write_text_file(dir / "t.json", kineto_json(copies));
  KinetoTraceSource src(dir / "t.json");
  const KinetoImportReport& r = src.report();
  EXPECT_EQ(r.memcpy_events, 36u);
  EXPECT_EQ(r.htod_copies, 30u);
  EXPECT_EQ(r.htod_bytes, 3u * (2000 + 2 * (16 + 128)) + 8 + 3 + 2 + 4 + 2 + 5);
  EXPECT_EQ(r.dtoh_copies, 6u);
  EXPECT_EQ(r.dtoh_bytes, 15u);
  EXPECT_EQ(r.passes, 3u);
  EXPECT_EQ(r.weight_blocks, 8u);
  EXPECT_EQ(r.weight_accesses, 24u);
  EXPECT_EQ(r.weight_bytes, 3u * (2000 + 2 * (16 + 128)));
  EXPECT_EQ(r.input_copies, 6u);
  EXPECT_EQ(r.input_bytes, 8u + 3 + 2 + 4 + 2 + 5);
  EXPECT_EQ(r.layers, 2u);
  EXPECT_EQ(r.weights_per_layer, 3u);

  const auto records = test::read_all(src);
  ASSERT_EQ(records.size(), 24u);
  for (std::size_t i = 0; i < records.size(); ++i) {
    EXPECT_EQ(records[i].block_id, i % 8) << i;
    EXPECT_EQ(records[i].token_index, static_cast<std::int32_t>(i / 8)) << i;
    EXPECT_EQ(records[i].phase, i < 8 ? Phase::prefill : Phase::decode) << i;
    EXPECT_EQ(records[i].stream_id, 7u);
    EXPECT_EQ(records[i].op, AccessOp::read);
  }
  // Time: ns from the first weight copy, exact. Record 1 is copy 4 of the file.
  EXPECT_EQ(records[0].time_ns, 0);
  EXPECT_EQ(records[1].time_ns, 4 * 10250);
  EXPECT_EQ(records[8].time_ns, 12 * 10250);  // pass 1 starts at copy 12
  EXPECT_EQ(records[1].bytes, 16u);

  const auto& cat = src.meta().catalog;
  ASSERT_EQ(cat.size(), 8u);
  const std::vector<std::string> names = {"embedding", "layers.0.0", "layers.0.1", "layers.0.2",
                                          "layers.1.0", "layers.1.1", "layers.1.2", "lm_head"};
  const std::vector<std::int32_t> layers = {-1, 0, 0, 0, 1, 1, 1, -1};
  for (std::size_t b = 0; b < 8; ++b) {
    EXPECT_EQ(cat[b].id, b);
    EXPECT_EQ(cat[b].name, names[b]);
    EXPECT_EQ(cat[b].layer, layers[b]);
  }
  EXPECT_EQ(cat[0].kind, "embedding");
  EXPECT_EQ(cat[7].kind, "lm_head");
  EXPECT_EQ(cat[4].kind, "weight");
  EXPECT_EQ(cat[4].bytes, 16u);
  EXPECT_NE(src.meta().source.find("dropped 6 input HtoD copies (24 B), 6 DtoH copies (15 B)"), std::string::npos)
      << src.meta().source;
}

TEST(Kineto, ReadsGzipAndRoundTripsThroughHdf5) {
  TempDir dir;
  const std::string text = kineto_json(passes(2));
  gzFile f = gzopen((dir / "t.json.gz").c_str(), "wb");
  ASSERT_NE(f, nullptr);
  gzwrite(f, text.data(), static_cast<unsigned>(text.size()));
  gzclose(f);
  test::write_text_file(dir / "plain.json", text);
  auto gz = open_trace(dir / "t.json.gz");
  auto plain = open_trace(dir / "plain.json");
  const auto a = test::read_all(*gz);
  test::expect_same_records(test::read_all(*plain), a);
  EXPECT_EQ(a.size(), 16u);
  {
    auto sink = create_trace_sink(dir / "t.h5", gz->meta());
    copy_trace(*gz, *sink);
  }
  Hdf5TraceSource h(dir / "t.h5");
  test::expect_same_records(a, test::read_all(h));
  ASSERT_EQ(h.meta().catalog.size(), 8u);
  EXPECT_EQ(h.meta().catalog[3].name, "layers.0.2");
}

TEST(Kineto, TrailingPartialPeriodIsFinalWeights) {
  // Layers of (16, 64) ×3 then a final 16: "final.0" outside any layer.
  TempDir dir;
  std::vector<Copy> all;
  for (int k = 0; k < 2; ++k) {
    for (Copy c : std::vector<Copy>{{'H', 500}, {'H', 16}, {'H', 64}, {'H', 16}, {'H', 64}, {'H', 16}, {'H', 64},
                                    {'H', 16}, {'H', 500}, {'D', 4}}) {
      all.push_back(c);
    }
  }
  test::write_text_file(dir / "f.json", kineto_json(all));
  KinetoTraceSource src(dir / "f.json");
  EXPECT_EQ(src.report().layers, 3u);
  EXPECT_EQ(src.report().weights_per_layer, 2u);
  ASSERT_EQ(src.meta().catalog.size(), 9u);
  EXPECT_EQ(src.meta().catalog[7].name, "final.0");
  EXPECT_EQ(src.meta().catalog[7].layer, -1);
  EXPECT_EQ(src.meta().catalog[6].name, "layers.2.1");
}

TEST(Kineto, SinglePassUsesIoThreshold) {
  TempDir dir;
  test::write_text_file(dir / "one.json", kineto_json(pass(0)));
  KinetoTraceSource all_weights(dir / "one.json");
  EXPECT_EQ(all_weights.report().weight_accesses, 10u);  // inputs cannot be told apart in one pass
  auto thresholded = open_trace(dir / "one.json", "kineto", {{"io_max_bytes", "16"}});
  EXPECT_EQ(test::read_all(*thresholded).size(), 8u);  // the 8 B and 3 B inputs are dropped
}

TEST(Kineto, PassesOfDifferentLengthAreAnError) {
  TempDir dir;
  auto copies = passes(3);
  copies.insert(copies.begin() + 12 + 5, Copy{'H', 64});  // an extra copy in pass 1
  test::write_text_file(dir / "x.json", kineto_json(copies));
  EXPECT_INPUT_ERROR(KinetoTraceSource{dir / "x.json"}, "x.json", "forward pass 1 has 11 host-to-device copies",
                     "pass 0 has 10", "cannot identify weights");
}

TEST(Kineto, WeightSizedCopyThatChangesSizeIsAnError) {
  TempDir dir;
  auto copies = passes(2);
  copies[12 + 5].bytes = 32;  // a "weight" of pass 1 differs from pass 0 (64)
  test::write_text_file(dir / "x.json", kineto_json(copies));
  EXPECT_INPUT_ERROR(KinetoTraceSource{dir / "x.json"}, "copy 4 of forward pass 0 (64 B) changes size",
                     "refusing to guess");
}

TEST(Kineto, BadInputs) {
  TempDir dir;
  test::write_text_file(dir / "broken.json", R"J({"traceEvents": [{"ph": "X", "ts": 1.5,}]})J");
  EXPECT_INPUT_ERROR(KinetoTraceSource{dir / "broken.json"}, "broken.json", "JSON parse error at byte");
  test::write_text_file(dir / "none.json", R"J({"traceEvents": [{"cat": "kernel", "ts": 1, "dur": 2}]})J");
  EXPECT_INPUT_ERROR(KinetoTraceSource{dir / "none.json"}, "no host-to-device");
  test::write_text_file(dir / "other.json", R"J({"events": []})J");
  EXPECT_INPUT_ERROR(KinetoTraceSource{dir / "other.json"}, "no traceEvents array");
  test::write_text_file(dir / "nobytes.json",
                        R"J({"traceEvents": [{"cat": "gpu_memcpy", "name": "Memcpy HtoD", "ts": 1}]})J");
  EXPECT_INPUT_ERROR(KinetoTraceSource{dir / "nobytes.json"}, "lacks args.bytes");
  // Present but not a non-negative number: said so, not "lacks".
  test::write_text_file(dir / "negbytes.json",
                        R"J({"traceEvents": [{"cat": "gpu_memcpy", "name": "Memcpy HtoD", "ts": 1, "args": {"bytes": -1}}]})J");
  EXPECT_INPUT_ERROR(KinetoTraceSource{dir / "negbytes.json"},
                     "gpu_memcpy event 0 ('Memcpy HtoD') has args.bytes -1, not a non-negative number of bytes");
  test::write_text_file(dir / "textts.json",
                        R"J({"traceEvents": [{"cat": "gpu_memcpy", "name": "Memcpy HtoD", "ts": "a\u0000b", "args": {"bytes": 8}}]})J");
  EXPECT_INPUT_ERROR(KinetoTraceSource{dir / "textts.json"},
                     "has ts \"a\\x00b\" (text), not a non-negative number of microseconds");
  // A 100,000-digit number is cut in the message, not echoed.
  test::write_text_file(dir / "longts.json", "{\"traceEvents\": [{\"ts\": 1" + std::string(100000, '9') + "x}]}");
  try {
    KinetoTraceSource source{dir / "longts.json"};
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_LT(std::string(e.what()).size(), 600u) << e.what();
    EXPECT_NE(std::string(e.what()).find("(100001 bytes)"), std::string::npos) << e.what();
  }
}

TEST(Kineto, AGzipBombIsReadAsAStreamAndFailsAtItsFirstByte) {
  // 256 MiB of zeros in 256 KiB of gzip: the old reader inflated all of it
  // before parsing; the stream fails at byte 1 without holding it.
  TempDir dir;
  const std::filesystem::path path = dir / "bomb.json.gz";
  gzFile f = gzopen(path.c_str(), "wb9");
  ASSERT_NE(f, nullptr);
  const std::string zeros(1 << 20, '\0');
  for (int i = 0; i < 256; ++i) ASSERT_EQ(gzwrite(f, zeros.data(), static_cast<unsigned>(zeros.size())), 1 << 20);
  gzclose(f);
  EXPECT_LT(std::filesystem::file_size(path), 1u << 20);
  EXPECT_INPUT_ERROR(KinetoTraceSource{path}, "bomb.json.gz: JSON parse error at byte 1");
}

// --- the recorded H200 trace (../shared/traces/torch-offload-h200) ---

TEST(Kineto, RecordedH200TraceFacts) {
  FLASHSIM_REQUIRE_SHARED(trace, "traces/torch-offload-h200/llama-2048x22.trace.json.gz");
  FLASHSIM_REQUIRE_SHARED(summary_path, "traces/torch-offload-h200/llama-2048x22.summary.json");
  std::ifstream summary_in(summary_path);
  const auto summary = nlohmann::json::parse(summary_in);

  auto source = open_trace(trace);
  const auto* k = dynamic_cast<const KinetoTraceSource*>(source.get());
  ASSERT_NE(k, nullptr);
  const KinetoImportReport& r = k->report();
  // Independent facts: the issue and the summary written at recording time.
  EXPECT_EQ(r.htod_copies, 1632u);
  EXPECT_EQ(r.htod_bytes, 17'600'775'052u);
  EXPECT_EQ(r.htod_copies, summary["n_h2d"].get<std::uint64_t>());
  EXPECT_EQ(r.htod_bytes, summary["h2d_bytes"].get<std::uint64_t>());
  EXPECT_EQ(r.memcpy_events, summary["n_memcpy"].get<std::uint64_t>());
  const std::uint64_t tokens = summary["new_tokens"].get<std::uint64_t>();
  EXPECT_EQ(r.passes, tokens);  // one forward pass per generated token
  // Weights: per pass the model's bf16 bytes, once each (embedding, 22 × 9
  // layer weights, final norm, LM head = 201 tensors).
  EXPECT_EQ(r.weight_blocks, 201u);
  EXPECT_EQ(r.weight_accesses, 1608u);
  EXPECT_EQ(r.weight_bytes, 17'600'774'144u);
  EXPECT_EQ(r.weight_bytes, tokens * summary["bytes_bf16"].get<std::uint64_t>());
  // Inputs (token ids, mask, positions): 3 per pass, 908 B; DtoH: 2 per pass.
  EXPECT_EQ(r.input_copies, 24u);
  EXPECT_EQ(r.input_bytes, 908u);
  EXPECT_EQ(r.dtoh_copies, 16u);
  EXPECT_EQ(r.weight_accesses + r.input_copies, r.htod_copies);
  EXPECT_EQ(r.layers, 22u);
  EXPECT_EQ(r.weights_per_layer, 9u);

  const auto& cat = k->meta().catalog;
  ASSERT_EQ(cat.size(), 201u);
  EXPECT_EQ(cat[0].bytes, 131'072'000u);
  EXPECT_EQ(cat[200].bytes, 131'072'000u);
  EXPECT_EQ(cat[200].kind, "lm_head");
  EXPECT_EQ(cat[199].bytes, 4096u);  // final norm
  EXPECT_EQ(cat[199].layer, -1);
  // Per layer: norm, q, k, v, o, norm, gate, up, down.
  const std::vector<ByteCount> layer = {4096, 8'388'608, 1'048'576, 1'048'576, 8'388'608,
                                        4096, 23'068'672, 23'068'672, 23'068'672};
  for (std::size_t L = 0; L < 22; ++L) {
    for (std::size_t j = 0; j < 9; ++j) {
      const auto& e = cat[1 + 9 * L + j];
      ASSERT_EQ(e.bytes, layer[j]) << e.name;
      ASSERT_EQ(e.layer, static_cast<std::int32_t>(L)) << e.name;
    }
  }
  const auto records = test::read_all(*source);
  ASSERT_EQ(records.size(), 1608u);
  EXPECT_EQ(records[0].time_ns, 0);
  for (std::size_t i = 1; i < records.size(); ++i) ASSERT_GE(records[i].time_ns, records[i - 1].time_ns);
  // The last copy starts within the recorded wall time.
  EXPECT_LT(records.back().time_ns, static_cast<Nanoseconds>(summary["wall_ms"].get<double>() * 1e6));
}

}  // namespace
}  // namespace flashsim
