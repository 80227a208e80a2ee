// A registry of named implementations of one interface (Ramulator 2's
// factory, without its silent duplicate): adding an implementation is adding
// one file with one FLASHSIM_REGISTER line; nothing switches on names.
#pragma once
#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "sim/core/errors.h"
#include "sim/core/params.h"

namespace flashsim {

/// No declarations beyond name, summary and parameters.
struct NoTraits {};

/// `Interface` is the component kind; `Context` what every factory gets
/// beside its parameters (e.g. the cache capacity); `Traits` what else each
/// entry declares next to them (an engine's capabilities and statistics,
/// sim/engine/engine_registry.h), SST's ELI documentation in one place.
template <class Interface, class Context, class Traits = NoTraits>
class Registry {
 public:
  using Factory = std::function<std::unique_ptr<Interface>(const ParamValues&, const Context&)>;
  struct Entry {
    std::string name;
    std::string summary;  ///< one line, with the source (paper) of the algorithm
    std::vector<ParamSpec> params;
    Factory factory;
    Traits traits{};
  };

  static Registry& instance() {
    static Registry registry;
    return registry;
  }

  /// Throws Error on a duplicate name (a build defect, surfaced at start-up).
  bool add(Entry entry) {
    if (entries_.count(entry.name)) throw Error("duplicate registration of '" + entry.name + "'");
    const std::string key = entry.name;
    entries_.emplace(key, std::move(entry));
    return true;
  }

  /// Whether `name` is registered.
  bool has(const std::string& name) const { return entries_.count(name) != 0; }

  /// Throws UnknownNameError listing the registered names.
  const Entry& find(const std::string& name) const {
    auto it = entries_.find(name);
    if (it == entries_.end()) {
      std::string known;
      for (const auto& [n, e] : entries_) known += (known.empty() ? "" : ", ") + n;
      throw UnknownNameError("unknown name '" + name + "' (known: " + known + ")");
    }
    return it->second;
  }

  /// Resolves `user` parameters against the entry's specs and builds it.
  /// Throws UnknownNameError / InputError.
  std::unique_ptr<Interface> create(const std::string& name,
                                    const std::map<std::string, std::string>& user,
                                    const Context& context) const {
    const Entry& e = find(name);
    return e.factory(ParamValues::resolve(name, e.params, user), context);
  }

  /// All entries, sorted by name.
  std::vector<const Entry*> entries() const {
    std::vector<const Entry*> out;
    for (const auto& [n, e] : entries_) out.push_back(&e);
    return out;
  }

 private:
  std::map<std::string, Entry> entries_;
};

}  // namespace flashsim

#define FLASHSIM_CONCAT_INNER(a, b) a##b
#define FLASHSIM_CONCAT(a, b) FLASHSIM_CONCAT_INNER(a, b)
/// Registers `entry_expr` (a Registry<...>::Entry) in `registry_type` at static-init time.
#define FLASHSIM_REGISTER(registry_type, entry_expr)                               \
  [[maybe_unused]] static const bool FLASHSIM_CONCAT(flashsim_registered_, __LINE__) = \
      registry_type::instance().add(entry_expr)
