// Prefetchers written in Python: an IPrefetcher whose on_access calls the
// Python object's on_access(a, view, actions) (sim/prefetch/i_prefetcher.h).
// `view` and `actions` are handles valid only during that call: the driver's
// objects behind them live on the stack of the access, so a handle kept by
// Python past the call raises instead of reading freed memory.
#include <memory>

#include "python/native/python_components.h"
#include "python/native/python_registration.h"
#include "python/native/tier_handles.h"
#include "sim/core/errors.h"
#include "sim/prefetch/i_prefetcher.h"

namespace py = pybind11;

namespace flashsim::python {
namespace {

class PythonPrefetcher final : public IPrefetcher {
 public:
  PythonPrefetcher(std::string name, py::object object) : name_(std::move(name)), object_(std::move(object)) {
    py::gil_scoped_acquire gil;
    if (!py::hasattr(object_, "on_access")) throw InputError("python prefetcher '" + name_ + "': no method on_access");
    wants_preview_ = py::hasattr(object_, "preview") &&
                     (!py::hasattr(object_, "wants_preview") || py::bool_(object_.attr("wants_preview")));
    view_ = py::cast(FastTierViewHandle{});
    actions_ = py::cast(PrefetchActionsHandle{});
  }
  ~PythonPrefetcher() override {
    py::gil_scoped_acquire gil;
    object_ = view_ = actions_ = py::object();
  }
  std::string_view name() const override { return name_; }

  void on_access(const PrefetchAccess& a, const IFastTierView& view, IPrefetchActions& actions) override {
    py::gil_scoped_acquire gil;
    auto& v = view_.cast<FastTierViewHandle&>();
    auto& act = actions_.cast<PrefetchActionsHandle&>();
    v.view = &view;
    act.actions = &actions;
    struct Invalidate {
      FastTierViewHandle& v;
      PrefetchActionsHandle& act;
      ~Invalidate() {
        v.view = nullptr;
        act.actions = nullptr;
      }
    } invalidate{v, act};
    guarded([&] { return object_.attr("on_access")(a, view_, actions_); });
  }

  bool wants_preview() const override { return wants_preview_; }
  void preview(const AccessRecord& record, std::uint64_t access_index) override {
    py::gil_scoped_acquire gil;
    guarded([&] { return object_.attr("preview")(record, access_index); });
  }

 private:
  template <class F>
  py::object guarded(F&& f) const {
    return call_guarded("python prefetcher '" + name_ + "'", std::forward<F>(f));
  }
  std::string name_;
  py::object object_, view_, actions_;
  bool wants_preview_ = false;
};

}  // namespace

void register_prefetcher(const std::string& name, py::object factory, const std::string& summary,
                         const py::dict& params) {
  register_python_component(
      PrefetcherRegistry::instance(), "prefetcher", "register_prefetcher", name, std::move(factory), summary, params,
      [name](const py::object& f, const PrefetcherContext& c, const py::dict& kwargs) -> std::unique_ptr<IPrefetcher> {
        return std::make_unique<PythonPrefetcher>(name, f(make_context(c), **kwargs));
      });
}

}  // namespace flashsim::python
