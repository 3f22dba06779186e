// portasolve.signal.lombscargle: the classic (SciPy) periodogram.
#include <string>
#include <vector>

#include "python/src/arrays.hpp"
#include "python/src/bindings.hpp"
#include "python/src/session.hpp"
#include "solvers/lombscargle/periodogram.hpp"

namespace portasolve::python {

namespace {

namespace ls = portasolve::lombscargle;

// One series at angular frequencies; T is the precision of the sums and the
// result (t and the frequencies stay double, as in the solver). uniform:
// freqs are evenly spaced, and the grid is rebuilt from its ends so the
// recurrence and NUFFT algorithms apply. weights empty: none; with weights or
// floating_mean the solver takes SciPy 1.15's weighted formulas.
template <class T>
Array<T> lombscargle_classic(const Array<double>& x, const Array<double>& y, const Array<double>& freqs, bool precenter,
                             bool normalize, const std::string& algorithm, bool uniform, const Array<double>& weights,
                             bool floating_mean) {
  ensure_kokkos();
  std::vector<ls::Series> batch(1);
  batch[0].t = to_vector(x, "x");
  batch[0].y = to_vector(y, "y");
  batch[0].weights = to_vector(weights, "weights");
  const std::vector<double> angular = to_vector(freqs, "freqs");
  ls::Options options;
  options.form = ls::Form::classic;
  options.precenter = precenter;
  options.normalize = normalize;
  options.floating_mean = floating_mean;
  options.algorithm = ls::algorithm_from_name(algorithm);

  Array<T> power = new_array<T>(1, static_cast<py::ssize_t>(angular.size()));
  const HostArray2D<T> out = write_view(power, "power");
  {
    py::gil_scoped_release release;
    ls::check_frequencies(angular);
    const ls::FrequencyGrid grid = uniform ? ls::uniform_grid(angular.front(), angular.back(), angular.size(), true)
                                           : ls::explicit_grid(angular, /*angular=*/true);
    ls::Periodogram<T> periodogram(batch, grid, options);
    periodogram.compute();
    to_host(periodogram.power(), out);
  }
  return power;
}

}  // namespace

void bind_lombscargle(py::module_& module) {
  const char* doc =
      "lombscargle_classic(x, y, freqs, precenter, normalize, algorithm, uniform, weights, floating_mean) -> "
      "power[1, M]: SciPy's periodogram at angular frequencies (float64 1-D inputs, C-contiguous; weights empty: "
      "none).";
  module.def("lombscargle_classic_float64", &lombscargle_classic<double>, doc, py::arg("x"), py::arg("y"),
             py::arg("freqs"), py::arg("precenter"), py::arg("normalize"), py::arg("algorithm") = "auto",
             py::arg("uniform") = false, py::arg("weights") = Array<double>(0), py::arg("floating_mean") = false);
  module.def("lombscargle_classic_float32", &lombscargle_classic<float>, doc, py::arg("x"), py::arg("y"),
             py::arg("freqs"), py::arg("precenter"), py::arg("normalize"), py::arg("algorithm") = "auto",
             py::arg("uniform") = false, py::arg("weights") = Array<double>(0), py::arg("floating_mean") = false);
}

}  // namespace portasolve::python
