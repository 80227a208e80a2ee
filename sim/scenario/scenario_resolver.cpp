// resolve_scenario_tree: every top-level section of a scenario, validated
// and with its defaults filled in (schema: docs/scenarios.md).
#include <algorithm>
#include <cmath>
#include <system_error>

#include "sim/cache/i_admission_policy.h"
#include "sim/cache/i_slot_allocator.h"
#include "sim/core/input_file.h"
#include "sim/core/unit_parse.h"
#include "sim/core/utf8.h"
#include "sim/policy/i_eviction_policy.h"
#include "sim/scenario/component_parse.h"
#include "sim/scenario/embedded_files.h"
#include "sim/scenario/engine_options.h"
#include "sim/scenario/engine_section.h"
#include "sim/engine/program/program_engine.h"
#include "sim/scenario/generated_workload.h"
#include "sim/scenario/hardware_loader.h"
#include "sim/scenario/param_check.h"
#include "sim/scenario/scenario_document.h"
#include "traces/trace_formats.h"

namespace flashsim {

namespace {

const std::vector<std::string>& top_level_keys() {
  static const std::vector<std::string> keys = {"name",    "description", "engine",         "hardware", "workload",
                                                "cache",   "policies",    "decision_clock", "seed",     "outputs",
                                                "sweep",   "prefetch",    "bandwidth",      "serving"};
  return keys;
}

const std::vector<ParamSpec>& top_specs() {
  static const std::vector<ParamSpec> specs = {
      {"name", ParamType::text, "", "scenario name; names the default results folder", -1e300, 1e300, {}},
      {"description", ParamType::text, "", "free text", -1e300, 1e300, {}},
      {"decision_clock", ParamType::choice, "trace",
       "clock policies see: the trace's timestamps or the engine's own (sim/core/decision_clock.h)", -1e300, 1e300,
       {"trace", "engine"}},
      {"seed", ParamType::integer, "1", "random seed, recorded in results", 0, 9.2e18, {}},
  };
  return specs;
}

const std::vector<ParamSpec>& workload_specs() {
  static const std::vector<ParamSpec> specs = {
      {"trace", ParamType::text, "", "trace file (relative to the scenario's folder) or builtin:NAME", -1e300, 1e300, {}},
      {"format", ParamType::text, "", "a TraceFormatRegistry name (hdf5, csv, oraclegeneral, kineto); default from the file name", -1e300,
       1e300, {}},
      {"issue", ParamType::choice, "closed",
       "closed: next access when the previous completes (+compute or gap); timestamp: at the recorded time", -1e300,
       1e300, {"closed", "timestamp"}},
      {"gap", ParamType::duration, "0ns", "closed loop: compute between accesses when the trace records none", 0, kMaxPerAccessDurationNs,
       {}},
  };
  return specs;
}

const std::vector<ParamSpec>& outputs_specs() {
  static const std::vector<ParamSpec> specs = {
      {"dir", ParamType::text, "", "results folder; default flashsim-results/<name>", -1e300, 1e300, {}},
      {"window", ParamType::duration, "10ms", "width of each time-series window (0 = one window)", 0, 1e18, {}},
  };
  return specs;
}

std::string safe_folder_name(const std::string& name) {
  std::string out = name;
  for (char& c : out) {
    const bool ok = std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
    if (!ok) c = '_';
  }
  if (out.empty() || out == "." || out == "..") out = "scenario";
  return out;
}

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  return text;
}

WorkloadSpec resolve_workload(const ConfigNode* node, const ConfigNode& root, const std::filesystem::path& base_dir,
                              ConfigNode& resolved) {
  if (!node) {
    throw_at(root.pos, "", "missing key 'workload' (workload: {trace: FILE} or {generator: serving, model: NAME})");
  }
  // host_memory and skip_steps: old places of the program engine's own (engine_section.h).
  const ParamValues v = resolve_params(*node, "workload", "workload", workload_specs(), {"import", "host_memory", "skip_steps"});
  const ConfigNode* trace_node = node->find("trace");
  if (!trace_node) throw_at(node->pos, "workload", "missing key 'trace' (a trace file, or builtin:NAME)");
  WorkloadSpec w;
  const std::string& trace = trace_node->scalar;
  std::filesystem::path name_for_format;
  if (trace.starts_with("builtin:")) {
    w.builtin = true;
    w.builtin_name = trace.substr(8);
    const EmbeddedFile* f = find_embedded_data(w.builtin_name);
    if (!f) {
      std::string list;
      for (const auto& n : embedded_data_names()) list += (list.empty() ? "" : ", ") + n;
      throw_at(trace_node->pos, "workload.trace",
               "no built-in trace '" + w.builtin_name + "' (built-in: " + (list.empty() ? "none" : list) + ")");
    }
    w.trace = trace;
    w.builtin_file = std::filesystem::path(f->path).filename().string();
    name_for_format = w.builtin_file;
  } else {
    if (trace.empty()) throw_at(trace_node->pos, "workload.trace", "empty trace path");
    std::filesystem::path p(trace);
    if (p.is_relative()) p = base_dir / p;
    std::error_code ec;
    std::filesystem::path absolute = std::filesystem::absolute(p, ec);
    w.path = (ec ? p : absolute).lexically_normal();
    if (const std::string problem = input_file_problem(w.path, true); !problem.empty()) {
      throw_at(trace_node->pos, "workload.trace",
               problem == "no such file" ? "trace file not found: " + w.path.string()
                                         : "trace " + w.path.string() + ": " + problem);
    }
    w.trace = w.path.string();
    name_for_format = w.path;
  }

  const ConfigNode* format_node = node->find("format");
  std::string format = lower(v.text("format"));
  if (format == "h5") format = "hdf5";
  if (format.empty()) {
    try {
      format = detect_trace_format(name_for_format);
    } catch (const InputError& e) {
      throw_at(trace_node->pos, "workload.trace", std::string(e.what()) + " (workload.format)");
    }
  }
  const auto& entry = find_component(TraceFormatRegistry::instance(), format,
                                     format_node ? format_node->pos : trace_node->pos, "workload.format", "trace format");
  w.format = format;
  w.issue = v.text("issue") == "timestamp" ? IssueMode::timestamp : IssueMode::closed;
  w.gap_ns = v.duration_ns("gap");
  const ConfigNode* import = node->find("import");
  const ConfigNode empty = ConfigNode::make_map(node->pos);
  const ParamValues options = resolve_params(import && !import->is_null() ? *import : empty, "workload.import",
                                             "trace format " + format, entry.params);
  w.import_options = options.resolved_text();

  resolved = ConfigNode::make_map();
  resolved.set("trace", ConfigNode::make_scalar(w.trace));
  resolved.set("format", ConfigNode::make_scalar(w.format));
  resolved.set("issue", ConfigNode::make_scalar(v.text("issue")));
  resolved.set("gap", ConfigNode::make_scalar(v.text("gap")));
  resolved.set("import", resolved_node(entry.params, options));
  return w;
}

CapacitySpec parse_capacity(const ConfigNode& node) {
  const std::string key = "cache.capacity";
  const std::string& text = expect_scalar(node, key, "a size (e.g. 2GiB) or a share of the trace's footprint (e.g. 50%)");
  try {
    return CapacitySpec::parse(text);
  } catch (const UnitError& e) {
    throw_at<UnitError>(node.pos, key, e.what());
  } catch (const InputError& e) {
    throw_at(node.pos, key, e.what());
  }
}

template <class T>
std::vector<T> parse_list(const ConfigNode& node, const std::string& key, bool numeric) {
  expect_sequence(node, key);
  std::vector<T> out;
  for (std::size_t i = 0; i < node.items.size(); ++i) {
    const std::string item_key = key + "." + std::to_string(i);
    const std::string& text = expect_scalar(node.items[i], item_key, numeric ? "an integer" : "a name");
    if constexpr (std::is_same_v<T, std::string>) {
      out.push_back(text);
    } else {
      try {
        const std::int64_t v = parse_integer(text);
        if (std::is_unsigned_v<T> && v < 0) throw UnitError("negative");
        out.push_back(static_cast<T>(v));
      } catch (const UnitError&) {
        throw_at<UnitError>(node.items[i].pos, item_key, "'" + text + "' is not an integer");
      }
    }
    (void)numeric;
  }
  return out;
}

ConfigNode list_node(const std::vector<std::string>& items) {
  ConfigNode n = ConfigNode::make_sequence();
  for (const auto& s : items) n.items.push_back(ConfigNode::make_scalar(s));
  return n;
}

// `no_tier`: every policy is as_recorded, so the capacity may be left out
// (and so may the section): 0 bytes, written "none", not resolved back.
CacheSpec resolve_cache(const ConfigNode* given, const ConfigNode& root, ConfigNode& resolved, bool no_tier) {
  const ConfigNode none = ConfigNode::make_map(root.pos);
  if (!given && !no_tier) throw_at(root.pos, "", "missing key 'cache' (cache: {capacity: 2GiB or 50%})");
  const ConfigNode* node = given ? given : &none;
  expect_map(*node, "cache", false);
  reject_unknown_keys(*node, "cache", {"capacity", "granularity", "allocator", "pin", "size_change", "ignore_sizes"});
  CacheSpec c;
  const ConfigNode* capacity = node->find("capacity");
  if (!capacity && !no_tier) {
    throw_at(node->pos, "cache", "missing key 'capacity' (e.g. 2GiB, or 50% of the trace's footprint)");
  }
  if (capacity && no_tier) c.unused_capacity = capacity->pos;
  resolved = ConfigNode::make_map();
  if (capacity) {
    c.capacity = parse_capacity(*capacity);
    resolved.set("capacity", ConfigNode::make_scalar(c.capacity.text));
  } else {
    c.capacity.text = "none";
  }
  // Block granularity: "whole" (the trace's blocks) or a piece size.
  std::string granularity = "whole";
  if (const ConfigNode* g = node->find("granularity"); g && !g->is_null()) {
    granularity = expect_scalar(*g, "cache.granularity", "'whole' or a size such as 2MiB");
    if (granularity != "whole") {
      try {
        c.granularity_bytes = parse_bytes(granularity);
      } catch (const UnitError& e) {
        throw_at<UnitError>(g->pos, "cache.granularity", std::string(e.what()) + "; expected 'whole' or a size such as 2MiB");
      }
      if (c.granularity_bytes == 0) throw_at(g->pos, "cache.granularity", "piece size must be > 0");
    }
  }
  resolved.set("granularity", ConfigNode::make_scalar(granularity));
  const ConfigNode* alloc = node->find("allocator");
  const ConfigNode default_alloc = ConfigNode::make_scalar("bytes", node->pos);
  const ResolvedComponent a = resolve_component(alloc && !alloc->is_null() ? *alloc : default_alloc, "cache.allocator",
                                                "slot allocator", SlotAllocatorRegistry::instance());
  c.allocator = a.choice;
  resolved.set("allocator", a.resolved);
  std::string size_change = "refetch";
  if (const ConfigNode* sc = node->find("size_change"); sc && !sc->is_null()) {
    size_change = expect_scalar(*sc, "cache.size_change", "refetch or hit");
    if (size_change != "refetch" && size_change != "hit") {
      const std::string near = closest_match(lower(size_change), {"refetch", "hit"});
      throw_at(sc->pos, "cache.size_change",
               "'" + size_change + "' is not one of: refetch, hit" + (near.empty() ? "" : " (did you mean '" + near + "'?)"));
    }
  }
  c.size_change = size_change == "hit" ? SizeChange::hit : SizeChange::refetch;
  resolved.set("size_change", ConfigNode::make_scalar(size_change));
  std::string ignore = "false";
  if (const ConfigNode* ig = node->find("ignore_sizes"); ig && !ig->is_null()) {
    ignore = expect_scalar(*ig, "cache.ignore_sizes", "true or false");
    if (ignore != "true" && ignore != "false") {
      const bool near = ignore == "True" || ignore == "TRUE" || ignore == "False" || ignore == "FALSE";
      throw_at(ig->pos, "cache.ignore_sizes",
               "'" + ignore + "' is not true or false" + (near ? " (did you mean '" + lower(ignore) + "'?)" : ""));
    }
    c.ignore_sizes = ignore == "true";
    // Every block one unit: the capacity is a count of blocks, and nothing
    // that places or splits bytes applies.
    if (c.ignore_sizes && !c.capacity.is_fraction &&
        c.capacity.text.find_first_not_of("0123456789 ") != std::string::npos) {
      throw_at(capacity->pos, "cache.capacity",
               "with cache.ignore_sizes the capacity is a number of blocks (e.g. 4897) or a share of the distinct "
               "blocks (e.g. 10%), not '" + c.capacity.text + "'");
    }
    if (c.ignore_sizes && c.granularity_bytes != 0) {
      throw_at(ig->pos, "cache.ignore_sizes", "cannot be combined with cache.granularity " + granularity +
                                                  " (pieces have sizes; ignore them and the split means nothing)");
    }
    if (c.ignore_sizes && c.allocator.impl != "bytes") {
      throw_at(ig->pos, "cache.ignore_sizes",
               "needs cache.allocator bytes (allocator '" + c.allocator.impl + "' places bytes: it would round each "
               "one-unit block up to its alignment)");
    }
  }
  resolved.set("ignore_sizes", ConfigNode::make_scalar(ignore));

  ConfigNode pin_resolved = ConfigNode::make_map();
  std::vector<std::string> blocks_text, layers_text, kinds;
  if (const ConfigNode* pin = node->find("pin"); pin && !pin->is_null()) {
    expect_map(*pin, "cache.pin");
    reject_unknown_keys(*pin, "cache.pin", {"blocks", "layers", "kinds", "segments"});
    if (const ConfigNode* b = pin->find("blocks")) c.pinned.blocks = parse_list<BlockId>(*b, "cache.pin.blocks", true);
    if (const ConfigNode* l = pin->find("layers")) c.pinned.layers = parse_list<std::int32_t>(*l, "cache.pin.layers", true);
    if (const ConfigNode* k = pin->find("kinds")) c.pinned.kinds = parse_list<std::string>(*k, "cache.pin.kinds", false);
    if (const ConfigNode* g = pin->find("segments")) {
      c.pinned.segments = parse_list<std::string>(*g, "cache.pin.segments", false);
    }
  }
  for (auto b : c.pinned.blocks) blocks_text.push_back(std::to_string(b));
  for (auto l : c.pinned.layers) layers_text.push_back(std::to_string(l));
  pin_resolved.set("blocks", list_node(blocks_text));
  pin_resolved.set("layers", list_node(layers_text));
  pin_resolved.set("kinds", list_node(c.pinned.kinds));
  pin_resolved.set("segments", list_node(c.pinned.segments));
  resolved.set("pin", std::move(pin_resolved));
  return c;
}

std::vector<PolicyChoice> resolve_policies(const ConfigNode* node, const ConfigNode& root, ConfigNode& resolved) {
  if (!node) throw_at(root.pos, "", "missing key 'policies' (a list, e.g. policies: [{impl: lru}])");
  expect_sequence(*node, "policies");
  if (node->items.empty()) throw_at(node->pos, "policies", "empty list: name at least one policy");
  std::vector<PolicyChoice> out;
  resolved = ConfigNode::make_sequence();
  for (std::size_t i = 0; i < node->items.size(); ++i) {
    const std::string key = "policies." + std::to_string(i);
    // An entry's own `prefetch:` list (engine_options.h) is not a policy parameter.
    ConfigNode item = node->items[i];
    const ConfigNode* own = item.is_map() ? item.find("prefetch") : nullptr;
    PolicyChoice choice;
    ConfigNode prefetch_r;
    if (own) {
      choice.has_prefetch = true;
      choice.prefetchers = resolve_prefetch_list(own, key + ".prefetch", prefetch_r, &choice.prefetcher_user_params);
      item.erase("prefetch");
    }
    // So is its `admission:` (sim/cache/i_admission_policy.h).
    const ConfigNode* admission = item.is_map() ? item.find("admission") : nullptr;
    ResolvedComponent admission_r;
    if (admission) {
      admission_r = resolve_component(*admission, key + ".admission", "admission policy", AdmissionRegistry::instance());
      choice.admission = admission_r.choice;
      choice.admission_user_params = admission_r.user_params;
      item.erase("admission");
    }
    // as_recorded is the program engine's (no policy object): every copy the
    // captured program made (sim/engine/program/program_engine.h).
    const ConfigNode* impl = item.is_map() ? item.find("impl") : &item;
    ResolvedComponent r;
    if (impl != nullptr && impl->is_scalar() && impl->scalar == kAsRecordedPolicy) {
      if (choice.has_prefetch || admission || (item.is_map() && item.entries.size() != 1)) {
        throw_at(item.pos, key,
                 "'" + std::string(kAsRecordedPolicy) +
                     "' replays the captured program's own copies: it takes no parameters, prefetch or admission");
      }
      r.choice.impl = kAsRecordedPolicy;
      r.resolved = ConfigNode::make_map(item.pos);
      r.resolved.set("impl", ConfigNode::make_scalar(kAsRecordedPolicy));
    } else {
      r = resolve_component(item, key, "policy", PolicyRegistry::instance());
    }
    choice.choice = r.choice;
    choice.user_params = r.user_params;
    if (choice.has_prefetch) r.resolved.set("prefetch", std::move(prefetch_r));
    if (admission) r.resolved.set("admission", std::move(admission_r.resolved));
    out.push_back(std::move(choice));
    resolved.items.push_back(r.resolved);
  }
  return out;
}

// Every key and scalar of `node` is UTF-8, or an InputError names the first
// that is not, where it was written and the byte.
void require_utf8(const ConfigNode& node, const std::string& key) {
  std::size_t bad = 0;
  if (node.is_scalar() && !valid_utf8(node.scalar, &bad)) {
    throw_at(node.pos, key,
             "'" + to_valid_utf8(node.scalar) + "' is not valid UTF-8 (byte " + std::to_string(bad) +
                 "); results store the scenario as UTF-8 text (a file name: rename it, or link it under a UTF-8 name)");
  }
  for (std::size_t i = 0; i < node.items.size(); ++i) require_utf8(node.items[i], join_key(key, std::to_string(i)));
  for (const ConfigEntry& e : node.entries) {
    if (!valid_utf8(e.key, &bad)) throw_at(e.key_pos, key, "a key that is not valid UTF-8 (byte " + std::to_string(bad) + ")");
    require_utf8(e.value, join_key(key, e.key));
  }
}

}  // namespace

Scenario resolve_scenario_tree(const ConfigNode& tree, const std::filesystem::path& base_dir,
                               const std::string& default_name, const std::string& source) {
  expect_map(tree, "", false);
  reject_unknown_keys(tree, "", top_level_keys());
  const std::vector<std::string> sections = {"engine", "hardware", "workload",  "cache",  "policies",
                                             "outputs", "sweep",   "prefetch", "bandwidth", "serving"};
  const ParamValues top = resolve_params(tree, "", "scenario", top_specs(), sections);

  Scenario s;
  s.source = source;
  s.name = top.text("name").empty() ? default_name : top.text("name");
  s.description = top.text("description");
  // The resolved scenario is written to summary.json and results.h5 as
  // UTF-8 text: refused now, not after the run (or stored damaged).
  require_utf8(tree, "");
  if (std::size_t bad = 0; !valid_utf8(s.name, &bad)) {
    throw_at(tree.pos, "name", "the scenario's name, '" + to_valid_utf8(s.name) + "' from its file name, is not valid "
                                   "UTF-8 (byte " + std::to_string(bad) + "); set name: in the scenario");
  }
  ResolvedComponent engine = resolve_engine_section(tree);
  s.engine = engine.choice;
  // Every optional key written is read by the engine, or refused before it is read.
  const ConfigNode* workload_node = tree.find("workload");
  check_engine_uses(tree, s.engine.impl, workload_node != nullptr && is_generated_workload(*workload_node));
  s.decision_clock = parse_decision_clock(top.text("decision_clock"));
  s.seed = static_cast<std::uint64_t>(top.integer("seed"));

  ConfigNode hardware_r, workload_r, cache_r, policies_r;
  s.hardware = resolve_hardware(tree.find("hardware"), base_dir, hardware_r);
  if (workload_node && is_generated_workload(*workload_node)) {  // workload: {generator: ..., model: ...}
    s.workload = resolve_generated_workload(*workload_node, base_dir, s.seed, s.hardware.compute, workload_r);
  } else {
    s.workload = resolve_workload(workload_node, tree, base_dir, workload_r);
  }
  // Policies first: whether there is a fast tier (cache.capacity) depends on them.
  s.policies = resolve_policies(tree.find("policies"), tree, policies_r);
  s.cache = resolve_cache(tree.find("cache"), tree, cache_r, only_as_recorded_policies(tree));
  ConfigNode prefetch_r, bandwidth_r, serving_r;
  s.prefetchers = resolve_prefetch_list(tree.find("prefetch"), "prefetch", prefetch_r);
  const BandwidthOptions bandwidth = resolve_bandwidth_options(tree.find("bandwidth"), bandwidth_r);
  s.segment_shares = bandwidth.segment_shares;
  s.reservation = bandwidth.reservation;
  const ServingOptions serving = resolve_serving_options(tree.find("serving"), serving_r);
  s.kv_resident = serving.kv_resident;
  s.occupancy_sample_ns = serving.occupancy_sample_ns;
  const ConfigNode empty = ConfigNode::make_map(tree.pos);
  const ConfigNode* outputs = tree.find("outputs");
  const ParamValues out = resolve_params(outputs && !outputs->is_null() ? *outputs : empty, "outputs", "outputs",
                                         outputs_specs());
  s.outputs.dir = out.text("dir").empty() ? "flashsim-results/" + safe_folder_name(s.name) : out.text("dir");
  s.outputs.window_ns = out.duration_ns("window");

  ConfigNode& r = s.resolved;
  r = ConfigNode::make_map();
  r.set("name", ConfigNode::make_scalar(s.name));
  r.set("description", ConfigNode::make_scalar(s.description));
  r.set("engine", std::move(engine.resolved));
  r.set("decision_clock", ConfigNode::make_scalar(top.text("decision_clock")));
  r.set("seed", ConfigNode::make_scalar(top.text("seed")));
  r.set("hardware", std::move(hardware_r));
  r.set("workload", std::move(workload_r));
  r.set("cache", std::move(cache_r));
  r.set("policies", std::move(policies_r));
  r.set("prefetch", std::move(prefetch_r));
  r.set("bandwidth", std::move(bandwidth_r));
  r.set("serving", std::move(serving_r));
  ConfigNode outputs_r = ConfigNode::make_map();
  outputs_r.set("dir", ConfigNode::make_scalar(s.outputs.dir));
  outputs_r.set("window", ConfigNode::make_scalar(out.text("window")));
  r.set("outputs", std::move(outputs_r));
  drop_unused_keys(r, s.engine.impl, s.workload.generated);
  return s;
}

}  // namespace flashsim
