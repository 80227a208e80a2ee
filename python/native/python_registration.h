// What Python policies and prefetchers share: registering a Python factory
// into a component registry, and turning Python exceptions raised by a
// component's hooks into flashsim errors that name the component.
#pragma once
#include <pybind11/pybind11.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "python/native/python_components.h"
#include "sim/core/errors.h"

namespace flashsim::python {

/// f() with a Python exception (or a failed conversion of what a hook
/// returned) rethrown as Error("<owner>: ..."): library code throws, and the
/// run reports it. `owner` is e.g. "python policy 'py_lru'".
template <class F>
pybind11::object call_guarded(const std::string& owner, F&& f) {
  try {
    return f();
  } catch (pybind11::error_already_set& e) {
    throw Error(owner + ": " + e.what());
  } catch (pybind11::cast_error& e) {
    throw Error(owner + ": a hook returned the wrong type (" + e.what() + ")");
  }
}

/// True for names a scenario can write: [A-Za-z_][A-Za-z0-9_]*.
bool is_component_name(const std::string& name);

/// Adds `factory` under `name` to `registry` with the params declared by
/// `defaults` (param_specs). Each build calls `make(factory, context,
/// kwargs)` with the GIL held, where kwargs are the resolved params; a
/// Python exception there becomes InputError naming the component. Throws
/// InputError when the name is taken or not a component name. `kind` is "policy" or "prefetcher",
/// `api` the Python function's name for messages.
template <class RegistryT, class Make>
void register_python_component(RegistryT& registry, const char* kind, const char* api, const std::string& name,
                               pybind11::object factory, const std::string& summary,
                               const pybind11::dict& defaults, Make make) {
  namespace py = pybind11;
  if (!is_component_name(name)) {
    throw InputError(std::string(api) + ": name '" + name +
                     "': expected letters, digits and '_', not starting with a digit (a scenario names it)");
  }
  if (registry.has(name)) throw InputError(std::string(api) + ": '" + name + "' is already registered (choose another name)");
  if (!PyCallable_Check(factory.ptr())) {
    throw InputError(std::string(api) + ": '" + name + "': the class (or factory) is not callable");
  }
  const std::string owner = std::string("python ") + kind + " '" + name + "'";
  std::vector<ParamSpec> specs = param_specs(owner, defaults);
  // Never freed: the registry is static and outlives the interpreter, and a
  // Python object must not be released after Py_Finalize.
  std::shared_ptr<py::object> shared(new py::object(std::move(factory)), [](py::object*) {});
  registry.add(typename RegistryT::Entry{
      name, summary.empty() ? "written in Python" : summary, specs,
      [owner, shared, specs, make](const ParamValues& p, const auto& context) {
        py::gil_scoped_acquire gil;
        try {
          return make(*shared, context, param_kwargs(specs, p));
        } catch (py::error_already_set& e) {
          throw InputError(owner + ": its factory raised " + e.what());
        }
      }});
}

}  // namespace flashsim::python
