#include "hw/calibrate/calibrate.h"

#include <sys/mman.h>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <numeric>
#include <random>
#include <sstream>

#include "hw/cuda_check.h"
#include "kernels/calibrate_kernels.h"
#include "kernels/replay_kernels.h"
#include "sim/core/errors.h"

namespace flashsim::hw {

Measured Measured::of(std::vector<double> samples) {
  Measured m;
  m.samples = samples;
  if (samples.empty()) return m;
  std::sort(samples.begin(), samples.end());
  const std::size_t n = samples.size();
  m.median = n % 2 ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
  m.min = samples.front();
  m.max = samples.back();
  return m;
}

const std::vector<std::string>& calibration_groups() {
  static const std::vector<std::string> groups = {"copies", "concurrent", "execution", "hbm", "chase", "tlb", "contention"};
  return groups;
}

std::vector<std::string> parse_calibration_groups(const std::string& list) {
  std::vector<std::string> out;
  std::string cur;
  auto take = [&] {
    const auto b = cur.find_first_not_of(" \t"), e = cur.find_last_not_of(" \t");
    const std::string g = b == std::string::npos ? std::string() : cur.substr(b, e - b + 1);
    cur.clear();
    if (g.empty()) return;
    const auto& all = calibration_groups();
    if (std::find(all.begin(), all.end(), g) == all.end()) {
      std::string known;
      for (const std::string& a : all) known += (known.empty() ? "" : ",") + a;
      throw InputError("--only: unknown benchmark group '" + g + "' (expected a comma-separated list of " + known + ")");
    }
    if (std::find(out.begin(), out.end(), g) != out.end()) throw InputError("--only: group '" + g + "' given twice");
    out.push_back(g);
  };
  for (const char c : list) {
    if (c == ',') take();
    else cur += c;
  }
  take();
  if (out.empty()) throw InputError("--only: expected at least one benchmark group");
  return out;
}

bool CalibrationReport::ran(const std::string& group) const {
  return std::find(skipped_groups.begin(), skipped_groups.end(), group) == skipped_groups.end();
}

LinkFit fit_link(const std::vector<std::pair<double, double>>& pts) {
  LinkFit f;
  if (pts.size() < 2) return f;
  double a11 = 0, a12 = 0, a22 = 0, b1 = 0, b2 = 0;
  for (const auto& [bytes, t] : pts) {
    const double x1 = 1.0 / t, x2 = bytes / t;
    a11 += x1 * x1;
    a12 += x1 * x2;
    a22 += x2 * x2;
    b1 += x1;
    b2 += x2;
  }
  const double det = a11 * a22 - a12 * a12;
  if (det == 0) return f;
  const double latency_s = (b1 * a22 - b2 * a12) / det;
  const double inv_bw = (a11 * b2 - a12 * b1) / det;
  f.latency_ns = latency_s * 1e9;
  f.bandwidth_bytes_per_s = inv_bw > 0 ? 1.0 / inv_bw : 0.0;
  for (const auto& [bytes, t] : pts) {
    const double fit = latency_s + bytes * inv_bw;
    f.max_abs_residual = std::max(f.max_abs_residual, std::abs(fit - t) / t);
  }
  return f;
}

namespace {

double median_of(std::vector<double> v) { return Measured::of(std::move(v)).median; }

struct DeviceBuffer {
  void* p = nullptr;
  explicit DeviceBuffer(std::size_t bytes) { FLASHSIM_CUDA_CHECK(cudaMalloc(&p, bytes)); }
  ~DeviceBuffer() {
    if (p) (void)cudaFree(p);
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  template <class T>
  T* as() const {
    return static_cast<T*>(p);
  }
};

struct HostBuffer {
  void* p = nullptr;
  bool pinned;
  HostBuffer(std::size_t bytes, bool pin) : pinned(pin) {
    if (pin) {
      FLASHSIM_CUDA_CHECK(cudaHostAlloc(&p, bytes, cudaHostAllocDefault));
    } else {
      p = std::aligned_alloc(4096, (bytes + 4095) / 4096 * 4096);
      if (!p) throw Error("calibrate: cannot allocate host memory");
    }
    std::memset(p, 0x5a, bytes);  // touch every page (pageable: fault them in now)
  }
  ~HostBuffer() {
    if (pinned) (void)cudaFreeHost(p);
    else std::free(p);
  }
  HostBuffer(const HostBuffer&) = delete;
  HostBuffer& operator=(const HostBuffer&) = delete;
};

/// Anonymous pages never touched: what a new tensor's storage is before
/// its first write (large allocations are fresh mmaps in glibc).
struct FreshHostMapping {
  void* p = nullptr;
  std::size_t bytes;
  explicit FreshHostMapping(std::size_t n) : bytes(n) {
    p = ::mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw Error("calibrate: cannot map " + std::to_string(n) + " B of host memory");
  }
  ~FreshHostMapping() { ::munmap(p, bytes); }
  FreshHostMapping(const FreshHostMapping&) = delete;
  FreshHostMapping& operator=(const FreshHostMapping&) = delete;
};

struct Events {
  cudaEvent_t a = nullptr, b = nullptr;
  Events() {
    FLASHSIM_CUDA_CHECK(cudaEventCreate(&a));
    FLASHSIM_CUDA_CHECK(cudaEventCreate(&b));
  }
  ~Events() {
    (void)cudaEventDestroy(a);
    (void)cudaEventDestroy(b);
  }
  double ms() const {
    float v = 0;
    FLASHSIM_CUDA_CHECK(cudaEventElapsedTime(&v, a, b));
    return v;
  }
};

/// One copy of `bytes` timed alone with events, `iterations` times: median µs.
double time_copy_us(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind, cudaStream_t s, int iterations) {
  Events ev;
  std::vector<double> t;
  FLASHSIM_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, kind, s));  // warm-up
  FLASHSIM_CUDA_CHECK(cudaStreamSynchronize(s));
  for (int k = 0; k < iterations; ++k) {
    FLASHSIM_CUDA_CHECK(cudaEventRecord(ev.a, s));
    FLASHSIM_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, kind, s));
    FLASHSIM_CUDA_CHECK(cudaEventRecord(ev.b, s));
    FLASHSIM_CUDA_CHECK(cudaEventSynchronize(ev.b));
    t.push_back(ev.ms() * 1e3);
  }
  return median_of(t);
}

/// Random cyclic chain of `nodes` nodes at `stride` bytes (shuffled order)
/// in `base`; offsets optionally jittered by `line_jitter` lines of 128 B.
void build_chain(void* base, std::uint64_t nodes, std::uint64_t stride, std::uint64_t line_jitter, std::uint64_t seed,
                 cudaStream_t s) {
  std::vector<std::uint64_t> order(nodes);
  std::iota(order.begin(), order.end(), 0);
  std::mt19937_64 rng(seed);
  std::shuffle(order.begin(), order.end(), rng);
  std::vector<std::uint64_t> offsets(nodes);
  for (std::uint64_t k = 0; k < nodes; ++k) {
    const std::uint64_t jitter = line_jitter ? (order[k] * 40503ull % line_jitter) * 128 : 0;
    offsets[k] = order[k] * stride + jitter;
  }
  DeviceBuffer d(nodes * sizeof(std::uint64_t));
  // On `s` itself: a cudaMemcpy from pageable memory may return before its
  // DMA has landed, and `s` (non-blocking) would not wait for it.
  FLASHSIM_CUDA_CHECK(cudaMemcpyAsync(d.p, offsets.data(), nodes * sizeof(std::uint64_t), cudaMemcpyHostToDevice, s));
  FLASHSIM_CUDA_CHECK(kernels::launch_build_chain(base, d.as<std::uint64_t>(), nodes, s));
  FLASHSIM_CUDA_CHECK(cudaStreamSynchronize(s));
}

/// Chases `steps` loads after `warm`; returns {ns per load, cycles per
/// load}; `*end` (if given) receives the node where the walk stopped.
std::pair<double, double> chase(const void* start, std::uint64_t warm, std::uint64_t steps, unsigned long long* out,
                                cudaStream_t s, const void** end = nullptr) {
  FLASHSIM_CUDA_CHECK(kernels::launch_chase(start, warm, steps, out, s));
  unsigned long long h[3] = {0, 0, 0};
  FLASHSIM_CUDA_CHECK(cudaMemcpyAsync(h, out, sizeof(h), cudaMemcpyDeviceToHost, s));
  FLASHSIM_CUDA_CHECK(cudaStreamSynchronize(s));
  if (end) *end = reinterpret_cast<const void*>(h[2]);
  return {static_cast<double>(h[1]) / static_cast<double>(steps), static_cast<double>(h[0]) / static_cast<double>(steps)};
}

double elapsed_ns(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return static_cast<double>(std::chrono::duration_cast<std::chrono::nanoseconds>(b - a).count());
}

/// Host cost of `call` (a CUDA API call returning its status, named `what`
/// in errors): per repeat, `iterations` timed loops of `calls` calls with
/// nothing else in the loop; the stream is drained and the device
/// synchronised after each loop, outside the timing (the drain is kept).
template <class Call>
ApiCost time_api(const char* what, unsigned calls, int repeats, int iterations, cudaStream_t st, Call&& call) {
  ApiCost c;
  c.calls = calls;
  auto drain = [&] {
    FLASHSIM_CUDA_CHECK(cudaStreamSynchronize(st));
    FLASHSIM_CUDA_CHECK(cudaDeviceSynchronize());
  };
  for (unsigned i = 0; i < std::min(calls, 64u); ++i) cuda_check(call(), what, __FILE__, __LINE__);  // warm-up
  drain();
  std::vector<double> per_call, per_drain;
  for (int k = 0; k < repeats; ++k) {
    std::vector<double> it, dr;
    for (int j = 0; j < iterations; ++j) {
      const auto t0 = std::chrono::steady_clock::now();
      for (unsigned i = 0; i < calls; ++i) cuda_check(call(), what, __FILE__, __LINE__);
      const auto t1 = std::chrono::steady_clock::now();
      FLASHSIM_CUDA_CHECK(cudaStreamSynchronize(st));
      const auto t2 = std::chrono::steady_clock::now();
      FLASHSIM_CUDA_CHECK(cudaDeviceSynchronize());
      it.push_back(elapsed_ns(t0, t1) / calls);
      dr.push_back(elapsed_ns(t1, t2) / 1e3);
    }
    per_call.push_back(median_of(it));
    per_drain.push_back(median_of(dr));
  }
  c.ns = Measured::of(per_call);
  c.drain_us = Measured::of(per_drain);
  return c;
}

/// std::memcpy of `bytes` from `src` into `dst` (both touched), host wall
/// clock: per repeat the median of `iterations` copies; 1e9 B/s.
Measured time_host_memcpy(void* dst, const void* src, std::size_t bytes, int repeats, int iterations) {
  volatile unsigned char sink = 0;  // reads the destination: the copies cannot be elided
  std::memcpy(dst, src, bytes);     // warm-up
  sink = sink ^ static_cast<const unsigned char*>(dst)[bytes / 2];
  std::vector<double> gbps;
  for (int k = 0; k < repeats; ++k) {
    std::vector<double> it;
    for (int j = 0; j < iterations; ++j) {
      const auto t0 = std::chrono::steady_clock::now();
      std::memcpy(dst, src, bytes);
      const auto t1 = std::chrono::steady_clock::now();
      sink = sink ^ static_cast<const unsigned char*>(dst)[(bytes / 3 + static_cast<std::size_t>(j)) % bytes];
      it.push_back(static_cast<double>(bytes) / elapsed_ns(t0, t1));  // bytes per ns = 1e9 B/s
    }
    gbps.push_back(median_of(it));
  }
  (void)sink;
  return Measured::of(gbps);
}

void say(std::ostream* log, const std::string& text) {
  if (log) *log << text << std::flush;
}

std::string fmt(const char* f, double a, double b = 0, double c = 0, double d = 0) {
  char buf[256];
  std::snprintf(buf, sizeof(buf), f, a, b, c, d);
  return buf;
}

}  // namespace

CalibrationReport run_calibration_phases(const CalibrationOptions& o, std::ostream* log, const char*& phase);

CalibrationReport run_calibration(const CalibrationOptions& o, std::ostream* log) {
  const char* phase = "setup";
  try {
    return run_calibration_phases(o, log, phase);
  } catch (const InputError&) {
    throw;
  } catch (const Error& e) {
    throw Error(std::string("calibrate (") + phase + "): " + e.what());
  }
}

// Each section starts by synchronising, so an asynchronous fault of the
// previous one is reported under that one's name.
#define FLASHSIM_PHASE(name)                               \
  FLASHSIM_CUDA_CHECK(cudaDeviceSynchronize());            \
  phase = name

CalibrationReport run_calibration_phases(const CalibrationOptions& o, std::ostream* log, const char*& phase) {
  if (o.repeats < 5) throw InputError("calibrate: --repeats must be >= 5 (each figure keeps its spread)");
  FLASHSIM_CUDA_CHECK(cudaSetDevice(o.device));
  CalibrationReport r;
  r.repeats = o.repeats;
  for (const std::string& g : o.only) {
    const auto& all = calibration_groups();
    if (std::find(all.begin(), all.end(), g) == all.end()) throw InputError("calibrate: unknown benchmark group '" + g + "'");
  }
  for (const std::string& g : calibration_groups()) {
    if (!o.only.empty() && std::find(o.only.begin(), o.only.end(), g) == o.only.end()) r.skipped_groups.push_back(g);
  }
  const auto run = [&](const char* group) { return r.ran(group); };
  const auto devices = list_devices();
  if (devices.empty() || o.device >= static_cast<int>(devices.size())) throw Error("calibrate: no CUDA device " + std::to_string(o.device));
  r.device = devices[static_cast<std::size_t>(o.device)];
  {
    const std::time_t now = std::time(nullptr);
    char buf[32];
    std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
    r.date_utc = buf;
  }
  cudaStream_t s = nullptr;
  FLASHSIM_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  struct StreamGuard {
    cudaStream_t s;
    ~StreamGuard() { (void)cudaStreamDestroy(s); }
  } guard{s};
  DeviceBuffer out(64);
  auto* out_words = out.as<unsigned long long>();
  if (!r.skipped_groups.empty()) {
    std::string skipped;
    for (const std::string& g : r.skipped_groups) skipped += " " + g;
    say(log, "skipping (--only):" + skipped + "\n");
  }

  // ---- copies ----
  FLASHSIM_PHASE("copies");
  if (run("copies")) {
    // Pageable also at 128 MiB: the execution model reads its copy time
    // against size from these points (pageable_h2d_points, _d2h_points).
    std::vector<ByteCount> pinned_sizes = {256, 4 * kKiB, 64 * kKiB, 256 * kKiB, kMiB, 4 * kMiB, 16 * kMiB, 64 * kMiB, 256 * kMiB};
    std::vector<ByteCount> pageable_sizes = {256,      4 * kKiB,  64 * kKiB,  256 * kKiB, kMiB,
                                             4 * kMiB, 16 * kMiB, 64 * kMiB, 128 * kMiB,  256 * kMiB};
    if (o.quick) pinned_sizes = pageable_sizes = {256, 64 * kKiB, kMiB, 16 * kMiB};
    const ByteCount max_size = std::max(pinned_sizes.back(), pageable_sizes.back());
    DeviceBuffer dev(max_size);
    for (const bool pinned : {true, false}) {
      HostBuffer host(max_size, pinned);
      auto& curve = pinned ? r.pinned : r.pageable;
      for (const ByteCount b : pinned ? pinned_sizes : pageable_sizes) {
        const int iterations = static_cast<int>(std::clamp<ByteCount>(64 * kMiB / b, 3, 20));
        std::vector<double> h2d, d2h;
        for (int k = 0; k < o.repeats; ++k) {
          h2d.push_back(time_copy_us(dev.p, host.p, b, cudaMemcpyHostToDevice, s, iterations));
          d2h.push_back(time_copy_us(host.p, dev.p, b, cudaMemcpyDeviceToHost, s, iterations));
        }
        CopyPoint p{b, Measured::of(h2d), Measured::of(d2h)};
        say(log, std::string(pinned ? "copy pinned  " : "copy pageable") +
                     fmt(" %10.0f B: H2D %9.2f us  D2H %9.2f us\n", double(b), p.h2d_us.median, p.d2h_us.median));
        curve.push_back(p);
      }
      std::vector<std::pair<double, double>> h, d;
      for (const CopyPoint& p : curve) {
        h.emplace_back(double(p.bytes), p.h2d_us.median * 1e-6);
        d.emplace_back(double(p.bytes), p.d2h_us.median * 1e-6);
      }
      (pinned ? r.h2d_pinned : r.h2d_pageable) = fit_link(h);
      (pinned ? r.d2h_pinned : r.d2h_pageable) = fit_link(d);
    }
    // Pageable D2H into host memory never touched (a fresh anonymous mmap
    // per copy, unmapped after): the driver's staging copy takes a page
    // fault on every first write, as `.to("cpu")` into a new tensor does.
    // The curve above copies into one buffer touched first.
    for (const ByteCount b : pageable_sizes) {
      const int iterations = static_cast<int>(std::clamp<ByteCount>(64 * kMiB / b, 3, 20));
      std::vector<double> d2h;
      Events ev;
      for (int k = 0; k < o.repeats; ++k) {
        std::vector<double> t;
        for (int i = 0; i < iterations; ++i) {
          FreshHostMapping fresh(b);
          FLASHSIM_CUDA_CHECK(cudaEventRecord(ev.a, s));
          FLASHSIM_CUDA_CHECK(cudaMemcpyAsync(fresh.p, dev.p, b, cudaMemcpyDeviceToHost, s));
          FLASHSIM_CUDA_CHECK(cudaEventRecord(ev.b, s));
          FLASHSIM_CUDA_CHECK(cudaEventSynchronize(ev.b));
          t.push_back(ev.ms() * 1e3);
        }
        d2h.push_back(median_of(t));
      }
      CopyPoint p{b, Measured{}, Measured::of(d2h)};
      say(log, fmt("copy pageable %10.0f B: D2H into fresh memory %9.2f us\n", double(b), p.d2h_us.median));
      r.pageable_fresh_d2h.push_back(p);
    }
  }

  // ---- concurrent copies ----
  FLASHSIM_PHASE("concurrent copies");
  if (run("concurrent")) {
    const ByteCount total = o.quick ? 64 * kMiB : 256 * kMiB;
    HostBuffer host(total, true);
    HostBuffer host2(total, true);
    DeviceBuffer dev(total), dev2(total);
    std::vector<cudaStream_t> streams(8);
    for (auto& st : streams) FLASHSIM_CUDA_CHECK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    Events ev;
    std::vector<cudaEvent_t> done(8);
    for (auto& e : done) FLASHSIM_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    for (const unsigned n : {1u, 2u, 4u, 8u}) {
      std::vector<double> gbps;
      for (int k = 0; k < o.repeats; ++k) {
        FLASHSIM_CUDA_CHECK(cudaEventRecord(ev.a, s));
        const ByteCount part = total / n;
        for (unsigned j = 0; j < n; ++j) {
          FLASHSIM_CUDA_CHECK(cudaStreamWaitEvent(streams[j], ev.a, 0));
          FLASHSIM_CUDA_CHECK(cudaMemcpyAsync(dev.as<char>() + j * part, static_cast<char*>(host.p) + j * part, part,
                                              cudaMemcpyHostToDevice, streams[j]));
          FLASHSIM_CUDA_CHECK(cudaEventRecord(done[j], streams[j]));
          FLASHSIM_CUDA_CHECK(cudaStreamWaitEvent(s, done[j], 0));
        }
        FLASHSIM_CUDA_CHECK(cudaEventRecord(ev.b, s));
        FLASHSIM_CUDA_CHECK(cudaEventSynchronize(ev.b));
        gbps.push_back(double(total) / (ev.ms() * 1e-3) / 1e9);
      }
      r.concurrent_h2d.push_back(StreamPoint{n, Measured::of(gbps)});
      say(log, fmt("concurrent H2D %.0f streams: %.2f GB/s\n", n, r.concurrent_h2d.back().gb_per_s.median));
    }
    std::vector<double> both;
    for (int k = 0; k < o.repeats; ++k) {
      FLASHSIM_CUDA_CHECK(cudaEventRecord(ev.a, s));
      FLASHSIM_CUDA_CHECK(cudaStreamWaitEvent(streams[0], ev.a, 0));
      FLASHSIM_CUDA_CHECK(cudaStreamWaitEvent(streams[1], ev.a, 0));
      FLASHSIM_CUDA_CHECK(cudaMemcpyAsync(dev.p, host.p, total, cudaMemcpyHostToDevice, streams[0]));
      FLASHSIM_CUDA_CHECK(cudaMemcpyAsync(host2.p, dev2.p, total, cudaMemcpyDeviceToHost, streams[1]));
      for (int j = 0; j < 2; ++j) {
        FLASHSIM_CUDA_CHECK(cudaEventRecord(done[j], streams[j]));
        FLASHSIM_CUDA_CHECK(cudaStreamWaitEvent(s, done[j], 0));
      }
      FLASHSIM_CUDA_CHECK(cudaEventRecord(ev.b, s));
      FLASHSIM_CUDA_CHECK(cudaEventSynchronize(ev.b));
      both.push_back(2.0 * double(total) / (ev.ms() * 1e-3) / 1e9);
    }
    r.bidirectional_gb_per_s = Measured::of(both);
    say(log, fmt("H2D + D2H at once: %.2f GB/s aggregate\n", r.bidirectional_gb_per_s.median));
    for (auto& e : done) (void)cudaEventDestroy(e);
    for (auto& st : streams) (void)cudaStreamDestroy(st);
  }

  // ---- execution-model constants ----
  FLASHSIM_PHASE("execution");
  if (run("execution")) {
    cudaStream_t as = nullptr;  // a dedicated stream: nothing else queued on it
    FLASHSIM_CUDA_CHECK(cudaStreamCreateWithFlags(&as, cudaStreamNonBlocking));
    struct Cleanup {
      cudaStream_t s;
      cudaEvent_t e = nullptr;
      ~Cleanup() {
        if (e) (void)cudaEventDestroy(e);
        (void)cudaStreamDestroy(s);
      }
    } cleanup{as};
    FLASHSIM_CUDA_CHECK(cudaEventCreateWithFlags(&cleanup.e, cudaEventDisableTiming));
    const cudaEvent_t ev = cleanup.e;
    DeviceBuffer dev(4 * kKiB);
    HostBuffer pinned(4 * kKiB, true);
    ExecutionConstants& x = r.execution;
    const unsigned calls = o.quick ? 200 : 2000;
    const int iterations = o.quick ? 3 : 5;
    const void* empty = kernels::empty_kernel_function();
    void* no_args[1] = {nullptr};
    auto report = [&](const char* key, const ApiCost& c) {
      say(log, std::string(key) + fmt(": %8.0f ns per call (%.0f .. %.0f); drain after the loop %.1f us\n",
                                         c.ns.median, c.ns.min, c.ns.max, c.drain_us.median));
    };
    x.launch = time_api("cudaLaunchKernel(empty_kernel)", calls, o.repeats, iterations, as,
                        [&] { return cudaLaunchKernel(empty, dim3(1), dim3(32), no_args, 0, as); });
    report("api_launch", x.launch);
    x.copy_async = time_api("cudaMemcpyAsync(4 KiB pinned H2D)", calls, o.repeats, iterations, as,
                            [&] { return cudaMemcpyAsync(dev.p, pinned.p, 4 * kKiB, cudaMemcpyHostToDevice, as); });
    report("api_copy_async", x.copy_async);
    x.event_record = time_api("cudaEventRecord", calls, o.repeats, iterations, as, [&] { return cudaEventRecord(ev, as); });
    report("api_event_record", x.event_record);
    // ev was last recorded on `as`, which time_api drained: it is complete.
    FLASHSIM_CUDA_CHECK(cudaEventRecord(ev, as));
    FLASHSIM_CUDA_CHECK(cudaStreamSynchronize(as));
    x.stream_wait_event = time_api("cudaStreamWaitEvent(completed event)", calls, o.repeats, iterations, as,
                                   [&] { return cudaStreamWaitEvent(as, ev, 0); });
    report("api_stream_wait_event", x.stream_wait_event);
    x.stream_sync = time_api("cudaStreamSynchronize(idle stream)", calls, o.repeats, iterations, as,
                             [&] { return cudaStreamSynchronize(as); });
    report("api_stream_sync", x.stream_sync);
    x.event_sync = time_api("cudaEventSynchronize(completed event)", calls, o.repeats, iterations, as,
                            [&] { return cudaEventSynchronize(ev); });
    report("api_event_sync", x.event_sync);
    x.device_sync = time_api("cudaDeviceSynchronize(idle device)", calls, o.repeats, iterations, as,
                             [&] { return cudaDeviceSynchronize(); });
    report("api_device_sync", x.device_sync);
    x.sync_copy_small = time_api("cudaMemcpy(4 B D2H)", calls, o.repeats, iterations, as,
                                 [&] { return cudaMemcpy(pinned.p, dev.p, 4, cudaMemcpyDeviceToHost); });
    report("api_sync_copy_small", x.sync_copy_small);

    x.host_memcpy_bytes = o.quick ? 64 * kMiB : 256 * kMiB;
    {
      HostBuffer src(x.host_memcpy_bytes, false), to_pinned(x.host_memcpy_bytes, true), to_pageable(x.host_memcpy_bytes, false);
      x.host_memcpy_gb_per_s = time_host_memcpy(to_pinned.p, src.p, x.host_memcpy_bytes, o.repeats, iterations);
      x.host_memcpy_pageable_gb_per_s = time_host_memcpy(to_pageable.p, src.p, x.host_memcpy_bytes, o.repeats, iterations);
    }
    say(log, fmt("host memcpy %.0f MiB: pageable -> pinned %.2f GB/s, pageable -> pageable %.2f GB/s\n",
                 double(x.host_memcpy_bytes / kMiB), x.host_memcpy_gb_per_s.median, x.host_memcpy_pageable_gb_per_s.median));
  }

  // ---- HBM streaming read ----
  FLASHSIM_PHASE("hbm read");
  if (run("hbm")) {
    const ByteCount bytes = o.quick ? 512 * kMiB : 4 * kGiB;
    DeviceBuffer buf(bytes);
    FLASHSIM_CUDA_CHECK(cudaMemset(buf.p, 1, bytes));
    FLASHSIM_CUDA_CHECK(cudaDeviceSynchronize());
    Events ev;
    std::vector<double> gbps;
    kernels::ConsumeArgs a;
    a.data = buf.p;
    a.bytes = bytes;
    a.checksum = out_words;
    a.max_ctas = r.device.sm_count * 8;
    FLASHSIM_CUDA_CHECK(kernels::launch_replay_consume(a, s));  // warm-up
    for (int k = 0; k < o.repeats; ++k) {
      std::vector<double> it;
      for (int j = 0; j < 5; ++j) {
        FLASHSIM_CUDA_CHECK(cudaEventRecord(ev.a, s));
        FLASHSIM_CUDA_CHECK(kernels::launch_replay_consume(a, s));
        FLASHSIM_CUDA_CHECK(cudaEventRecord(ev.b, s));
        FLASHSIM_CUDA_CHECK(cudaEventSynchronize(ev.b));
        it.push_back(double(bytes) / (ev.ms() * 1e-3) / 1e9);
      }
      gbps.push_back(median_of(it));
    }
    r.hbm_read_gb_per_s = Measured::of(gbps);
    say(log, fmt("HBM streaming read: %.0f GB/s\n", r.hbm_read_gb_per_s.median));
  }

  // ---- dependent-load latency against working set ----
  FLASHSIM_PHASE("chase");
  if (run("chase")) {
    std::vector<ByteCount> sets = {kMiB, 4 * kMiB, 8 * kMiB, 16 * kMiB, 32 * kMiB, 48 * kMiB, 64 * kMiB, 128 * kMiB,
                                   256 * kMiB, kGiB, 2 * kGiB};
    if (o.quick) sets = {kMiB, 32 * kMiB, 256 * kMiB};
    DeviceBuffer buf(sets.back());
    const std::uint64_t steps = 20000;
    for (const ByteCount ws : sets) {
      const std::uint64_t nodes = ws / 256;
      build_chain(buf.p, nodes, 256, 0, 7 + ws, s);
      std::vector<double> ns, cyc;
      // Each repeat continues the walk where the last one stopped: on a cycle
      // longer than warm-up + repeats x steps no timed load meets a line a
      // previous repeat left in L2 (restarting at the same node would time
      // L2 hits, not HBM). A cycle within L2 is warmed whole first.
      const void* at = buf.p;
      for (int k = 0; k < o.repeats; ++k) {
        const std::uint64_t warm = k == 0 ? std::min<std::uint64_t>(nodes, 262144) : 0;
        const auto [t, c] = chase(at, warm, steps, out_words, s, &at);
        ns.push_back(t);
        cyc.push_back(c);
      }
      r.chase.push_back(ChasePoint{ws, Measured::of(ns), Measured::of(cyc)});
      say(log, fmt("chase %8.0f KiB: %6.1f ns  %6.0f cycles per load\n", double(ws / kKiB), r.chase.back().ns.median,
                   r.chase.back().cycles.median));
    }
    double cycles = 0, ns = 0;
    for (const ChasePoint& p : r.chase) {
      cycles += p.cycles.median;
      ns += p.ns.median;
    }
    r.sm_clock_ghz = ns > 0 ? cycles / ns : 0;
  }

  // ---- TLB reach ----
  FLASHSIM_PHASE("tlb");
  if (run("tlb")) {
    std::size_t free_bytes = 0, total_bytes = 0;
    FLASHSIM_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    ByteCount max_span = std::min<ByteCount>(o.tlb_max_span_bytes, free_bytes > 4 * kGiB ? free_bytes - 4 * kGiB : 0);
    if (o.quick) max_span = std::min<ByteCount>(max_span, 4 * kGiB);
    max_span = max_span / (2 * kMiB) * (2 * kMiB);
    std::vector<ByteCount> spans;
    for (ByteCount sp : {2 * kGiB, 8 * kGiB, 32 * kGiB, 48 * kGiB, 64 * kGiB, 72 * kGiB, 80 * kGiB, 96 * kGiB, 112 * kGiB,
                         128 * kGiB}) {
      if (sp <= max_span) spans.push_back(sp);
    }
    if (!spans.empty()) {
      DeviceBuffer buf(spans.back());
      for (const ByteCount span : spans) {
        const std::uint64_t pages = span / (2 * kMiB);
        build_chain(buf.p, pages, 2 * kMiB, 2 * kMiB / 128, 11 + pages, s);
        std::vector<double> ns;
        for (int k = 0; k < o.repeats; ++k) ns.push_back(chase(buf.p, pages, 20000, out_words, s).first);
        r.tlb.push_back(TlbPoint{span, pages, Measured::of(ns)});
        say(log, fmt("tlb span %5.0f GiB (%6.0f pages): %6.1f ns per load\n", double(span / kGiB), double(pages),
                     r.tlb.back().ns.median));
      }
      // Reach: the largest span whose latency stays within 5 ns of the smallest span's.
      const double base = r.tlb.front().ns.median;
      std::size_t last_flat = 0;
      for (std::size_t k = 0; k < r.tlb.size() && r.tlb[k].ns.median <= base + 5.0; ++k) last_flat = k;
      if (last_flat + 1 < r.tlb.size()) {
        r.tlb_reach_pages = r.tlb[last_flat].pages;
        double sum = 0;
        int count = 0;
        for (std::size_t k = last_flat + 1; k < r.tlb.size(); ++k) {
          const double miss_ratio = 1.0 - double(r.tlb_reach_pages) / double(r.tlb[k].pages);
          if (miss_ratio > 0.05) {
            sum += (r.tlb[k].ns.median - base) / miss_ratio;
            ++count;
          }
        }
        r.tlb_miss_penalty_ns = count ? sum / count : 0;
      }
    }
  }

  // ---- contention probe ----
  FLASHSIM_PHASE("contention");
  if (run("contention")) {
    std::vector<ByteCount> others = {0, 64 * kMiB, 256 * kMiB, kGiB, 4 * kGiB, 16 * kGiB};
    if (o.quick) others = {0, 64 * kMiB, 256 * kMiB};
    while (others.size() > 2 && others.back() > o.contention_max_bytes) others.pop_back();
    const ByteCount hot = 32 * kMiB;
    DeviceBuffer pool(others.back() + hot);
    FLASHSIM_CUDA_CHECK(cudaMemset(pool.p, 3, others.back()));
    FLASHSIM_CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<std::vector<double>> per_point(others.size());
    const std::uint64_t steps = 8192;
    for (std::size_t i = 0; i < others.size(); ++i) {
      // The hot set sits right after the N MiB of other blocks in the same pool.
      unsigned char* hot_base = pool.as<unsigned char>() + others[i];
      const std::uint64_t nodes = hot / 256;
      build_chain(hot_base, nodes, 256, 0, 99, s);
      for (int k = 0; k < o.repeats; ++k) {
        (void)chase(hot_base, nodes, 1, out_words, s);  // warm the hot set into L2
        if (others[i] > 0) {
          kernels::ConsumeArgs a;
          a.data = pool.p;
          a.bytes = others[i];
          a.checksum = out_words + 4;
          a.max_ctas = r.device.sm_count * 8;
          FLASHSIM_CUDA_CHECK(kernels::launch_replay_consume(a, s));
        }
        per_point[i].push_back(chase(hot_base, 0, steps, out_words, s).first);
      }
      r.contention.push_back(ContentionPoint{others[i], Measured::of(per_point[i])});
      say(log, fmt("contention: %7.0f MiB other resident: %6.1f ns per hot load\n", double(others[i] / kMiB),
                   r.contention.back().ns.median));
    }
    std::vector<double> slopes;
    for (int k = 0; k < o.repeats; ++k) {
      double sx = 0, sy = 0, sxx = 0, sxy = 0;
      const double n = double(others.size());
      for (std::size_t i = 0; i < others.size(); ++i) {
        const double x = double(others[i]) / double(kMiB), y = per_point[i][static_cast<std::size_t>(k)];
        sx += x;
        sy += y;
        sxx += x * x;
        sxy += x * y;
      }
      slopes.push_back((n * sxy - sx * sy) / (n * sxx - sx * sx));
    }
    r.contention_slope_ns_per_mib = Measured::of(slopes);
    r.contention_slope_measurable = r.contention_slope_ns_per_mib.min > 0 || r.contention_slope_ns_per_mib.max < 0;
    say(log, fmt("contention slope: %.5f ns/MiB (repeats %.5f .. %.5f)\n", r.contention_slope_ns_per_mib.median,
                 r.contention_slope_ns_per_mib.min, r.contention_slope_ns_per_mib.max));
  }
  FLASHSIM_PHASE("done");
  return r;
}

namespace {

std::string spread_text(const Measured& m, const char* unit, int digits = 1) {
  char buf[160];
  std::snprintf(buf, sizeof(buf), "median %.*f %s, min %.*f, max %.*f over %zu repeats", digits, m.median, unit, digits,
                m.min, digits, m.max, m.samples.size());
  return buf;
}

std::string ns_text(double ns) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.0fns", ns);
  return buf;
}

}  // namespace

namespace {

std::string gbps_text(double gb_per_s) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.2fGB/s", gb_per_s);
  return buf;
}

/// `[[bytes, ns], ...]`: the medians of a copy curve, one direction.
std::string points_text(const std::vector<CopyPoint>& curve, bool h2d) {
  std::string out = "[";
  char buf[64];
  for (const CopyPoint& p : curve) {
    std::snprintf(buf, sizeof(buf), "%s[%llu, %.0f]", out.size() > 1 ? ", " : "", static_cast<unsigned long long>(p.bytes),
                  (h2d ? p.h2d_us : p.d2h_us).median * 1e3);
    out += buf;
  }
  return out + "]";
}

/// The execution model's constants (host threads issuing CUDA calls,
/// streams executing them): `execution:`, each value under its provenance.
void execution_yaml(std::ostream& y, const CalibrationReport& r) {
  y << "execution:\n";
  if (r.ran("execution")) {
    const ExecutionConstants& x = r.execution;
    y << "  # Host cost of one CUDA API call: std::chrono::steady_clock around a loop of " << x.launch.calls << " calls\n"
      << "  # with nothing else in it, on a dedicated non-blocking stream; the stream drained and\n"
      << "  # the device synchronised after each timed loop (not inside). ns per call; the drain\n"
      << "  # is how far the GPU lagged behind the host at the loop's end.\n";
    struct Row {
      const char* key;
      const ApiCost* cost;
      const char* method;
    };
    const Row rows[] = {
        {"api_launch", &x.launch, "cudaLaunchKernel of an empty __global__ kernel, <<<1, 32>>> on the stream"},
        {"api_copy_async", &x.copy_async, "cudaMemcpyAsync of 4 KiB pinned host -> device on the stream (issue cost)"},
        {"api_event_record", &x.event_record, "cudaEventRecord(ev, stream), ev created with cudaEventDisableTiming"},
        {"api_stream_wait_event", &x.stream_wait_event, "cudaStreamWaitEvent(stream, ev, 0) of an already-completed event"},
        {"api_stream_sync", &x.stream_sync, "cudaStreamSynchronize of an idle stream"},
        {"api_event_sync", &x.event_sync, "cudaEventSynchronize of a completed event"},
        {"api_device_sync", &x.device_sync, "cudaDeviceSynchronize with the device idle"},
        {"api_sync_copy_small", &x.sync_copy_small,
         "blocking cudaMemcpy of 4 B device -> pinned host (the round trip of a blocking call)"},
    };
    for (const Row& row : rows) {
      y << "  # " << row.method << ":\n"
        << "  # " << spread_text(row.cost->ns, "ns per call") << "; GPU drain after the loop "
        << fmt("%.1f us", row.cost->drain_us.median) << "\n"
        << "  " << row.key << ": " << ns_text(row.cost->ns.median) << "\n";
    }
    const double mib = double(x.host_memcpy_bytes) / double(kMiB);
    y << "  # std::memcpy of " << fmt("%.0f", mib) << " MiB from a pageable buffer (allocated and touched first) into a\n"
      << "  # pinned one (cudaHostAlloc), host wall clock: what a driver staging copy does.\n"
      << "  # " << spread_text(x.host_memcpy_gb_per_s, "GB/s", 2) << "\n"
      << "  host_memcpy_bandwidth: " << gbps_text(x.host_memcpy_gb_per_s.median) << "\n"
      << "  # Same, pageable -> pageable (both touched first):\n"
      << "  # " << spread_text(x.host_memcpy_pageable_gb_per_s, "GB/s", 2) << "\n"
      << "  host_memcpy_pageable_bandwidth: " << gbps_text(x.host_memcpy_pageable_gb_per_s.median) << "\n";
  }
  if (r.ran("copies")) {
    y << "  # Pageable copies, one cudaMemcpyAsync at a time on one stream, CUDA events: [bytes, ns]\n"
      << "  # per size, the median of the repeats (spread in the link's comment above).\n"
      << "  pageable_h2d_points: " << points_text(r.pageable, true) << "\n"
      << "  pageable_d2h_points: " << points_text(r.pageable, false) << "\n"
      << "  # Pageable D2H into host memory never touched (a fresh mmap per copy): first-touch page\n"
      << "  # faults in the driver's staging copy, as `.to(\"cpu\")` into a new tensor. Same method.\n"
      << "  pageable_d2h_fresh_points: " << points_text(r.pageable_fresh_d2h, false) << "\n";
    y << "  # Pinned copies, the fit t = latency + bytes / bandwidth of the link's comment above:\n"
      << "  # H2D largest residual " << fmt("%.1f%%", 100 * r.h2d_pinned.max_abs_residual) << ", D2H "
      << fmt("%.1f%%", 100 * r.d2h_pinned.max_abs_residual) << ".\n"
      << "  h2d_latency: " << ns_text(r.h2d_pinned.latency_ns) << "\n"
      << "  h2d_bandwidth: " << gbps_text(r.h2d_pinned.bandwidth_bytes_per_s / 1e9) << "\n"
      << "  d2h_latency: " << ns_text(r.d2h_pinned.latency_ns) << "\n"
      << "  d2h_bandwidth: " << gbps_text(r.d2h_pinned.bandwidth_bytes_per_s / 1e9) << "\n";
  }
  if (r.ran("concurrent")) {
    y << "  # One pinned H2D and one pinned D2H copy of 256 MiB each (64 MiB with --quick) at once\n"
      << "  # on two streams, CUDA events around both; aggregate (both directions' bytes / time):\n"
      << "  # " << spread_text(r.bidirectional_gb_per_s, "GB/s", 2) << "\n"
      << "  duplex_bandwidth: " << gbps_text(r.bidirectional_gb_per_s.median) << "\n";
  }
}

}  // namespace

std::string profile_yaml(const CalibrationReport& r, const std::string& name) {
  std::ostringstream y;
  char buf[512];
  auto line = [&](const char* f, auto... args) {
    if constexpr (sizeof...(args) == 0) {
      y << f << "\n";
    } else {
      std::snprintf(buf, sizeof(buf), f, args...);
      y << buf << "\n";
    }
  };
  const bool chased = r.ran("chase") && !r.chase.empty();
  const ChasePoint* l2 = chased ? &r.chase.front() : nullptr;
  const ChasePoint* hbm = chased ? &r.chase.back() : nullptr;
  y << "# " << r.device.name << ", measured by `flashsim calibrate` on " << r.date_utc << " (hw/calibrate;\n"
    << "# method per value below and in docs/hardware.md). Every figure is the median of\n"
    << "# " << r.repeats << " repeats, each repeat itself a median of several timed iterations;\n"
    << "# min and max of the repeats are given as the spread.\n";
  if (!r.skipped_groups.empty()) {
    std::string ran, skipped;
    for (const std::string& g : calibration_groups()) {
      std::string& list = r.ran(g) ? ran : skipped;
      list += (list.empty() ? "" : ", ") + g;
    }
    y << "# PARTIAL: `flashsim calibrate --only` ran the benchmark groups " << ran << ";\n"
      << "# skipped: " << skipped << ". This file is NOT a complete hardware profile: the\n"
      << "# values of the skipped groups are absent (it may not load as a profile); it holds\n"
      << "# only what was measured, to be read or merged into a complete profile.\n";
  }
  line("name: %s", name.c_str());
  line("source: \"flashsim calibrate, %s, %s (%d SMs, sm_%d%d)\"", r.date_utc.c_str(), r.device.name.c_str(),
       r.device.sm_count, r.device.compute_major, r.device.compute_minor);
  if (r.ran("copies")) {
    y << "# A miss costs the link's transfer only (no fixed penalty measured beyond the link latency).\n";
    line("miss_penalty: 0ns");
  }
  y << "tiers:\n  - name: hbm\n";
  line("    # cudaDeviceProp::totalGlobalMem");
  line("    capacity: %lluB", static_cast<unsigned long long>(r.device.global_memory_bytes));
  if (hbm) {
    line("    # dependent ld.global.cg loads, 256 B stride, random cycle, %llu MiB working set:",
         static_cast<unsigned long long>(hbm->working_set_bytes / kMiB));
    line("    # %s", spread_text(hbm->ns, "ns").c_str());
    line("    hit_latency: %s", ns_text(hbm->ns.median).c_str());
  }
  y << "  - name: host_dram\n    capacity: 0B         # backing tier: holds every block\n"
    << "    hit_latency: 0ns     # the cost of a fetch is the link's\n    link:\n";
  if (r.ran("copies")) {
    line("      # Pinned H2D copies, one at a time on one stream, CUDA events; fit of");
    line("      # t = latency + bytes / bandwidth, least squares on relative error over %zu sizes", r.pinned.size());
    line("      # (256 B .. 256 MiB); largest residual %.1f%%. Per size (median us, min..max):", 100 * r.h2d_pinned.max_abs_residual);
    for (const CopyPoint& p : r.pinned) {
      line("      #   %10llu B: H2D %9.2f (%.2f..%.2f)  D2H %9.2f (%.2f..%.2f)", static_cast<unsigned long long>(p.bytes),
           p.h2d_us.median, p.h2d_us.min, p.h2d_us.max, p.d2h_us.median, p.d2h_us.min, p.d2h_us.max);
    }
    line("      # D2H fit: latency %.2f us, bandwidth %.2f GB/s.", r.d2h_pinned.latency_ns / 1e3,
         r.d2h_pinned.bandwidth_bytes_per_s / 1e9);
    line("      # Pageable host memory (same method): H2D fit latency %.2f us, bandwidth %.2f GB/s",
         r.h2d_pageable.latency_ns / 1e3, r.h2d_pageable.bandwidth_bytes_per_s / 1e9);
    line("      # (residual %.1f%%); D2H %.2f us, %.2f GB/s. Per size H2D / D2H median us:",
         100 * r.h2d_pageable.max_abs_residual, r.d2h_pageable.latency_ns / 1e3, r.d2h_pageable.bandwidth_bytes_per_s / 1e9);
    for (const CopyPoint& p : r.pageable) {
      line("      #   %10llu B: %9.2f / %9.2f", static_cast<unsigned long long>(p.bytes), p.h2d_us.median, p.d2h_us.median);
    }
    line("      latency: %.2fus", r.h2d_pinned.latency_ns / 1e3);
    line("      bandwidth: %.2fGB/s", r.h2d_pinned.bandwidth_bytes_per_s / 1e9);
  }
  if (r.ran("concurrent")) {
    y << "      # Concurrent H2D copies (one transfer split over N streams, aggregate GB/s):\n";
    for (const StreamPoint& p : r.concurrent_h2d) {
      line("      #   %u streams: %s", p.streams, spread_text(p.gb_per_s, "GB/s", 2).c_str());
    }
    line("      # H2D and D2H at once: %s", spread_text(r.bidirectional_gb_per_s, "GB/s aggregate", 2).c_str());
    y << "      # More streams do not add H2D bandwidth (one copy engine per direction is the\n"
      << "      # bottleneck when the aggregate stays flat): copies queue in order.\n"
      << "      sharing: fifo\n";
  }
  if (r.ran("tlb")) {
    y << "tlb:\n";
    y << "  # One dependent ld.global.cg load per 2 MiB page, random page order, line offset\n"
      << "  # varied within the page, against span (ns per load, median of repeats):\n";
    for (const TlbPoint& p : r.tlb) {
      line("  #   %4llu GiB = %6llu pages: %s", static_cast<unsigned long long>(p.span_bytes / kGiB),
           static_cast<unsigned long long>(p.pages), spread_text(p.ns, "ns").c_str());
    }
    if (r.tlb_reach_pages > 0) {
      line("  # Reach: latency within 5 ns of the smallest span up to %llu pages; past it, the",
           static_cast<unsigned long long>(r.tlb_reach_pages));
      line("  # rise divided by the LRU miss ratio 1 - reach/pages gives %.0f ns per miss (mean).", r.tlb_miss_penalty_ns);
      line("  entries: %llu", static_cast<unsigned long long>(r.tlb_reach_pages));
      line("  page_size: 2MiB");
      line("  miss_penalty: %s", ns_text(r.tlb_miss_penalty_ns).c_str());
    } else {
      y << "  # No latency rise within the spans measured: the reach is beyond them; TLB off.\n"
        << "  entries: 0\n  page_size: 2MiB\n  miss_penalty: 0ns\n";
    }
  }
  if (r.ran("chase")) {
    y << "l2:\n";
    line("  # cudaDeviceProp::l2CacheSize; persistingL2CacheMaxSize = %llu B.",
         static_cast<unsigned long long>(r.device.persisting_l2_max_bytes));
    line("  capacity: %lluB", static_cast<unsigned long long>(r.device.l2_bytes));
    y << "  line_size: 128B       # the architecture's (not measured)\n  sector_size: 32B\n"
      << "  associativity: 16     # not documented, not measured: placeholder\n  persisting: 0B\n";
    y << "  # Dependent-load latency against working set (256 B stride, random cycle, L1 bypassed):\n";
    for (const ChasePoint& p : r.chase) {
      line("  #   %8llu KiB: %s; %.0f cycles", static_cast<unsigned long long>(p.working_set_bytes / kKiB),
           spread_text(p.ns, "ns").c_str(), p.cycles.median);
    }
    line("  # SM clock during the chases: %.3f GHz (cycles / ns).", r.sm_clock_ghz);
    if (l2 && hbm) {
      line("  # hit: the %llu KiB working set (L2-resident; near and far partitions averaged by",
           static_cast<unsigned long long>(l2->working_set_bytes / kKiB));
      y << "  # the random order); miss: the largest working set (HBM).\n";
      line("  hit_latency: %s", ns_text(l2->ns.median).c_str());
      line("  miss_latency: %s", ns_text(hbm->ns.median).c_str());
    }
    y << "  sampled_sets: auto  # set sampling (sim/engine/event/l2_model.h); 0 = every set\n";
  }
  if (r.ran("contention")) {
    y << "contention:\n";
    y << "  # Probe: 8192 dependent loads over a 32 MiB hot set (warmed into L2) placed after N MiB\n"
      << "  # of other blocks in the same device pool, timed after those N MiB were read once:\n";
    for (const ContentionPoint& p : r.contention) {
      line("  #   N = %6llu MiB: %s", static_cast<unsigned long long>(p.other_bytes / kMiB), spread_text(p.ns, "ns").c_str());
    }
    line("  # Least-squares slope per repeat: median %.5f ns/MiB, min %.5f, max %.5f.",
         r.contention_slope_ns_per_mib.median, r.contention_slope_ns_per_mib.min, r.contention_slope_ns_per_mib.max);
    if (r.contention.size() >= 2) {
      line("  # Rise from N = 0 to the largest N: %.1f ns (the hot set's L2 lines are evicted by the",
           r.contention.back().ns.median - r.contention.front().ns.median);
      y << "  # others' traffic; the rise is bounded by the HBM latency, so a linear term holds only\n"
        << "  # within the measured range).\n";
    }
    if (r.contention_slope_measurable && r.contention_slope_ns_per_mib.median > 0) {
      line("  # Every repeat's slope has the same sign: a measurable slope (the seed claims 4.3).");
      line("  ns_per_mib: %.5f", r.contention_slope_ns_per_mib.median);
    } else if (r.contention_slope_measurable) {
      // Seen on an H100 with other GPU work beside the probe: the profile
      // takes only a rise (ns_per_mib >= 0), so a falling fit is written as 0.
      y << "  # Every repeat's slope is negative (other work on the device?): no rise to model, 0.\n"
        << "  ns_per_mib: 0\n";
    } else {
      y << "  # The repeats' slopes straddle 0: no measurable slope (the seed claims 4.3 ns/MiB).\n"
        << "  ns_per_mib: 0\n";
    }
    y << "  baseline: 0B\n";
  }
  if (r.ran("hbm")) {
    line("# HBM streaming read (4 GiB, consume kernel): %s.", spread_text(r.hbm_read_gb_per_s, "GB/s", 0).c_str());
  }
  if (r.ran("execution") || r.ran("copies") || r.ran("concurrent")) execution_yaml(y, r);
  return y.str();
}

}  // namespace flashsim::hw
