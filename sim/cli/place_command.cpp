// flashsim place SCENARIO [--set KEY=VALUE ...] [--json]: FlexGen's
// placement by linear program (sim/placement/flexgen_lp.h,
// docs/placement.md) for a scenario's served model on its hardware: the
// shares of the weights and KV cache on each tier, the predicted time of a
// decode step and what binds it, and the static_fraction policy entry that
// runs the fast tier's share in `flashsim run`. One answer per sweep point.
#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/cli/cli_parse.h"
#include "sim/cli/command_registry.h"
#include "sim/core/errors.h"
#include "sim/scenario/scenario_document.h"
#ifdef FLASHSIM_HAVE_GLPK
#include "sim/placement/placement_input.h"
#include "sim/run/scenario_runner.h"
#include "sim/run/trace_provider.h"
#include "sim/workload/serving_trace.h"
#endif

namespace flashsim::cli {
namespace {

#ifdef FLASHSIM_HAVE_GLPK
using json = nlohmann::ordered_json;
using namespace flashsim::placement;

// The static_fraction share: the fast tier's weight share rounded down to
// 4 decimals, so that the policy never holds more than the program placed.
double policy_fraction(double share) { return std::floor(share * 1e4 + 1e-9) / 1e4; }

std::string fraction_text(double f) {
  char b[32];
  std::snprintf(b, sizeof b, "%.4f", f);
  return b;
}

// One sweep point: the program's input from the scenario, solved. Errors
// name the scenario file and the key they come from.
json place_point(const Scenario& s) {
  if (!s.workload.generated) {
    throw InputError(s.source + ": key 'workload': place needs a generated serving workload (workload: {generator: "
                                "serving, model: ...}), not the trace " + s.workload.trace);
  }
  TraceProvider provider(s.workload);
  const auto* serving = dynamic_cast<const ServingWorkload*>(provider.generator());
  if (serving == nullptr) {
    throw InputError(s.source + ": key 'workload.generator': place needs a generator serving one model (serving, "
                                "decode), not '" + s.workload.generator + "'");
  }
  for (std::size_t t = 1; t < s.hardware.tiers.size(); ++t) {
    if (!(s.hardware.tiers[t].link_to_faster.bandwidth > 0)) {
      throw InputError(s.source + ": key 'hardware.tiers." + std::to_string(t) +
                       ".link.bandwidth': 0; the program needs every link's bandwidth");
    }
  }
  ByteCount footprint = 0, capacity = s.cache.capacity.bytes;
  if (s.cache.capacity.is_fraction) {
    if (s.cache.ignore_sizes) {
      throw InputError(s.source + ": key 'cache.ignore_sizes': place needs the capacity in bytes, not a share of the blocks");
    }
    footprint = provider.footprint().bytes;
    capacity = s.cache.capacity.resolve(footprint);
  }
  const ServingPlacementInput in = serving_placement_input(*serving, s.hardware, capacity, s.cache.granularity_bytes);
  PlacementResult r;
  try {
    r = solve_flexgen_lp(in.lp);
  } catch (const InputError& e) {
    throw InputError(s.source + ": key 'cache.capacity' (" + s.cache.capacity.text + " = " + std::to_string(capacity) +
                     " B): " + e.what());
  }

  double W = 0, Wmax = 0, KV = 0, KVmax = 0;
  for (const LayerGroup& g : in.lp.groups) {
    W += g.weight_bytes;
    KV += g.kv_bytes;
    Wmax = std::max(Wmax, g.weight_bytes);
    KVmax = std::max(KVmax, g.kv_bytes);
  }
  const double f = policy_fraction(r.weight_share[0]);
  json j;
  j["model"] = serving->model().config.name;
  j["hardware"] = s.hardware.name;
  j["batch"] = in.lp.batch;
  j["prompt_tokens"] = in.prompt_tokens;
  j["output_tokens"] = in.output_tokens;
  j["kv_bytes_per_token"] = in.kv_bytes_per_token;
  j["expert_read_share"] = in.expert_read_share;
  j["capacity_text"] = s.cache.capacity.text;
  j["footprint_bytes"] = footprint;
  j["fast_capacity_bytes"] = capacity;
  j["reserved_bytes"] = in.lp.reserved_bytes;
  j["stream_buffers"] = in.lp.stream_buffers;
  j["weight_bytes"] = W;
  j["largest_group_weight_bytes"] = Wmax;
  j["kv_bytes"] = KV;
  j["largest_group_kv_bytes"] = KVmax;
  for (std::size_t t = 0; t < in.lp.tiers.size(); ++t) {
    const TierInput& tier = in.lp.tiers[t];
    json jt = {{"name", tier.name}, {"backing", t + 1 == in.lp.tiers.size()}, {"capacity_bytes", tier.capacity_bytes},
               {"up_bytes_per_s", tier.up_bytes_per_s}, {"down_bytes_per_s", tier.down_bytes_per_s},
               {"latency_ns", tier.latency_ns},
               {"weight_share", r.weight_share[t]}, {"kv_share", r.kv_share[t]}, {"used_bytes", r.tier_used_bytes[t]}};
    j["tiers"].push_back(jt);
  }
  for (std::size_t i = 0; i < in.lp.groups.size(); ++i) {
    const LayerGroup& g = in.lp.groups[i];
    j["groups"].push_back({{"name", g.name}, {"weight_bytes", g.weight_bytes}, {"weight_read_bytes", g.weight_read_bytes},
                           {"kv_bytes", g.kv_bytes}, {"kv_read_bytes", g.kv_read_bytes}, {"compute_ns", g.compute_ns},
                           {"weight_block_bytes", g.weight_block_bytes}, {"kv_block_bytes", g.kv_block_bytes},
                           {"time_ns", r.groups[i].time_ns}, {"binding", r.groups[i].binding}});
  }
  j["step_ns"] = r.step_ns;
  j["tokens_per_s"] = r.tokens_per_s;
  json binding = json::object();
  for (const auto& [term, n] : r.binding_counts) binding[term] = n;
  j["binding"] = binding;
  j["full_tiers"] = r.full_tiers;
  j["closed_form_weight_share"] = closed_form_weight_share(in.lp, r.kv_share[0]);
  j["weight_fraction"] = f;
  j["policy"] = {{"impl", "static_fraction"}, {"weight_fraction", f}};
  j["set"] = "policies=[{impl: static_fraction, weight_fraction: " + fraction_text(f) + "}]";
  return j;
}

void print_point(const json& p) {
  const double gb = 1e9;
  std::printf("  model %s on %s: %zu layer groups (the layers and 'other'), weights %.2f GB (largest group %.2f GB), KV %.3f GB at the peak\n",
              p["model"].get<std::string>().c_str(), p["hardware"].get<std::string>().c_str(), p["groups"].size(),
              p["weight_bytes"].get<double>() / gb, p["largest_group_weight_bytes"].get<double>() / gb,
              p["kv_bytes"].get<double>() / gb);
  std::printf("  batch %llu, prompt %.0f + output %.0f tokens, experts read per step %.1f%%\n",
              p["batch"].get<unsigned long long>(), p["prompt_tokens"].get<double>(), p["output_tokens"].get<double>(),
              p["expert_read_share"].get<double>() * 100);
  std::printf("  fast tier %.2f GB (cache.capacity %s%s), reserved %.3f GB, stream buffers %.0f\n",
              p["fast_capacity_bytes"].get<double>() / gb, p["capacity_text"].get<std::string>().c_str(),
              p["footprint_bytes"].get<double>() > 0
                  ? (" of " + std::to_string(p["footprint_bytes"].get<unsigned long long>()) + " B").c_str()
                  : "",
              p["reserved_bytes"].get<double>() / gb, p["stream_buffers"].get<double>());
  std::printf("  %-12s %10s %10s %12s %12s %12s %10s\n", "tier", "weights", "KV", "used GB", "capacity GB", "up GB/s",
              "latency");
  for (const auto& t : p["tiers"]) {
    char cap[32] = "backing", up[32] = "-", lat[32] = "-";
    if (!t["backing"].get<bool>()) std::snprintf(cap, sizeof cap, "%.2f", t["capacity_bytes"].get<double>() / gb);
    if (t["up_bytes_per_s"].get<double>() > 0) {
      std::snprintf(up, sizeof up, "%.2f", t["up_bytes_per_s"].get<double>() / gb);
      std::snprintf(lat, sizeof lat, "%.2f us", t["latency_ns"].get<double>() / 1e3);
    }
    std::printf("  %-12s %9.2f%% %9.2f%% %12.2f %12s %12s %10s\n", t["name"].get<std::string>().c_str(),
                t["weight_share"].get<double>() * 100, t["kv_share"].get<double>() * 100,
                t["used_bytes"].get<double>() / gb, cap, up, lat);
  }
  std::string binds;
  for (auto it = p["binding"].begin(); it != p["binding"].end(); ++it) {
    binds += (binds.empty() ? "" : ", ") + it.key() + " (" + std::to_string(it.value().get<std::size_t>()) + " groups)";
  }
  std::printf("  predicted: %.3f ms a decode step (one token per sequence), %.2f tokens/s; binds: %s\n",
              p["step_ns"].get<double>() / 1e6, p["tokens_per_s"].get<double>(), binds.c_str());
  std::string full;
  for (const auto& t : p["full_tiers"]) full += (full.empty() ? "" : ", ") + t.get<std::string>();
  std::printf("  full tiers: %s; closed form of the fast tier's weight share: %.6f\n", full.empty() ? "none" : full.c_str(),
              p["closed_form_weight_share"].get<double>());
  std::printf("  policy: --set '%s'\n", p["set"].get<std::string>().c_str());
}
#endif

int place_command(int argc, char** argv) {
  CLI::App app(
      "Chooses by FlexGen's linear program (Sheng et al., ICML 2023, §4.2; docs/placement.md) the shares of a\n"
      "served model's weights and KV cache on each tier that make a decode step fastest, and prints them with the\n"
      "predicted step time, what binds it, and the static_fraction policy entry that runs it. One answer per\n"
      "sweep point. The scenario needs a generated serving workload.",
      "flashsim place");
  std::string scenario;
  std::vector<std::string> sets;
  bool as_json = false;
  app.add_option("scenario", scenario, "scenario YAML file")->required();
  app.add_option("-s,--set", sets, "override a scenario key by dotted path, as for `flashsim run` (repeatable)")
      ->allow_extra_args(false);
  app.add_flag("--json", as_json, "print the placement as JSON instead of text");
  if (!parse_command_line(app, argc, argv)) return 0;
#ifndef FLASHSIM_HAVE_GLPK
  throw Error("this flashsim was built without GLPK (Debian libglpk-dev; tools/install-deps.sh): `place` is not available");
#else
  std::vector<Override> overrides;
  for (const auto& s : sets) overrides.push_back(parse_override(s));
  const ScenarioDocument document = ScenarioDocument::from_file(scenario, overrides);
  const std::vector<Scenario> points = resolve_points(document, nullptr, false);
  const auto labels = document.points();
  json out;
  out["scenario"] = scenario;
  out["method"] = "FlexGen LP (Sheng et al., ICML 2023, §4.2), GLPK simplex; docs/placement.md";
  for (std::size_t k = 0; k < points.size(); ++k) {
    json p = place_point(points[k]);
    p["point"] = labels[k].label();
    out["points"].push_back(p);
  }
  if (as_json) {
    std::cout << out.dump(1) << "\n";
    return 0;
  }
  std::printf("flashsim place: %s (FlexGen's placement LP, docs/placement.md)\n", scenario.c_str());
  for (const auto& p : out["points"]) {
    std::printf("\n%s\n", p["point"].get<std::string>().empty() ? "(no sweep)" : p["point"].get<std::string>().c_str());
    print_point(p);
  }
  return 0;
#endif
}

}  // namespace

FLASHSIM_REGISTER_COMMAND("place", "place SCENARIO [--set KEY=VALUE ...] [--json]",
                          "FlexGen's linear program: the shares of weights and KV cache on each tier for a\n"
                          "scenario's served model, the predicted step time, and the static_fraction policy entry",
                          &place_command);

}  // namespace flashsim::cli
