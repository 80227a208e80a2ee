// Parameters of Python components: their defaults' Python types become
// declared ParamSpecs, so a scenario's `params:` are checked and typed by
// the same resolver as for C++ components (sim/core/params.h).
#include "python/native/python_components.h"
#include "python/native/python_registration.h"

#include "sim/core/errors.h"

namespace py = pybind11;

namespace flashsim::python {

std::vector<ParamSpec> param_specs(const std::string& owner, const py::dict& defaults) {
  std::vector<ParamSpec> specs;
  for (const auto& [k, v] : defaults) {
    ParamSpec s;
    if (!py::isinstance<py::str>(k) || !is_component_name(k.cast<std::string>())) {
      throw InputError(owner + ": parameter name " + std::string(py::repr(k)) +
                       ": expected a str of letters, digits and '_'");
    }
    s.name = k.cast<std::string>();
    if (s.name == "impl" || s.name == "params" || s.name == "prefetch" || s.name == "admission") {
      throw InputError(owner + ": parameter '" + s.name + "' is a key of every scenario entry; choose another name");
    }
    s.doc = "set in Python";
    // bool before int: Python's bool is an int.
    if (py::isinstance<py::bool_>(v)) {
      s.type = ParamType::choice;
      s.choices = {"true", "false"};
      s.default_value = v.cast<bool>() ? "true" : "false";
    } else if (py::isinstance<py::int_>(v)) {
      s.type = ParamType::integer;
      long long value = 0;
      try {
        value = v.cast<long long>();
      } catch (const py::cast_error&) {
        throw InputError(owner + ": parameter '" + s.name + "': default " + std::string(py::repr(v)) +
                         " does not fit in 64 bits");
      }
      s.default_value = std::to_string(value);
    } else if (py::isinstance<py::float_>(v)) {
      s.type = ParamType::real;
      s.default_value = py::str(py::repr(v));
    } else if (py::isinstance<py::str>(v)) {
      s.type = ParamType::text;
      s.default_value = v.cast<std::string>();
    } else {
      throw InputError(owner + ": parameter '" + s.name + "': default must be bool, int, float or str, not " +
                       std::string(py::str(py::type::of(v).attr("__name__"))));
    }
    specs.push_back(std::move(s));
  }
  return specs;
}

bool is_component_name(const std::string& name) {
  if (name.empty() || (name[0] >= '0' && name[0] <= '9')) return false;
  for (char c : name) {
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) return false;
  }
  return true;
}

py::dict param_kwargs(const std::vector<ParamSpec>& specs, const ParamValues& values) {
  py::dict kwargs;
  for (const ParamSpec& s : specs) {
    const py::str key(s.name);
    switch (s.type) {
      case ParamType::choice: kwargs[key] = py::bool_(values.text(s.name) == "true"); break;
      case ParamType::integer: kwargs[key] = py::int_(values.integer(s.name)); break;
      case ParamType::real: kwargs[key] = py::float_(values.real(s.name)); break;
      default: kwargs[key] = py::str(values.text(s.name)); break;
    }
  }
  return kwargs;
}

}  // namespace flashsim::python
