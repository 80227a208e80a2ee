#include "sim/scenario/config_tree.h"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <sstream>

#include "sim/core/input_file.h"

namespace flashsim {

std::string SourcePos::describe() const {
  if (line <= 0) return file;
  return file + ":" + std::to_string(line) + ":" + std::to_string(column);
}

ConfigNode ConfigNode::make_scalar(std::string text, SourcePos pos) {
  ConfigNode n;
  n.kind = Kind::scalar;
  n.scalar = std::move(text);
  n.pos = std::move(pos);
  return n;
}

ConfigNode ConfigNode::make_map(SourcePos pos) {
  ConfigNode n;
  n.kind = Kind::map;
  n.pos = std::move(pos);
  return n;
}

ConfigNode ConfigNode::make_sequence(SourcePos pos) {
  ConfigNode n;
  n.kind = Kind::sequence;
  n.pos = std::move(pos);
  return n;
}

const ConfigEntry* ConfigNode::find_entry(std::string_view key) const {
  if (kind != Kind::map) return nullptr;
  for (const auto& e : entries) {
    if (e.key == key) return &e;
  }
  return nullptr;
}

const ConfigNode* ConfigNode::find(std::string_view key) const {
  const ConfigEntry* e = find_entry(key);
  return e ? &e->value : nullptr;
}

ConfigNode* ConfigNode::find(std::string_view key) {
  return const_cast<ConfigNode*>(std::as_const(*this).find(key));
}

void ConfigNode::set(std::string key, ConfigNode value, SourcePos key_pos) {
  if (kind != Kind::map) throw Error("ConfigNode::set on a " + std::string(kind_name()));
  for (auto& e : entries) {
    if (e.key == key) {
      e.value = std::move(value);
      return;
    }
  }
  entries.push_back(ConfigEntry{std::move(key), std::move(key_pos), std::move(value)});
}

bool ConfigNode::erase(std::string_view key) {
  auto it = std::find_if(entries.begin(), entries.end(), [&](const ConfigEntry& e) { return e.key == key; });
  if (it == entries.end()) return false;
  entries.erase(it);
  return true;
}

std::string_view ConfigNode::kind_name() const {
  switch (kind) {
    case Kind::null: return "null";
    case Kind::scalar: return "scalar";
    case Kind::sequence: return "list";
    case Kind::map: return "map";
  }
  return "?";
}

namespace {

SourcePos pos_of(const YAML::Mark& mark, const std::string& name) {
  if (mark.line < 0) return SourcePos{name, 0, 0};
  return SourcePos{name, mark.line + 1, mark.column + 1};
}

// yaml-cpp shares an aliased node; the tree copies it. Bounds on the copy
// keep an alias bomb ("billion laughs") or a cycle an error, not exhausted
// memory or stack: far above any real scenario (a 10,000-point sweep is
// ~10^4 nodes).
constexpr std::size_t kMaxNodes = 1'000'000;
constexpr std::size_t kMaxScalarBytes = 64u << 20;
constexpr int kMaxDepth = 256;

struct ExpansionBudget {
  std::size_t nodes = 0;
  std::size_t scalar_bytes = 0;
  int depth = 0;
};

ConfigNode convert(const YAML::Node& node, const std::string& name, ExpansionBudget& budget) {
  ConfigNode out;
  out.pos = pos_of(node.Mark(), name);
  if (++budget.nodes > kMaxNodes) {
    throw_at(out.pos, "", "the YAML expands to more than " + std::to_string(kMaxNodes) +
                              " nodes (aliases of aliases?); a scenario is far smaller");
  }
  if (budget.depth >= kMaxDepth) {
    throw_at(out.pos, "", "the YAML nests deeper than " + std::to_string(kMaxDepth) +
                              " levels (an alias of its own ancestor?)");
  }
  struct Nest {
    int& depth;
    explicit Nest(int& d) : depth(++d) {}
    ~Nest() { --depth; }
  } nest(budget.depth);
  switch (node.Type()) {
    case YAML::NodeType::Undefined:
    case YAML::NodeType::Null:
      out.kind = ConfigNode::Kind::null;
      break;
    case YAML::NodeType::Scalar:
      out.kind = ConfigNode::Kind::scalar;
      budget.scalar_bytes += node.Scalar().size();
      if (budget.scalar_bytes > kMaxScalarBytes) {
        throw_at(out.pos, "", "the YAML expands to more than 64 MiB of text (aliases of long strings?)");
      }
      out.scalar = node.Scalar();
      break;
    case YAML::NodeType::Sequence:
      out.kind = ConfigNode::Kind::sequence;
      for (const auto& item : node) out.items.push_back(convert(item, name, budget));
      break;
    case YAML::NodeType::Map:
      out.kind = ConfigNode::Kind::map;
      for (const auto& kv : node) {
        const SourcePos key_pos = pos_of(kv.first.Mark(), name);
        if (!kv.first.IsScalar()) throw_at(key_pos, "", "a map key must be a plain scalar");
        const std::string key = kv.first.Scalar();
        if (out.find_entry(key)) throw_at(key_pos, key, "repeated in the same map");
        out.entries.push_back(ConfigEntry{key, key_pos, convert(kv.second, name, budget)});
      }
      break;
  }
  return out;
}

void emit(YAML::Emitter& out, const ConfigNode& node) {
  switch (node.kind) {
    case ConfigNode::Kind::null: out << YAML::Null; break;
    case ConfigNode::Kind::scalar: out << node.scalar; break;
    case ConfigNode::Kind::sequence:
      out << YAML::BeginSeq;
      for (const auto& item : node.items) emit(out, item);
      out << YAML::EndSeq;
      break;
    case ConfigNode::Kind::map:
      out << YAML::BeginMap;
      for (const auto& e : node.entries) {
        out << YAML::Key << e.key << YAML::Value;
        emit(out, e.value);
      }
      out << YAML::EndMap;
      break;
  }
}

bool is_index(std::string_view s, std::size_t& index) {
  if (s.empty()) return false;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), index);
  return ec == std::errc() && end == s.data() + s.size();
}

// Optimal string alignment distance: insertions, deletions, substitutions
// and transpositions of neighbours ("lur" -> "lru") each cost 1.
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.size()][b.size()];
}

// Where each document of a YAML stream starts, and whether it holds more
// than a null (an empty document, e.g. a lone trailing '---', holds nothing).
struct DocumentStarts final : YAML::EventHandler {
  std::vector<YAML::Mark> marks;
  bool content = false;  ///< of the last document
  void OnDocumentStart(const YAML::Mark& mark) override {
    marks.push_back(mark);
    content = false;
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override { content = true; }
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override { content = true; }
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
    content = true;
  }
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
    content = true;
  }
  void OnMapEnd() override {}
};

// Empty documents after the first read before a later one is taken for a
// second scenario (each takes at least a '---' line; the bound keeps a
// parser that stops advancing from looping).
constexpr int kMaxEmptyDocuments = 64;

}  // namespace

ConfigNode parse_yaml_text(std::string_view text, const std::string& display_name) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
    // A second document (after `---`) is refused, not dropped; empty ones
    // (a trailing '---') lose nothing and are let be. The parser is asked for
    // a bounded number of documents: YAML::LoadAll loops without end on some
    // malformed input (a stray ']' after the first document, found by fuzzing).
    std::istringstream in{std::string(text)};
    YAML::Parser parser(in);
    DocumentStarts starts;
    bool second = false;
    if (parser.HandleNextDocument(starts)) {
      for (int k = 0; k <= kMaxEmptyDocuments && parser.HandleNextDocument(starts); ++k) {
        if (starts.content || k == kMaxEmptyDocuments) {
          second = true;
          break;
        }
      }
    }
    if (second) {
      throw_at(pos_of(starts.marks.back(), display_name), "",
               "more after the first YAML document (a second document after '---', or a bracket that closes "
               "nothing): one file holds one scenario or profile; split it into files (a folder of scenarios runs "
               "them all)");
    }
  } catch (const YAML::DeepRecursion& e) {
    // yaml-cpp says "bad file" here; the cause is nesting beyond its parser's limit.
    throw_at(pos_of(e.mark, display_name), "",
             "YAML nested more than " + std::to_string(e.depth() - 1) + " levels deep: not a scenario");
  } catch (const YAML::Exception& e) {
    throw_at(pos_of(e.mark, display_name), "", "YAML syntax error: " + e.msg);
  }
  ExpansionBudget budget;
  ConfigNode out = convert(root, display_name, budget);
  if (out.is_null() && out.pos.line == 0) out.pos = SourcePos{display_name, 1, 1};
  return out;
}

std::string read_text_file(const std::filesystem::path& path, const std::string& display_name) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw InputError(display_name + ": is a directory, not a file");
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const std::string problem = input_file_problem(path, false);  // a link loop, a dangling link, no permission ...
    throw InputError(display_name + ": cannot open file" + (problem.empty() ? "" : ": " + problem));
  }
  // Scenarios and profiles are a few KiB: a bound keeps `run /dev/urandom`
  // (or a trace given as the scenario) an error instead of exhausted memory.
  // Read in pieces: a buffer of the bound, zeroed up front, cost more than
  // parsing the file (16 MiB paged in per scenario and profile read).
  constexpr std::size_t kMaxBytes = 16u << 20;
  constexpr std::size_t kPiece = 64u << 10;
  std::string text;
  while (in && text.size() <= kMaxBytes) {
    const std::size_t had = text.size();
    text.resize(had + kPiece);
    in.read(text.data() + had, static_cast<std::streamsize>(kPiece));
    text.resize(had + static_cast<std::size_t>(in.gcount()));
  }
  if (in.bad()) throw InputError(display_name + ": read error");
  if (text.size() > kMaxBytes) throw InputError(display_name + ": larger than 16 MiB: not a scenario or profile file");
  return text;
}

ConfigNode parse_yaml_file(const std::filesystem::path& path, std::string display_name) {
  if (display_name.empty()) display_name = path.string();
  return parse_yaml_text(read_text_file(path, display_name), display_name);
}

std::string to_yaml_text(const ConfigNode& node) {
  YAML::Emitter out;
  out.SetIndent(2);
  emit(out, node);
  std::string text = out.c_str();
  if (text.empty() || text.back() != '\n') text += '\n';
  return text;
}

std::string to_flow_text(const ConfigNode& node) {
  if (node.is_scalar()) return node.scalar;
  YAML::Emitter out;
  out << YAML::Flow;
  emit(out, node);
  return out.c_str();
}

void merge_into(ConfigNode& base, const ConfigNode& overlay) {
  if (overlay.is_null() && !base.is_null()) return;  // nothing to override
  if (base.is_map() && overlay.is_map()) {
    if (overlay.pos.line > 0) base.pos = overlay.pos;  // errors about the merged map point at the override
    for (const auto& e : overlay.entries) {
      if (ConfigNode* existing = base.find(e.key)) {
        merge_into(*existing, e.value);
      } else {
        base.entries.push_back(e);
      }
    }
    return;
  }
  if (base.is_sequence() && overlay.is_sequence()) {
    if (overlay.pos.line > 0) base.pos = overlay.pos;
    for (std::size_t i = 0; i < overlay.items.size(); ++i) {
      if (i < base.items.size()) {
        merge_into(base.items[i], overlay.items[i]);
      } else {
        base.items.push_back(overlay.items[i]);
      }
    }
    return;
  }
  base = overlay;
}

std::vector<std::string> split_dotted_path(std::string_view dotted) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t dot = dotted.find('.', start);
    const std::string_view part = dotted.substr(start, dot == std::string_view::npos ? dotted.npos : dot - start);
    if (part.empty()) throw InputError("bad key path '" + std::string(dotted) + "': empty component");
    parts.emplace_back(part);
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return parts;
}

void set_at_path(ConfigNode& root, std::string_view dotted, ConfigNode value, const SourcePos& where) {
  std::vector<std::string> parts;
  try {
    parts = split_dotted_path(dotted);
  } catch (const InputError& e) {
    throw_at(where, dotted, e.what());
  }
  ConfigNode* node = &root;
  std::string walked;
  bool created = false;  // `node` was made by this call (a list made here may be padded)
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const std::string& part = parts[i];
    std::size_t index = 0;
    const bool numeric = is_index(part, index);
    walked += (walked.empty() ? "" : ".") + part;
    if (node->is_null()) {
      // A missing level: a list if indexed by number (hardware.tiers.1.link), else a map.
      *node = numeric ? ConfigNode::make_sequence(where) : ConfigNode::make_map(where);
      created = true;
    }
    if (node->is_map()) {
      ConfigNode* child = node->find(part);
      created = child == nullptr;
      if (!child) {
        ConfigNode placeholder;
        placeholder.pos = where;
        node->set(part, std::move(placeholder), where);
        child = node->find(part);
      }
      node = child;
    } else if (node->is_sequence()) {
      if (!numeric) throw_at(where, dotted, "'" + walked + "' indexes a list: use a number");
      if (index > node->items.size() && !created) {
        throw_at(where, dotted,
                 "index " + part + " is beyond the list's " + std::to_string(node->items.size()) + " elements");
      }
      // Padding elements are null: merged onto a profile's list they change
      // nothing. They carry `where`: an element left null is this text's doing.
      while (node->items.size() <= index) {
        ConfigNode pad;
        pad.pos = where;
        node->items.push_back(std::move(pad));
      }
      created = created || node->items[index].is_null();
      node = &node->items[index];
    } else {
      // A component named alone (engine: program) stands for {impl: NAME}: say how to give it keys.
      const std::string parent = walked.substr(0, walked.size() - part.size() - (walked.size() > part.size()));
      throw_at(where, dotted,
               "'" + parent + "' is the scalar '" + node->scalar + "', which holds no key '" + part +
                   "'; if it names a component, write it as a map with its keys (in the file: " + parent +
                   ": {impl: " + node->scalar + "}; or --set '" + parent + "={impl: " + node->scalar + ", " + part +
                   ": ...}')");
    }
  }
  *node = std::move(value);
}

namespace {

void collect_sources(const ConfigNode& node, const std::string& own, std::vector<std::string>& out) {
  const auto note = [&](const SourcePos& pos) {
    // Command-line values (--set) have no line; a file's values inherited
    // from a profile are not what changed, so they are not named.
    if (pos.line == 0 && !pos.file.empty() && pos.file != own &&
        std::find(out.begin(), out.end(), pos.file) == out.end()) {
      out.push_back(pos.file);
    }
  };
  note(node.pos);
  for (const ConfigNode& item : node.items) collect_sources(item, own, out);
  for (const ConfigEntry& e : node.entries) collect_sources(e.value, own, out);
}

}  // namespace

SourcePos sources_of(const ConfigNode& node) {
  std::vector<std::string> others;
  collect_sources(node, node.pos.file, others);
  if (others.empty()) return node.pos;
  std::string text;
  for (std::size_t i = 0; i < others.size() && i < 3; ++i) text += (i > 0 ? ", " : "") + others[i];
  if (others.size() > 3) text += " and " + std::to_string(others.size() - 3) + " more";
  if (!node.pos.file.empty()) text += " (over " + node.pos.describe() + ")";
  return SourcePos{text, 0, 0};
}

std::string closest_match(std::string_view word, const std::vector<std::string>& candidates) {
  std::string best;
  std::size_t best_distance = std::max<std::size_t>(2, word.size() / 3) + 1;
  for (const auto& c : candidates) {
    const std::size_t d = edit_distance(word, c);
    if (d < best_distance) {
      best_distance = d;
      best = c;
    }
  }
  return best;
}

}  // namespace flashsim
