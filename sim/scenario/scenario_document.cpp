#include "sim/scenario/scenario_document.h"

#include <algorithm>

#include "sim/scenario/embedded_files.h"
#include "sim/scenario/param_check.h"

namespace flashsim {

namespace {

void set_positions(ConfigNode& node, const SourcePos& pos) {
  node.pos = pos;
  for (auto& item : node.items) set_positions(item, pos);
  for (auto& e : node.entries) {
    e.key_pos = pos;
    set_positions(e.value, pos);
  }
}

SweepAxis parse_axis(const std::string& path, const SourcePos& key_pos, const ConfigNode& values) {
  const std::string key = "sweep." + path;
  try {
    (void)split_dotted_path(path);
  } catch (const InputError& e) {
    throw_at(key_pos, key, e.what());
  }
  if (path == "sweep" || path.starts_with("sweep.")) throw_at(key_pos, key, "a sweep cannot sweep itself");
  // One scenario run writes one results folder under one name: sweeping
  // these would silently fold every point into the first point's.
  for (const char* fixed : {"name", "description", "outputs", "outputs.dir"}) {
    if (path == fixed) throw_at(key_pos, key, "'" + path + "' names the whole run and cannot be swept");
  }
  expect_sequence(values, key);
  if (values.items.empty()) throw_at(values.pos, key, "empty list: a sweep axis needs at least one value");
  return SweepAxis{path, key_pos, values.items};
}

// The shorthand `lru` for `{impl: lru}` (policies, cache.allocator), made
// explicit so that dotted paths such as policies.0.impl reach into it.
void expand_component(ConfigNode& node) {
  if (!node.is_scalar()) return;
  ConfigNode map = ConfigNode::make_map(node.pos);
  map.set("impl", node, node.pos);
  node = std::move(map);
}

void normalize_shorthands(ConfigNode& tree) {
  if (ConfigNode* policies = tree.find("policies"); policies && policies->is_sequence()) {
    for (auto& item : policies->items) expand_component(item);
  }
  if (ConfigNode* cache = tree.find("cache"); cache && cache->is_map()) {
    if (ConfigNode* allocator = cache->find("allocator")) expand_component(*allocator);
  }
}

}  // namespace

Override parse_override(std::string_view text) {
  const std::size_t eq = text.find('=');
  if (eq == std::string_view::npos || eq == 0) {
    throw InputError("--set '" + std::string(text) + "': expected KEY=VALUE (KEY a dotted path, e.g. cache.capacity=50%)");
  }
  Override out;
  out.path = std::string(text.substr(0, eq));
  const std::string where = "--set " + std::string(text);
  try {
    (void)split_dotted_path(out.path);
  } catch (const InputError& e) {
    throw InputError(where + ": " + e.what());
  }
  const std::string_view value = text.substr(eq + 1);
  out.value = value.empty() ? ConfigNode::make_scalar("") : parse_yaml_text(value, where);
  set_positions(out.value, SourcePos{where, 0, 0});
  return out;
}

std::string engine_set_text(const std::string& impl, const std::vector<std::pair<std::string, std::string>>& params) {
  const auto quoted = [](const std::string& v) {
    std::string out = "\"";
    for (const char c : v) {
      if (c == '"' || c == '\\') out += '\\';
      out += c;
    }
    return out + "\"";
  };
  std::string text = "engine={impl: " + impl;
  for (const auto& [key, value] : params) text += ", " + key + ": " + quoted(value);
  return text + "}";
}

std::string SweepPoint::label() const {
  std::string out;
  for (const auto& [path, value] : assignments) {
    out += (out.empty() ? "" : " ") + path + "=" + to_flow_text(value);
  }
  return out;
}

std::vector<SweepPoint> expand_sweep(const std::vector<SweepAxis>& axes, std::uint64_t max_points) {
  std::uint64_t total = 1;
  std::string sizes;
  bool over = false;
  for (const auto& axis : axes) {
    const std::uint64_t n = axis.values.size();
    sizes += (sizes.empty() ? "" : " x ") + std::to_string(n) + " (" + axis.path + ")";
    if (n != 0 && total > max_points / n) over = true;
    total = over ? total : total * n;
  }
  if (!axes.empty() && (over || total > max_points)) {
    throw InputError(axes.front().pos.file + ": sweep: " + sizes + " points, more than the limit of " + std::to_string(max_points) +
                     "; split the sweep, or raise the limit (flashsim run --max-points N)");
  }
  std::vector<SweepPoint> points(total);
  for (std::size_t i = 0; i < total; ++i) {
    points[i].index = i;
    // Mixed-radix digits of i, last axis least significant.
    std::size_t rest = i;
    std::vector<std::size_t> digit(axes.size());
    for (std::size_t a = axes.size(); a-- > 0;) {
      digit[a] = rest % axes[a].values.size();
      rest /= axes[a].values.size();
    }
    for (std::size_t a = 0; a < axes.size(); ++a) {
      points[i].assignments.emplace_back(axes[a].path, axes[a].values[digit[a]]);
    }
  }
  return points;
}

ScenarioDocument ScenarioDocument::from_text(std::string_view text, const std::string& display_name,
                                             const std::filesystem::path& base_dir,
                                             const std::vector<Override>& overrides) {
  ScenarioDocument doc;
  doc.display_name_ = display_name;
  doc.base_dir_ = base_dir;
  doc.tree_ = parse_yaml_text(text, display_name);
  if (doc.tree_.is_null()) doc.tree_ = ConfigNode::make_map(doc.tree_.pos);
  expect_map(doc.tree_, "");
  normalize_shorthands(doc.tree_);

  if (const ConfigEntry* sweep = doc.tree_.find_entry("sweep")) {
    expect_map(sweep->value, "sweep");
    for (const auto& e : sweep->value.entries) doc.sweep_.push_back(parse_axis(e.key, e.key_pos, e.value));
    doc.tree_.erase("sweep");
  }

  for (const auto& o : overrides) {
    // An override read from a file (a validation suite's `set:`) keeps its position there.
    const SourcePos where = o.value.pos.line > 0 ? o.value.pos : SourcePos{"--set " + o.path + "=" + to_flow_text(o.value), 0, 0};
    if (o.path.starts_with("sweep.")) {
      SweepAxis axis = parse_axis(o.path.substr(6), where, o.value);
      auto it = std::find_if(doc.sweep_.begin(), doc.sweep_.end(), [&](const SweepAxis& a) { return a.path == axis.path; });
      if (it != doc.sweep_.end()) {
        *it = std::move(axis);
      } else {
        doc.sweep_.push_back(std::move(axis));
      }
      continue;
    }
    if (o.path == "sweep") {
      expect_map(o.value, "sweep");
      doc.sweep_.clear();
      for (const auto& e : o.value.entries) doc.sweep_.push_back(parse_axis(e.key, where, e.value));
      continue;
    }
    set_at_path(doc.tree_, o.path, o.value, where);
    // A value fixed on the command line replaces the sweep over the same key.
    std::erase_if(doc.sweep_, [&](const SweepAxis& a) { return a.path == o.path; });
    normalize_shorthands(doc.tree_);
  }
  return doc;
}

ScenarioDocument ScenarioDocument::from_file(const std::filesystem::path& file, const std::vector<Override>& overrides) {
  // A pipe (`run <(cat s.yaml)`, /dev/fd/N) has no folder of its own: its relative paths are the working folder's.
  std::error_code ec;
  const bool regular = std::filesystem::is_regular_file(file, ec);
  return from_text(read_text_file(file, file.string()), file.string(),
                   regular ? file.parent_path() : std::filesystem::current_path(), overrides);
}

ScenarioDocument ScenarioDocument::builtin_default(const std::vector<Override>& overrides) {
  const EmbeddedFile* f = find_embedded_file("default.yaml");
  if (!f) throw Error("this flashsim binary carries no default scenario (scenarios/default.yaml was absent at build time)");
  return from_text(f->data, "<builtin:default.yaml>", std::filesystem::path{}, overrides);
}

Scenario ScenarioDocument::resolve(const SweepPoint& point) const {
  ConfigNode tree = tree_;
  for (const auto& [path, value] : point.assignments) {
    const std::string& key = path;  // clang 14 cannot capture a structured binding
    const auto axis = std::find_if(sweep_.begin(), sweep_.end(), [&](const SweepAxis& a) { return a.path == key; });
    set_at_path(tree, path, value, axis != sweep_.end() ? axis->pos : value.pos);
  }
  std::string default_name = std::filesystem::path(display_name_).stem().string();
  if (display_name_.starts_with("<builtin:")) default_name = "default";
  return resolve_scenario_tree(tree, base_dir_, default_name, display_name_);
}

std::string ScenarioDocument::input_text() const {
  ConfigNode tree = tree_;
  if (!sweep_.empty()) {
    ConfigNode sweep = ConfigNode::make_map();
    for (const auto& axis : sweep_) {
      ConfigNode list = ConfigNode::make_sequence();
      list.items = axis.values;
      sweep.set(axis.path, std::move(list));
    }
    tree.set("sweep", std::move(sweep));
  }
  return to_yaml_text(tree);
}

}  // namespace flashsim
