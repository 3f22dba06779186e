// portasolve.lorenz05: an ensemble of Lorenz (2005) model states advanced by
// RK4 on the device, held there between calls.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

#include "core/errors.hpp"
#include "solvers/lorenz05/ensemble.hpp"
#include "solvers/lorenz05/parameters.hpp"
#include "src/arrays.hpp"
#include "src/bindings.hpp"
#include "src/session.hpp"
#include "src/signals.hpp"

namespace portasolve::python {

namespace {

namespace lz = portasolve::lorenz05;

// visit(key, field) for each field of the parameters and its key in the
// parameters dict, in the dict's order.
template <class Parameters, class Visit>
void for_each_parameter(Parameters& p, Visit&& visit) {
  visit("model", p.model);
  visit("model_size", p.model_size);
  visit("forcing", p.forcing);
  visit("delta_t", p.delta_t);
  visit("space_time_scale", p.space_time_scale);
  visit("coupling", p.coupling);
  visit("K", p.K);
  visit("smooth_steps", p.smooth_steps);
}

py::dict parameters_dict(const lz::ModelParameters& p) {
  py::dict d;
  for_each_parameter(p, [&](const char* key, const auto& field) { d[key] = field; });
  return d;
}

lz::ModelParameters parameters_from_dict(const py::dict& d) {
  lz::ModelParameters p;
  for_each_parameter(p, [&](const char* key, auto& field) { field = d[key].cast<std::decay_t<decltype(field)>>(); });
  return p;
}

// DART's model III defaults (coupling 2.5, the paper's), Lorenz 96 for model
// 1, model III's N, F, dt and K for model 2.
py::dict defaults(int model) {
  lz::ModelParameters p = model == 1 ? lz::lorenz96_defaults() : lz::model_three_defaults();
  p.model = model;
  return parameters_dict(p);
}

// The members' states (E x N) on the device and the ensemble that steps them.
template <class T>
class DeviceEnsemble : public HoldsDeviceMemory {
 public:
  // Steps between checks for Ctrl-C (a check takes the GIL).
  static constexpr std::int64_t steps_per_check = 64;

  DeviceEnsemble(const py::dict& parameters, const std::string& layout, const Array<T>& state) {
    ensure_kokkos();
    const lz::ModelParameters p = parameters_from_dict(parameters);
    lz::check(p);
    const HostArray2D<const T> host = read_view(state, "state");
    if (host.extent(0) < 1) throw py::value_error("state must hold at least one member (row)");
    if (static_cast<int>(host.extent(1)) != p.model_size)
      throw py::value_error("state has " + std::to_string(host.extent(1)) + " columns, model_size is " +
                            std::to_string(p.model_size));
    ensemble_ = std::make_unique<lz::Ensemble<T>>(p, lz::layout_from_name(layout));
    states_ = View2D<T>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("lorenz05_states")), host.extent(0),
                        host.extent(1));
    Kokkos::deep_copy(states_, device_view(host, "lorenz05_upload"));
    parameters_ = p;
  }

  void release() override {
    ensemble_.reset();
    states_ = View2D<T>();
  }

  void advance(std::int64_t steps) {
    ensure_kokkos();  // raises once Kokkos is finalized (the states are gone)
    if (steps < 0) throw py::value_error("steps must be >= 0, got " + std::to_string(steps));
    py::gil_scoped_release release;
    for (std::int64_t done = 0; done < steps;) {
      const std::int64_t now = std::min(steps_per_check, steps - done);
      ensemble_->advance(states_, now);
      Kokkos::fence();
      done += now;
      throw_if_python_interrupted();
    }
    steps_ += steps;
  }

  Array<T> state() const {
    ensure_kokkos();
    Array<T> result =
        new_array<T>(static_cast<py::ssize_t>(states_.extent(0)), static_cast<py::ssize_t>(states_.extent(1)));
    const HostArray2D<T> out = write_view(result, "state");
    Kokkos::deep_copy(out, states_);
    return result;
  }

  // Per point: mean and spread (sample standard deviation) over the members.
  py::tuple statistics() const {
    ensure_kokkos();
    const lz::EnsembleStatistics s = lz::ensemble_statistics(states_);
    Array<double> mean(static_cast<py::ssize_t>(s.mean.size())), spread(static_cast<py::ssize_t>(s.spread.size()));
    std::copy(s.mean.begin(), s.mean.end(), mean.mutable_data());
    std::copy(s.spread.begin(), s.spread.end(), spread.mutable_data());
    return py::make_tuple(mean, spread);
  }

  std::string layout() const {
    ensure_kokkos();
    return lz::name_of(ensemble_->layout());
  }
  std::int64_t steps() const { return steps_; }
  py::dict parameters() const { return parameters_dict(parameters_); }

 private:
  lz::ModelParameters parameters_;
  std::unique_ptr<lz::Ensemble<T>> ensemble_;
  View2D<T> states_;
  std::int64_t steps_ = 0;
};

template <class T>
void bind_ensemble(py::module_& module, const char* name) {
  py::class_<DeviceEnsemble<T>>(module, name,
                                "members' states (E x N) on the device, advanced by RK4 steps of one Lorenz 2005 "
                                "model")
      .def(py::init<const py::dict&, const std::string&, const Array<T>&>(), py::arg("parameters"), py::arg("layout"),
           py::arg("state"))
      .def("advance", &DeviceEnsemble<T>::advance, py::arg("steps"))
      .def("state", &DeviceEnsemble<T>::state)
      .def("statistics", &DeviceEnsemble<T>::statistics)
      .def_property_readonly("layout", &DeviceEnsemble<T>::layout)
      .def_property_readonly("steps", &DeviceEnsemble<T>::steps)
      .def_property_readonly("parameters", &DeviceEnsemble<T>::parameters);
}

}  // namespace

void bind_lorenz05(py::module_& module) {
  module.def("lorenz05_defaults", &defaults, py::arg("model"),
             "the parameters (dict) a model starts from: DART's model III, Lorenz 96 for model 1");
  py::list layouts;
  for (const std::string& name : lz::layout_names()) layouts.append(name);
  module.attr("lorenz05_layouts") = layouts;
  bind_ensemble<double>(module, "Lorenz05Ensemble_float64");
  bind_ensemble<float>(module, "Lorenz05Ensemble_float32");
}

}  // namespace portasolve::python
