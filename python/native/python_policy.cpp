// Eviction policies written in Python: an IEvictionPolicy whose hooks call
// the Python object's methods (same names as sim/policy/i_eviction_policy.h).
#include <limits>
#include <memory>

#include "python/native/python_components.h"
#include "python/native/python_registration.h"
#include "python/native/tier_handles.h"
#include "sim/core/errors.h"
#include "sim/policy/i_eviction_policy.h"

namespace py = pybind11;

namespace flashsim::python {
namespace {

// on_hit(a), on_miss(a), on_insert(a), on_bypass(a), evict(now_ns, allows)
// -> block or None, remove(block), size(). `a` is a PolicyAccess.
class PythonPolicy final : public IEvictionPolicy {
 public:
  PythonPolicy(std::string name, py::object object) : name_(std::move(name)), object_(std::move(object)) {
    py::gil_scoped_acquire gil;
    for (const char* m : {"on_hit", "on_insert", "evict", "remove", "size"}) {
      if (!py::hasattr(object_, m)) throw InputError("python policy '" + name_ + "': no method " + m);
    }
    has_on_miss_ = py::hasattr(object_, "on_miss");
    has_on_bypass_ = py::hasattr(object_, "on_bypass");
  }
  ~PythonPolicy() override {
    py::gil_scoped_acquire gil;
    object_ = allows_ = py::object();
  }
  std::string_view name() const override { return name_; }
  void on_hit(const PolicyAccess& a) override { call("on_hit", a); }
  void on_miss(const PolicyAccess& a) override {
    if (has_on_miss_) call("on_miss", a);
  }
  void on_insert(const PolicyAccess& a) override { call("on_insert", a); }
  void on_bypass(const PolicyAccess& a) override {
    if (has_on_bypass_) call("on_bypass", a);
  }
  std::optional<BlockIndex> evict(Nanoseconds now_ns, const EvictionFilter& filter) override {
    py::gil_scoped_acquire gil;
    if (!allows_) allows_ = py::cast(EvictionFilterHandle{});
    auto& handle = allows_.cast<EvictionFilterHandle&>();
    handle.filter = &filter;
    struct Invalidate {
      EvictionFilterHandle& h;
      ~Invalidate() { h.filter = nullptr; }
    } invalidate{handle};
    py::object v = guarded([&] { return object_.attr("evict")(now_ns, allows_); });
    if (v.is_none()) return std::nullopt;
    // An int that is a block index; not a bool (True would be block 1).
    if (!py::isinstance<py::int_>(v) || py::isinstance<py::bool_>(v) || v < py::int_(0) ||
        v > py::int_(std::numeric_limits<BlockIndex>::max())) {
      throw Error("python policy '" + name_ + "': evict() returned " + std::string(py::repr(v)) +
                  ", expected a block index it holds (an int >= 0) or None");
    }
    return v.cast<BlockIndex>();
  }
  void remove(BlockIndex block) override {
    py::gil_scoped_acquire gil;
    guarded([&] { return object_.attr("remove")(block); });
  }
  std::size_t size() const override {
    py::gil_scoped_acquire gil;
    py::object v = guarded([&] { return object_.attr("size")(); });
    if (!py::isinstance<py::int_>(v) || py::isinstance<py::bool_>(v) || v < py::int_(0)) {
      throw Error("python policy '" + name_ + "': size() returned " + std::string(py::repr(v)) +
                  ", expected the number of blocks it holds (an int >= 0)");
    }
    return v.cast<std::size_t>();
  }

 private:
  void call(const char* method, const PolicyAccess& a) {
    py::gil_scoped_acquire gil;
    guarded([&] { return object_.attr(method)(a); });
  }
  template <class F>
  py::object guarded(F&& f) const {
    return call_guarded("python policy '" + name_ + "'", std::forward<F>(f));
  }
  std::string name_;
  py::object object_, allows_;
  bool has_on_miss_ = false, has_on_bypass_ = false;
};

}  // namespace

void register_policy(const std::string& name, py::object factory, const std::string& summary,
                     const py::dict& params) {
  register_python_component(
      PolicyRegistry::instance(), "policy", "register_policy", name, std::move(factory), summary, params,
      [name](const py::object& f, const PolicyContext& c, const py::dict& kwargs) -> std::unique_ptr<IEvictionPolicy> {
        return std::make_unique<PythonPolicy>(name, f(c.capacity_bytes, c.block_count, **kwargs));
      });
}

}  // namespace flashsim::python
