#include "traces/importers/capture_host_facts.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <unordered_map>

#include "sim/core/errors.h"

namespace flashsim::capture {

namespace {

template <class T>
T median_of(std::vector<T> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : static_cast<T>((v[n / 2 - 1] + v[n / 2]) / 2);
}

}  // namespace

std::vector<CopyTimePoint> fit_copy_time_curve(std::vector<std::pair<ByteCount, Nanoseconds>> samples) {
  samples.erase(std::remove_if(samples.begin(), samples.end(), [](const auto& s) { return s.first == 0 || s.second <= 0; }),
                samples.end());
  if (samples.size() < kMinCurveCopies) return {};
  std::sort(samples.begin(), samples.end());
  std::size_t distinct = 0;
  for (std::size_t i = 0; i < samples.size(); ++i) distinct += i == 0 || samples[i].first != samples[i - 1].first;
  const bool exact = distinct <= kMaxExactSizes;
  auto bin_of = [&](ByteCount b) -> std::int64_t {
    return exact ? static_cast<std::int64_t>(b) : static_cast<std::int64_t>(std::floor(4.0 * std::log2(static_cast<double>(b))));
  };
  struct Block {
    double ns = 0, weight = 0;
    std::size_t first = 0, last = 0;  // points pooled
  };
  std::vector<CopyTimePoint> points;
  for (std::size_t i = 0; i < samples.size();) {
    std::size_t j = i;
    std::vector<ByteCount> bytes;
    std::vector<Nanoseconds> ns;
    while (j < samples.size() && bin_of(samples[j].first) == bin_of(samples[i].first)) {
      bytes.push_back(samples[j].first);
      ns.push_back(samples[j].second);
      ++j;
    }
    CopyTimePoint p;
    p.bytes = bytes[(bytes.size() - 1) / 2];  // sorted: the lower median, a size that occurred
    p.ns = median_of(ns);
    p.copies = static_cast<std::uint32_t>(std::min<std::size_t>(bytes.size(), 0xFFFFFFFFu));
    if (!points.empty() && points.back().bytes == p.bytes) {
      points.back().copies += p.copies;  // two bins with one median size (cannot happen with exact sizes)
    } else {
      points.push_back(p);
    }
    i = j;
  }
  // Pool adjacent violators: the least-squares non-decreasing fit, weighted.
  std::vector<Block> blocks;
  for (std::size_t i = 0; i < points.size(); ++i) {
    blocks.push_back(Block{static_cast<double>(points[i].ns), static_cast<double>(points[i].copies), i, i});
    while (blocks.size() > 1 && blocks[blocks.size() - 2].ns > blocks.back().ns) {
      Block b = blocks.back();
      blocks.pop_back();
      Block& a = blocks.back();
      a.ns = (a.ns * a.weight + b.ns * b.weight) / (a.weight + b.weight);
      a.weight += b.weight;
      a.last = b.last;
    }
  }
  for (const Block& b : blocks) {
    for (std::size_t i = b.first; i <= b.last; ++i) points[i].ns = static_cast<Nanoseconds>(std::llround(b.ns));
  }
  return points;
}

void fit_pageable_curves(Program& program) {
  std::vector<std::pair<ByteCount, Nanoseconds>> h2d, d2h, d2h_fresh;
  for (const ProgramOp& op : program.ops) {
    if (op.kind != ProgramOpKind::copy || op.host_memory != HostMemory::pageable) continue;
    if (op.direction == CopyDirection::h2d) {
      h2d.emplace_back(op.bytes, op.gpu_ns);
    } else if (op.direction == CopyDirection::d2h) {
      const bool fresh = program.host.residency_recorded && 2 * op.host_fresh_bytes > op.bytes;
      (fresh ? d2h_fresh : d2h).emplace_back(op.bytes, op.gpu_ns);
    }
  }
  program.host.pageable_h2d = fit_copy_time_curve(std::move(h2d));
  program.host.pageable_d2h = fit_copy_time_curve(std::move(d2h));
  program.host.pageable_d2h_fresh = fit_copy_time_curve(std::move(d2h_fresh));
}

ProbeTiming read_probe_timing(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw InputError(path.string() + ": cannot open for reading");
  ProbeTiming t;
  std::string line;
  std::size_t line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    const std::string at = path.string() + ":" + std::to_string(line_no) + ": ";
    std::istringstream s(line);
    if (line_no == 1) {
      std::string magic;
      int version = 0;
      if (!(s >> magic >> version) || magic != "flashsim-capture-probe" || version != 1) {
        throw InputError(at + "not a capture probe timing file (expected 'flashsim-capture-probe 1')");
      }
      continue;
    }
    if (line.empty()) continue;
    std::vector<std::string> f;
    for (std::string w; s >> w;) f.push_back(w);
    const std::string shape = "expected 'CALL NS_PER_CALL CALLS' (a probe call, a time in [0, 1e12) ns, calls > 0)";
    if (f.size() != 3) throw InputError(at + shape + ", got " + std::to_string(f.size()) + " field(s)");
    char* end = nullptr;
    const double ns = std::strtod(f[1].c_str(), &end);
    const bool ns_ok = end != f[1].c_str() && *end == '\0' && ns >= 0 && ns < 1e12;
    const bool calls_ok = !f[2].empty() && f[2].find_first_not_of("0123456789") == std::string::npos &&
                          f[2].size() < 19 && std::stoull(f[2]) > 0;
    if (!is_probe_call(f[0]) || !ns_ok || !calls_ok) throw InputError(at + shape + ", got '" + line + "'");
    for (const auto& [seen, unused] : t.ns_per_call) {
      if (seen == f[0]) throw InputError(at + "probe call '" + f[0] + "' a second time");
    }
    t.ns_per_call.emplace_back(f[0], ns);
  }
  if (line_no == 0) throw InputError(path.string() + ": empty file (not a capture probe timing file)");
  return t;
}

std::string probe_call_of(const std::string& api_name) {
  // Longest names first: cudaMemcpyAsync before cudaMemcpy.
  static const std::pair<const char*, const char*> table[] = {
      {"cudaLaunchKernel", "launch"},          {"cudaMemcpyAsync", "copy_async"},
      {"cudaMemcpy_", "sync_copy"},            {"cudaEventRecord", "event_record"},
      {"cudaStreamWaitEvent", "stream_wait_event"}, {"cudaStreamSynchronize", "stream_sync"},
      {"cudaEventSynchronize", "event_sync"},  {"cudaDeviceSynchronize", "device_sync"},
      {"cudaGetDevice_", "host_call"},
  };
  for (const auto& [prefix, call] : table) {
    if (api_name.rfind(prefix, 0) == 0) return call;
  }
  return "";
}

std::vector<CaptureCallCost> probe_call_costs(const std::vector<ProbeTiming>& plain,
                                              const std::vector<ProbeTiming>& captured,
                                              const std::vector<RawCapture>& captured_raw) {
  std::map<std::string, std::vector<double>> plain_ns, captured_ns;
  std::vector<std::string> order;
  for (const ProbeTiming& t : plain) {
    for (const auto& [call, ns] : t.ns_per_call) {
      if (plain_ns[call].empty() && std::find(order.begin(), order.end(), call) == order.end()) order.push_back(call);
      plain_ns[call].push_back(ns);
    }
  }
  for (const ProbeTiming& t : captured) {
    for (const auto& [call, ns] : t.ns_per_call) captured_ns[call].push_back(ns);
  }
  // Per raw capture: the longest run of consecutive top-level records of one
  // callback id on one thread, per probe call; its median gap.
  std::map<std::string, std::vector<Nanoseconds>> gaps;
  for (const RawCapture& c : captured_raw) {
    std::unordered_map<std::uint64_t, std::string> names;
    for (const RawApiName& n : c.api_names) {
      names[(std::uint64_t{n.domain == ApiDomain::driver} << 32) | n.cbid] = n.name;
    }
    std::map<std::uint32_t, std::vector<const RawApi*>> by_thread;
    for (const RawApi& a : c.apis) {
      if (a.domain == ApiDomain::runtime) by_thread[a.thread].push_back(&a);
    }
    std::map<std::string, std::vector<Nanoseconds>> best;
    for (auto& [thread, calls] : by_thread) {
      std::sort(calls.begin(), calls.end(), [](const RawApi* x, const RawApi* y) { return x->start_ns < y->start_ns; });
      for (std::size_t i = 0; i < calls.size();) {
        std::size_t j = i + 1;
        while (j < calls.size() && calls[j]->cbid == calls[i]->cbid) ++j;
        const auto name = names.find(calls[i]->cbid);
        const std::string call = name != names.end() ? probe_call_of(name->second) : "";
        if (!call.empty() && j - i > best[call].size() + 1) {
          std::vector<Nanoseconds> run;
          for (std::size_t k = i + 1; k < j; ++k) {
            run.push_back(calls[k]->start_ns > calls[k - 1]->end_ns
                              ? static_cast<Nanoseconds>(calls[k]->start_ns - calls[k - 1]->end_ns)
                              : 0);
          }
          best[call] = std::move(run);
        }
        i = j;
      }
    }
    for (const auto& [call, run] : best) {
      if (run.size() >= 10) gaps[call].push_back(median_of(run));
    }
  }
  std::vector<CaptureCallCost> out;
  for (const std::string& call : order) {
    if (captured_ns[call].empty() || gaps[call].empty()) continue;
    out.push_back(CaptureCallCost{call, static_cast<Nanoseconds>(std::llround(median_of(plain_ns[call]))),
                                  static_cast<Nanoseconds>(std::llround(median_of(captured_ns[call]))),
                                  median_of(gaps[call])});
  }
  return out;
}

std::vector<CaptureCallCost> read_probe_dir(const std::filesystem::path& dir, std::vector<std::string>& warnings) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) return {};
  const std::string where = "probe folder " + dir.string() + ": ";
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    if (e.is_regular_file() && e.path().extension() == ".txt") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  std::vector<ProbeTiming> plain, captured;
  for (const auto& f : files) {
    const std::string name = f.filename().string();
    const bool is_plain = name.rfind("plain-", 0) == 0, is_captured = name.rfind("captured-", 0) == 0;
    if (!is_plain && !is_captured) continue;
    try {
      (is_plain ? plain : captured).push_back(read_probe_timing(f));
    } catch (const InputError& e) {
      warnings.push_back(std::string(e.what()) + " (skipped)");
    }
  }
  std::vector<RawCapture> raw;
  if (std::filesystem::is_directory(dir / "raw", ec)) {
    try {
      raw = read_raw_capture_dir(dir / "raw");
    } catch (const InputError& e) {
      warnings.push_back(std::string(e.what()) + " (the probe's raw capture skipped)");
    }
  }
  if (plain.empty()) warnings.push_back(where + "no readable plain-*.txt timing file: the capture's cost is not measured");
  if (captured.empty()) warnings.push_back(where + "no readable captured-*.txt timing file: the capture's cost is not measured");
  if (raw.empty()) warnings.push_back(where + "no readable raw/*.raw capture of the probe: its gaps are not measured");
  std::vector<CaptureCallCost> costs = probe_call_costs(plain, captured, raw);
  if (!plain.empty() && !captured.empty() && !raw.empty()) {
    std::string missing;
    for (const std::string_view call : kProbeCalls) {
      const bool have = std::any_of(costs.begin(), costs.end(), [&](const CaptureCallCost& c) { return c.call == call; });
      if (!have) missing += (missing.empty() ? "" : ", ") + std::string(call);
    }
    if (!missing.empty()) {
      warnings.push_back(where + "no figure for " + missing +
                         " (absent from a timing file, or no run of 10 such calls in its raw capture)");
    }
  }
  return costs;
}

}  // namespace flashsim::capture
