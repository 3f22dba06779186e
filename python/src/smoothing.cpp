// portasolve.ndimage: smoothing passes over a 2-D image.
#include <string>
#include <vector>

#include "python/src/arrays.hpp"
#include "python/src/bindings.hpp"
#include "python/src/session.hpp"
#include "python/src/signals.hpp"
#include "solvers/smoothing/smooth.hpp"

namespace portasolve::python {

namespace {

namespace sm = portasolve::smoothing;

// kernel "box" (radius), "gaussian" (sigma, truncate) or "weighted" (weights:
// a square matrix of odd side); border: the solver's names (SciPy's meanings).
template <class T>
Array<T> smooth(const Array<T>& image, const std::string& kernel, int radius, double sigma, double truncate,
                const Array<double>& weights, const std::string& border, double cval, std::int64_t passes) {
  ensure_kokkos();
  sm::SmoothingOptions options;
  options.kernel = sm::kernel_from_name(kernel);
  options.radius = radius;
  options.sigma = sigma;
  options.truncate = truncate;
  if (options.kernel == sm::KernelKind::weighted) {
    require_shape(weights, "weights", 2);
    if (weights.shape(0) != weights.shape(1)) throw py::value_error("weights must be a square matrix");
    options.weights_size = static_cast<int>(weights.shape(0));
    options.weights.assign(weights.data(), weights.data() + weights.size());
  }
  options.border = sm::border_from_name(border);
  options.constant_value = cval;
  options.passes = passes;

  const HostArray2D<const T> in = read_view(image, "input");
  Array<T> result = new_array<T>(image.shape(0), image.shape(1));
  const HostArray2D<T> out = write_view(result, "output");
  {
    py::gil_scoped_release release;
    sm::check(options, static_cast<std::int64_t>(in.extent(0)), static_cast<std::int64_t>(in.extent(1)));
    const View2D<const T> input = device_view(in, "smoothing_input");
    const View2D<T> output = device_view(out, "smoothing_output", /*copy=*/false);
    // Ctrl-C between launches (a pass, or a fused group of passes, each).
    sm::smooth<T>(input, output, options, [](std::int64_t) { throw_if_python_interrupted(); });
    to_host(output, out);
  }
  return result;
}

template <class T>
void bind_smooth(py::module_& module, const char* name) {
  module.def(name, &smooth<T>,
             "smooth(image, kernel, radius, sigma, truncate, weights, border, cval, passes) -> new image "
             "(2-D, C-contiguous)",
             py::arg("image"), py::arg("kernel"), py::arg("radius"), py::arg("sigma"), py::arg("truncate"),
             py::arg("weights"), py::arg("border"), py::arg("cval"), py::arg("passes"));
}

}  // namespace

void bind_smoothing(py::module_& module) {
  bind_smooth<double>(module, "smooth_float64");
  bind_smooth<float>(module, "smooth_float32");
}

}  // namespace portasolve::python
