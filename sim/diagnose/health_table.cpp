#include "sim/diagnose/health_table.h"

#include <cmath>
#include <cstdio>
#include <map>

#include "sim/core/errors.h"
#include "sim/core/unit_parse.h"

namespace flashsim::diagnose {
namespace {

std::string percent(double r) {
  char b[32];
  std::snprintf(b, sizeof b, "%g%%", std::round(r * 1000.0) / 10.0);
  return b;
}

std::string ms(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%g ms", v);
  return b;
}

enum class Band { below, between, above };

/// One input against one band: below `low`, within [low, high], above `high`.
HealthCondition condition(const char* input, const std::optional<double>& value, Band band, double low, double high,
                          bool is_ratio) {
  auto fmt = [&](double v) { return is_ratio ? percent(v) : ms(v); };
  HealthCondition c;
  c.input = input;
  c.condition = band == Band::below ? "< " + fmt(low) : band == Band::above ? "> " + fmt(high) : fmt(low) + ".." + fmt(high);
  c.measured = value.has_value();
  if (c.measured) {
    const double v = *value;
    c.met = band == Band::below ? v < low : band == Band::above ? v > high : (v >= low && v <= high);
  }
  return c;
}

void finish(HealthRow& row) {
  for (const auto& c : row.conditions) {
    row.measured += c.measured;
    row.met += c.met;
  }
}

}  // namespace

void HealthThresholds::set(const std::string& assignment) {
  const auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0) {
    throw InputError("--threshold '" + assignment + "': expected KEY=VALUE (e.g. l2_low=0.8)");
  }
  const std::string key = assignment.substr(0, eq), text = assignment.substr(eq + 1);
  const std::map<std::string, double*> keys = {{"l2_low", &l2_low},       {"l2_high", &l2_high},
                                               {"pcie_low", &pcie_low},   {"pcie_high", &pcie_high},
                                               {"load_low_ms", &load_low_ms}, {"load_high_ms", &load_high_ms}};
  const auto it = keys.find(key);
  if (it == keys.end()) {
    throw InputError("--threshold: unknown key '" + key +
                     "' (known: l2_low, l2_high, pcie_low, pcie_high, load_low_ms, load_high_ms)");
  }
  const bool is_ms = key.size() > 3 && key.compare(key.size() - 3, 3, "_ms") == 0;
  const bool pct = !text.empty() && text.back() == '%';
  if (is_ms && pct) throw InputError("--threshold " + key + "=" + text + ": a time in ms, not a percentage");
  double v = 0;
  try {
    v = parse_real(pct ? std::string_view(text).substr(0, text.size() - 1) : std::string_view(text));
    if (pct) v /= 100.0;
  } catch (const InputError& e) {
    throw InputError("--threshold " + key + ": " + e.what());
  }
  if (!std::isfinite(v) || v < 0) throw InputError("--threshold " + key + ": expected a finite value >= 0, got " + text);
  if (!is_ms && v > 1.0) {
    throw InputError("--threshold " + key + "=" + text + ": a rate of at most 100% (read as " + percent(v) +
                     "; write 0.8 or 80%)");
  }
  *it->second = v;
}

void HealthThresholds::check() const {
  auto pair = [](const char* low, double l, const char* high, double h, bool ratio) {
    if (l > h) {
      throw InputError(std::string("--threshold: ") + low + " (" + (ratio ? percent(l) : ms(l)) + ") is above " + high +
                       " (" + (ratio ? percent(h) : ms(h)) + ")");
    }
  };
  pair("l2_low", l2_low, "l2_high", l2_high, true);
  pair("pcie_low", pcie_low, "pcie_high", pcie_high, true);
  pair("load_low_ms", load_low_ms, "load_high_ms", load_high_ms, false);
}

HealthDecision evaluate_health(const HealthInputs& in, const HealthThresholds& t) {
  HealthDecision d;
  HealthRow war{"bandwidth_war",
                "the link is the bottleneck: pinned host memory, copies overlapped with compute (prefetch), "
                "fewer bytes per step (a larger fast tier, quantised weights), or a faster link",
                {}};
  war.conditions = {condition("l2_hit_rate", in.l2_hit_rate, Band::below, t.l2_low, t.l2_high, true),
                    condition("pcie_utilisation", in.pcie_utilisation, Band::above, t.pcie_low, t.pcie_high, true),
                    condition("weight_load_ms", in.weight_load_ms, Band::above, t.load_low_ms, t.load_high_ms, false)};
  HealthRow sched{"scheduling_upgrade",
                  "the fast tier's policy decides: a better eviction policy or pre-warm (prefetch) for the same "
                  "capacity",
                  {}};
  sched.conditions = {condition("l2_hit_rate", in.l2_hit_rate, Band::between, t.l2_low, t.l2_high, true),
                      condition("pcie_utilisation", in.pcie_utilisation, Band::between, t.pcie_low, t.pcie_high, true),
                      condition("weight_load_ms", in.weight_load_ms, Band::between, t.load_low_ms, t.load_high_ms,
                                false)};
  HealthRow model{"model_restructuring",
                  "the fast tier is not the bottleneck: optimise the model's compute (precision, kernels, sparsity)",
                  {}};
  model.conditions = {condition("l2_hit_rate", in.l2_hit_rate, Band::above, t.l2_low, t.l2_high, true),
                      condition("pcie_utilisation", in.pcie_utilisation, Band::below, t.pcie_low, t.pcie_high, true),
                      condition("weight_load_ms", in.weight_load_ms, Band::below, t.load_low_ms, t.load_high_ms,
                                false)};
  d.rows = {war, sched, model};
  const HealthRow* nearest = nullptr;
  for (auto& r : d.rows) {
    finish(r);
    if (r.fires() && d.fired.empty()) d.fired = r.name;
    if (nearest == nullptr || r.met > nearest->met) nearest = &r;
  }
  d.nearest = nearest->name;
  for (const auto& r : d.rows) {
    if (&r != nearest && r.met == nearest->met) d.tied.push_back(r.name);
  }
  return d;
}

std::string HealthDecision::explain() const {
  std::string out;
  for (const auto& r : rows) {
    if (r.name != (fired.empty() ? nearest : fired)) continue;
    std::string ties;
    for (const auto& t : tied) ties += (ties.empty() ? "; tied with " : ", ") + t;
    if (fired.empty() && r.measured < 2) {
      out = "no decision: only " + std::to_string(r.measured) + " of the 3 inputs measured";
      continue;
    }
    out = fired.empty() ? "no row fires: the measurements point at different rows; nearest is " + r.name + " (" +
                              std::to_string(r.met) + " of " + std::to_string(r.measured) +
                              " measured conditions met" + ties + ")"
                        : r.name + " fires: all " + std::to_string(r.measured) + " measured conditions met";
    std::string unmeasured;
    for (const auto& c : r.conditions) {
      if (!c.measured) unmeasured += (unmeasured.empty() ? "" : ", ") + c.input;
    }
    if (!unmeasured.empty()) out += "; not measured: " + unmeasured;
    out += ". Lever: " + r.lever + ".";
  }
  return out;
}

}  // namespace flashsim::diagnose
