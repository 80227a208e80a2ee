#include "sim/engine/execution_spec.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "sim/core/errors.h"
#include "sim/core/unit_parse.h"

namespace flashsim {

HostMemoryMode host_memory_mode(std::string_view text) {
  return text == "pinned" ? HostMemoryMode::pinned : text == "pageable" ? HostMemoryMode::pageable : HostMemoryMode::as_recorded;
}

Nanoseconds CopyCurve::time_ns(ByteCount bytes) const {
  if (points.empty() || bytes == 0) return 0;
  if (points.size() == 1) {
    return static_cast<Nanoseconds>(std::llround(static_cast<double>(points[0].second) * static_cast<double>(bytes) /
                                                 static_cast<double>(points[0].first)));
  }
  auto hi = std::lower_bound(points.begin(), points.end(), bytes,
                             [](const auto& p, ByteCount b) { return p.first < b; });
  if (hi == points.begin()) hi = points.begin() + 1;
  if (hi == points.end()) hi = points.end() - 1;
  const auto lo = hi - 1;
  const double x0 = static_cast<double>(lo->first), x1 = static_cast<double>(hi->first);
  const double y0 = static_cast<double>(lo->second), y1 = static_cast<double>(hi->second);
  const double y = y0 + (y1 - y0) * (static_cast<double>(bytes) - x0) / (x1 - x0);
  return static_cast<Nanoseconds>(std::llround(std::max(y, 0.0)));
}

Nanoseconds BlendedCopyCurve::time_ns(ByteCount bytes) const {
  if (inner.empty()) return outer.time_ns(bytes);
  const ByteCount lo = inner.points.front().first, hi = inner.points.back().first;
  if (outer.empty() || (bytes >= lo && bytes <= hi)) return inner.time_ns(bytes);
  const ByteCount end = bytes < lo ? lo : hi;
  const double scale = static_cast<double>(inner.time_ns(end)) / static_cast<double>(std::max<Nanoseconds>(1, outer.time_ns(end)));
  const double t = scale * static_cast<double>(outer.time_ns(bytes));
  return t >= 9e18 ? Nanoseconds{9'000'000'000'000'000'000} : static_cast<Nanoseconds>(std::llround(t));  // saturate
}

CopyCurve make_copy_curve(std::vector<std::pair<double, double>> points, const std::string& key) {
  if (points.size() < 2) {
    throw InputError(key + ": needs at least two [bytes, ns] points (got " + std::to_string(points.size()) + ")");
  }
  std::sort(points.begin(), points.end());
  CopyCurve c;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const auto [b, t] = points[i];
    // Bytes whole and below 2^50 (1 PiB); times below 1e15 ns (11.6 days).
    if (!(b >= 1) || !(t > 0) || !(b < 1125899906842624.0) || !(t < 1e15) || b != std::floor(b)) {
      throw InputError(key + ": point " + std::to_string(i) +
                       " needs whole bytes in [1, 2^50) and a time in (0, 1e15) ns");
    }
    if (!c.points.empty() && std::llround(t) < c.points.back().second) {
      throw InputError(key + ": the time falls as the size grows (at " + std::to_string(static_cast<ByteCount>(b)) +
                       " bytes): not a copy curve");
    }
    if (!c.points.empty() && static_cast<ByteCount>(b) == c.points.back().first) {
      throw InputError(key + ": two points for " + std::to_string(static_cast<ByteCount>(b)) + " bytes");
    }
    c.points.emplace_back(static_cast<ByteCount>(b), static_cast<Nanoseconds>(std::llround(t)));
  }
  return c;
}

namespace {
// Bandwidths may be 0 here: 0 means "the host link's" (or no limit).
ParamSpec spec(std::string name, ParamType type, std::string default_value, std::string doc) {
  return ParamSpec{std::move(name), type, std::move(default_value), std::move(doc), 0, 1e18, {}};
}
}  // namespace

const std::vector<ParamSpec>& ExecutionSpec::param_specs() {
  static const std::vector<ParamSpec> specs{
      spec("h2d_latency", ParamType::duration, "0ns", "pinned H2D copy: fixed cost (0: the host link's)"),
      spec("h2d_bandwidth", ParamType::text, "", "pinned H2D copy bandwidth (0: the host link's)"),
      spec("d2h_latency", ParamType::duration, "0ns", "pinned D2H copy: fixed cost (0: the host link's)"),
      spec("d2h_bandwidth", ParamType::text, "", "pinned D2H copy bandwidth (0: the host link's)"),
      spec("duplex_bandwidth", ParamType::text, "", "H2D + D2H at once, aggregate (0: no limit)"),
      spec("host_memcpy_bandwidth", ParamType::text, "", "host memcpy pageable -> pinned (recorded only)"),
      spec("host_memcpy_pageable_bandwidth", ParamType::text, "", "host memcpy pageable -> pageable (recorded only)"),
      spec("api_launch", ParamType::duration, "0ns", "host cost of a kernel launch"),
      spec("api_copy_async", ParamType::duration, "0ns", "host cost of issuing an async copy"),
      spec("api_event_record", ParamType::duration, "0ns", "host cost of cudaEventRecord"),
      spec("api_stream_wait_event", ParamType::duration, "0ns", "host cost of cudaStreamWaitEvent"),
      spec("api_stream_sync", ParamType::duration, "0ns", "host cost of cudaStreamSynchronize on an idle stream"),
      spec("api_event_sync", ParamType::duration, "0ns", "host cost of cudaEventSynchronize of a completed event"),
      spec("api_device_sync", ParamType::duration, "0ns", "host cost of cudaDeviceSynchronize, device idle"),
      spec("api_sync_copy_small", ParamType::duration, "0ns", "a blocking 4-byte D2H cudaMemcpy, whole call"),
  };
  return specs;
}

ExecutionSpec ExecutionSpec::from(const ParamValues& v) {
  // Bandwidths are text so that "absent" (empty) can mean the link's figure.
  auto bandwidth = [&](const char* key) -> BytesPerSecond {
    const std::string text = v.text(key);
    if (text.empty()) return 0;
    try {
      return parse_bandwidth(text);
    } catch (const InputError& e) {
      throw InputError(std::string("execution.") + key + ": " + e.what());
    }
  };
  ExecutionSpec s;
  s.h2d_latency_ns = v.duration_ns("h2d_latency");
  s.h2d_bandwidth = bandwidth("h2d_bandwidth");
  s.d2h_latency_ns = v.duration_ns("d2h_latency");
  s.d2h_bandwidth = bandwidth("d2h_bandwidth");
  s.duplex_bandwidth = bandwidth("duplex_bandwidth");
  s.host_memcpy_bandwidth = bandwidth("host_memcpy_bandwidth");
  s.api_launch_ns = v.duration_ns("api_launch");
  s.api_copy_async_ns = v.duration_ns("api_copy_async");
  s.api_event_record_ns = v.duration_ns("api_event_record");
  s.api_stream_wait_event_ns = v.duration_ns("api_stream_wait_event");
  s.api_stream_sync_ns = v.duration_ns("api_stream_sync");
  s.api_event_sync_ns = v.duration_ns("api_event_sync");
  s.api_device_sync_ns = v.duration_ns("api_device_sync");
  s.api_sync_copy_small_ns = v.duration_ns("api_sync_copy_small");
  return s;
}

}  // namespace flashsim
