// Kineto importer, compute from recorded kernels (traces/importers/kineto.h,
// "Compute"): hand-worked compute_ns per access on a small trace, the
// compute: none option, and the recorded H200 trace checked against an
// independent sum of its kernel durations.
#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "tests/support/shared_data.h"
#include "tests/support/temp_dir.h"
#include "tests/traces/trace_test_util.h"
#include "traces/importers/kineto.h"
#include "traces/trace_formats.h"

namespace flashsim {
namespace {

using test::TempDir;

// Two passes of (embedding 1000 B, an input whose size changes, w 64 B,
// lm_head 1000 B, DtoH of the token). Times in µs. Kernel k3 starts while
// w's copy runs; k9 and k10 start at or after the last kept copy.
std::string compute_json() {
  return R"J({"traceEvents": [
{"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "ts": 10.0, "dur": 2.0, "args": {"stream": 7, "bytes": 1000}},
{"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "ts": 13.0, "dur": 1.0, "args": {"stream": 7, "bytes": 8}},
{"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "ts": 20.0, "dur": 1.0, "args": {"stream": 7, "bytes": 64}},
{"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "ts": 40.0, "dur": 2.0, "args": {"stream": 7, "bytes": 1000}},
{"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy DtoH (Device -> Pinned)", "ts": 50.0, "dur": 1.0, "args": {"stream": 7, "bytes": 4}},
{"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "ts": 60.0, "dur": 2.0, "args": {"stream": 7, "bytes": 1000}},
{"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "ts": 63.0, "dur": 1.0, "args": {"stream": 7, "bytes": 4}},
{"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "ts": 70.0, "dur": 1.0, "args": {"stream": 7, "bytes": 64}},
{"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "ts": 90.0, "dur": 2.0, "args": {"stream": 7, "bytes": 1000}},
{"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy DtoH (Device -> Pinned)", "ts": 100.0, "dur": 1.0, "args": {"stream": 7, "bytes": 4}},
{"ph": "X", "cat": "kernel", "name": "k10", "ts": 95.0, "dur": 2.0, "args": {"stream": 7}},
{"ph": "X", "cat": "kernel", "name": "k0", "ts": 5.0, "dur": 1.5, "args": {"stream": 7}},
{"ph": "X", "cat": "kernel", "name": "k1", "ts": 12.0, "dur": 0.25, "args": {"stream": 7}},
{"ph": "X", "cat": "kernel", "name": "k2", "ts": 14.5, "dur": 1.125, "args": {"stream": 7}},
{"ph": "X", "cat": "kernel", "name": "k3", "ts": 20.5, "dur": 3.0, "args": {"stream": 7}},
{"ph": "X", "cat": "kernel", "name": "k4", "ts": 21.0, "dur": 2.001, "args": {"stream": 7}},
{"ph": "X", "cat": "kernel", "name": "k5", "ts": 42.0, "dur": 4.0, "args": {"stream": 7}},
{"ph": "X", "cat": "kernel", "name": "k6", "ts": 51.0, "dur": 0.5, "args": {"stream": 7}},
{"ph": "X", "cat": "kernel", "name": "k7", "ts": 62.5, "dur": 1.0, "args": {"stream": 7}},
{"ph": "X", "cat": "kernel", "name": "k8", "ts": 71, "dur": 7, "args": {"stream": 7}},
{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "ts": 72.0, "dur": 50.0, "args": {}},
{"ph": "X", "cat": "kernel", "name": "k9", "ts": 90.0, "dur": 1.0, "args": {"stream": 7}}
]})J";
}

TEST(KinetoCompute, KernelsAfterEachCopyBecomeItsCompute) {
  TempDir dir;
  test::write_text_file(dir / "c.json", compute_json());
  KinetoTraceSource src(dir / "c.json");  // compute: kernels is the default
  const auto records = test::read_all(src);
  ASSERT_EQ(records.size(), 6u);  // (embedding, w, lm_head) × 2 passes; inputs dropped
  // rec0: k1 (starts at the copy's end) + k2 (after the dropped input copy).
  // rec1: k4 only (k3 starts during the copy). rec2: k5 + k6 (across the DtoH).
  // rec3: k7. rec4: k8 (integer ts/dur). rec5: last kept copy, nothing bounds it.
  const std::vector<Nanoseconds> expected = {250 + 1125, 2001, 4000 + 500, 1000, 7000, 0};
  for (std::size_t i = 0; i < records.size(); ++i) EXPECT_EQ(records[i].compute_ns, expected[i]) << i;
  EXPECT_EQ(records[1].time_ns, 10'000);  // time unaffected

  const KinetoImportReport& r = src.report();
  EXPECT_EQ(r.kernels, 11u);
  EXPECT_EQ(r.kernel_ns_total, 23'376);
  EXPECT_EQ(r.kernels_attributed, 7u);
  EXPECT_EQ(r.kernel_ns_attributed, 15'876);
  EXPECT_EQ(r.kernels_before_first, 1u);
  EXPECT_EQ(r.kernel_ns_before_first, 1'500);
  EXPECT_EQ(r.kernels_during_copy, 1u);
  EXPECT_EQ(r.kernel_ns_during_copy, 3'000);
  EXPECT_EQ(r.kernels_after_last, 2u);
  EXPECT_EQ(r.kernel_ns_after_last, 3'000);
  EXPECT_EQ(r.kernel_ns_before_first + r.kernel_ns_attributed + r.kernel_ns_during_copy + r.kernel_ns_after_last,
            r.kernel_ns_total);
  EXPECT_NE(src.meta().source.find("11 kernels, 23376 ns, 15876 ns attributed"), std::string::npos)
      << src.meta().source;
}

TEST(KinetoCompute, NoneLeavesComputeZeroButCountsKernels) {
  TempDir dir;
  test::write_text_file(dir / "c.json", compute_json());
  auto src = open_trace(dir / "c.json", "kineto", {{"compute", "none"}});
  for (const AccessRecord& r : test::read_all(*src)) EXPECT_EQ(r.compute_ns, 0);
  const auto* k = dynamic_cast<const KinetoTraceSource*>(src.get());
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->report().kernels, 11u);
  EXPECT_EQ(k->report().kernel_ns_total, 23'376);
  EXPECT_EQ(k->report().kernel_ns_attributed, 0);
  EXPECT_THROW(open_trace(dir / "c.json", "kineto", {{"compute", "gpu"}}), Error);
}

TEST(KinetoCompute, KernelWithoutDurationIsAnError) {
  TempDir dir;
  test::write_text_file(dir / "k.json", R"J({"traceEvents": [
{"cat": "gpu_memcpy", "name": "Memcpy HtoD", "ts": 1, "dur": 1, "args": {"bytes": 8}},
{"cat": "kernel", "name": "gemv", "ts": 3}]})J");
  EXPECT_INPUT_ERROR(KinetoTraceSource{dir / "k.json"}, "k.json", "kernel event 1 ('gemv') lacks dur");
}

std::string read_gzip(const std::filesystem::path& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  std::string text;
  char buf[1 << 16];
  int n = 0;
  while (f != nullptr && (n = gzread(f, buf, sizeof buf)) > 0) text.append(buf, static_cast<std::size_t>(n));
  if (f != nullptr) gzclose(f);
  return text;
}

TEST(KinetoCompute, RecordedH200TraceAttributesTheKernelsBetweenFirstAndLastCopy) {
  FLASHSIM_REQUIRE_SHARED(trace, "traces/torch-offload-h200/llama-2048x22.trace.json.gz");
  FLASHSIM_REQUIRE_SHARED(summary_path, "traces/torch-offload-h200/llama-2048x22.summary.json");
  std::ifstream summary_in(summary_path);
  const auto summary = nlohmann::json::parse(summary_in);
  auto source = open_trace(trace);
  const auto* k = dynamic_cast<const KinetoTraceSource*>(source.get());
  ASSERT_NE(k, nullptr);
  const KinetoImportReport& r = k->report();
  const auto records = test::read_all(*source);
  ASSERT_EQ(records.size(), 1608u);

  // Independent side: a DOM parse in doubles (µs). First weight copy = the
  // first HtoD copy (the embedding); the last one = origin + last record time.
  const auto doc = nlohmann::json::parse(read_gzip(trace));
  double first_htod_us = 1e300, kernel_us = 0;
  std::vector<std::pair<double, double>> kernels;
  for (const auto& e : doc["traceEvents"]) {
    const std::string cat = e.value("cat", "");
    if (cat == "gpu_memcpy" && e["name"].get<std::string>().find("HtoD") != std::string::npos) {
      first_htod_us = std::min(first_htod_us, e["ts"].get<double>());
    } else if (cat == "kernel") {
      kernels.emplace_back(e["ts"].get<double>(), e["dur"].get<double>());
      kernel_us += e["dur"].get<double>();
    }
  }
  const double last_copy_us = first_htod_us + static_cast<double>(records.back().time_ns) / 1e3;
  double between_us = 0;
  std::uint64_t between = 0;
  for (const auto& [ts, dur] : kernels) {
    if (ts >= first_htod_us && ts < last_copy_us - 1e-4) {
      between_us += dur;
      ++between;
    }
  }
  EXPECT_EQ(r.kernels, kernels.size());
  EXPECT_EQ(r.kernels_during_copy, 0u);  // one stream: kernels never overlap a copy
  EXPECT_EQ(r.kernels_attributed, between);
  // Within 1 µs of rounding per kernel (the importer is exact to the ns).
  EXPECT_NEAR(static_cast<double>(r.kernel_ns_attributed) / 1e3, between_us, 1.0 * double(between));
  EXPECT_NEAR(static_cast<double>(r.kernel_ns_attributed), between_us * 1e3, 1.0);  // in fact exact
  EXPECT_NEAR(static_cast<double>(r.kernel_ns_total), kernel_us * 1e3, 1.0);
  // The recording's summary: kernel_busy_ms is the sum of all kernel durations.
  EXPECT_NEAR(static_cast<double>(r.kernel_ns_total) / 1e6, summary["kernel_busy_ms"].get<double>(), 1e-3);
  Nanoseconds summed = 0;
  for (const AccessRecord& a : records) summed += a.compute_ns;
  EXPECT_EQ(summed, r.kernel_ns_attributed);
  std::cout << "kernels " << r.kernels << " total_ns " << r.kernel_ns_total << " attributed " << r.kernels_attributed
            << " / " << r.kernel_ns_attributed << " ns; before_first " << r.kernels_before_first << " / "
            << r.kernel_ns_before_first << " ns; after_last " << r.kernels_after_last << " / "
            << r.kernel_ns_after_last << " ns; summary kernel_busy_ms " << summary["kernel_busy_ms"].get<double>()
            << "\n";
}

}  // namespace
}  // namespace flashsim
