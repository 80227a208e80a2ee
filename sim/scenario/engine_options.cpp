#include "sim/scenario/engine_options.h"

#include <cctype>

#include "sim/core/unit_parse.h"
#include "sim/prefetch/i_prefetcher.h"
#include "sim/scenario/component_parse.h"
#include "sim/scenario/param_check.h"

namespace flashsim {

namespace {

ParamSpec spec(std::string name, ParamType type, std::string default_value, std::string doc, double min = -1e300,
               double max = 1e300, std::vector<std::string> choices = {}) {
  return ParamSpec{std::move(name), type, std::move(default_value), std::move(doc), min, max, std::move(choices)};
}

const std::vector<ParamSpec>& reservation_specs() {
  static const std::vector<ParamSpec> specs{
      spec("enabled", ParamType::choice, "false", "queue requests until the link can grant their bandwidth", -1e300,
           1e300, {"true", "false"}),
      spec("input_coefficient", ParamType::real, "0.8", "weight of L_in (prompt tokens); seed 000 §3.2: 0.8", 0, 1e12),
      spec("output_coefficient", ParamType::real, "1.2", "weight of L_out (decode tokens); seed 000 §3.2: 1.2", 0,
           1e12),
      spec("base_bandwidth", ParamType::bandwidth, "1.2GB/s",
           "bytes/s per weighted token; seed 000 §3.2: 1.2 GB/s measured offline on an A100", 1, 1e18),
      spec("grant_share", ParamType::text, "100%", "share of the fast tier's link bandwidth that may be reserved"),
  };
  return specs;
}

const std::vector<ParamSpec>& serving_specs() {
  static const std::vector<ParamSpec> specs{
      spec("kv_resident", ParamType::choice, "false",
           "true: a running request's KV pages stay in the fast tier (never evicted) until it ends", -1e300, 1e300,
           {"true", "false"}),
      spec("occupancy_window", ParamType::duration, "100ms",
           "period of the fast-tier occupancy-by-kind samples (0 = none)", 0, 1e18),
  };
  return specs;
}

}  // namespace

double parse_share(const ConfigNode& node, std::string_view key) {
  const std::string& text = expect_scalar(node, key, "a share such as 35% or 0.35");
  std::string_view t = text;
  while (!t.empty() && std::isspace(static_cast<unsigned char>(t.back()))) t.remove_suffix(1);
  double value = 0.0;
  try {
    value = t.ends_with("%") ? parse_real(t.substr(0, t.size() - 1)) / 100.0 : parse_real(t);
  } catch (const UnitError&) {
    throw_at<UnitError>(node.pos, key, "cannot parse share '" + text + "' (e.g. 35% or 0.35)");
  }
  if (!(value > 0.0 && value <= 1.0)) throw_at(node.pos, key, "share '" + text + "' out of range (0%, 100%]");
  return value;
}

std::vector<ComponentChoice> resolve_prefetch_list(const ConfigNode* node, std::string_view key, ConfigNode& resolved,
                                                   std::vector<std::map<std::string, std::string>>* user_params) {
  std::vector<ComponentChoice> out;
  resolved = ConfigNode::make_sequence();
  if (!node || node->is_null()) return out;
  if (node->is_scalar() || node->is_map()) {  // one prefetcher without the list brackets
    const ResolvedComponent r =
        resolve_component(*node, join_key(key, "0"), "prefetcher", PrefetcherRegistry::instance());
    out.push_back(r.choice);
    if (user_params) user_params->push_back(r.user_params);
    resolved.items.push_back(r.resolved);
    return out;
  }
  expect_sequence(*node, key);
  for (std::size_t i = 0; i < node->items.size(); ++i) {
    const ResolvedComponent r = resolve_component(node->items[i], join_key(key, std::to_string(i)), "prefetcher",
                                                  PrefetcherRegistry::instance());
    out.push_back(r.choice);
    if (user_params) user_params->push_back(r.user_params);
    resolved.items.push_back(r.resolved);
  }
  return out;
}

BandwidthOptions resolve_bandwidth_options(const ConfigNode* node, ConfigNode& resolved) {
  BandwidthOptions out;
  resolved = ConfigNode::make_map();
  const ConfigNode empty = ConfigNode::make_map(node ? node->pos : SourcePos{});
  const ConfigNode& map = node && !node->is_null() ? *node : empty;
  expect_map(map, "bandwidth");
  reject_unknown_keys(map, "bandwidth", {"segment_shares", "reservation"});

  ConfigNode shares_r = ConfigNode::make_map();
  if (const ConfigNode* shares = map.find("segment_shares"); shares && !shares->is_null()) {
    expect_map(*shares, "bandwidth.segment_shares");
    double sum = 0.0;
    for (const ConfigEntry& e : shares->entries) {
      const std::string key = "bandwidth.segment_shares." + e.key;
      const double share = parse_share(e.value, key);
      sum += share;
      if (sum > 1.0 + 1e-9) throw_at(e.value.pos, key, "the segment shares add up to more than 100%");
      out.segment_shares[e.key] = share;
      shares_r.set(e.key, ConfigNode::make_scalar(e.value.scalar));
    }
  }
  resolved.set("segment_shares", std::move(shares_r));

  const ConfigNode* res = map.find("reservation");
  const ConfigNode res_empty = ConfigNode::make_map(map.pos);
  const ConfigNode& res_map = res && !res->is_null() ? *res : res_empty;
  const ParamValues v = resolve_params(res_map, "bandwidth.reservation", "reservation", reservation_specs());
  out.reservation.enabled = v.text("enabled") == "true";
  out.reservation.input_coefficient = v.real("input_coefficient");
  out.reservation.output_coefficient = v.real("output_coefficient");
  out.reservation.base_bandwidth = v.bandwidth("base_bandwidth");
  const ConfigNode* grant = res_map.find("grant_share");
  const ConfigNode grant_default = ConfigNode::make_scalar("100%", res_map.pos);
  out.reservation.grant_share = parse_share(grant ? *grant : grant_default, "bandwidth.reservation.grant_share");
  resolved.set("reservation", resolved_node(reservation_specs(), v));
  return out;
}

ServingOptions resolve_serving_options(const ConfigNode* node, ConfigNode& resolved) {
  const ConfigNode empty = ConfigNode::make_map(node ? node->pos : SourcePos{});
  const ConfigNode& map = node && !node->is_null() ? *node : empty;
  const ParamValues v = resolve_params(map, "serving", "serving", serving_specs());
  ServingOptions out;
  out.kv_resident = v.text("kv_resident") == "true";
  out.occupancy_sample_ns = v.duration_ns("occupancy_window");
  resolved = resolved_node(serving_specs(), v);
  return out;
}

}  // namespace flashsim
