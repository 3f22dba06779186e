// portasolve.ndimage: smoothing passes over a 2-D image.
#include <string>
#include <vector>

#include "solvers/smoothing/smooth.hpp"
#include "src/arrays.hpp"
#include "src/bindings.hpp"
#include "src/session.hpp"
#include "src/signals.hpp"

namespace portasolve::python {

namespace {

namespace sm = portasolve::smoothing;

// kernel "box" (radius), "gaussian" (sigma, truncate) or "weighted" (weights:
// a square matrix of odd side); border: the solver's names (SciPy's meanings).
// image and output: NumPy arrays, or GPU arrays used in place (arrays.hpp),
// of the same shape; output is written.
template <class T>
void smooth(const py::object& image, const py::object& output, const std::string& kernel, int radius, double sigma,
            double truncate, const Array<double>& weights, const std::string& border, double cval,
            std::int64_t passes) {
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

  const GridArgument<T> in(image, "input", /*writable=*/false);
  const GridArgument<T> out(output, "output", /*writable=*/true);
  if (in.rows() != out.rows() || in.cols() != out.cols()) throw py::value_error("output must have the input's shape");
  {
    py::gil_scoped_release release;
    sm::check(options, static_cast<std::int64_t>(in.rows()), static_cast<std::int64_t>(in.cols()));
    const View2D<const T> input = in.view(/*copy_in=*/true);
    const View2D<T> result = out.view(/*copy_in=*/false);
    // Ctrl-C between launches (a pass, or a fused group of passes, each).
    sm::smooth<T>(input, result, options, [](std::int64_t) { throw_if_python_interrupted(); });
    out.store(result);
  }
}

template <class T>
void bind_smooth(py::module_& module, const char* name) {
  module.def(name, &smooth<T>,
             "smooth(image, output, kernel, radius, sigma, truncate, weights, border, cval, passes): the smoothed "
             "image into output (2-D, C-contiguous, the image's shape and dtype; NumPy, or GPU arrays in CUDA builds)",
             py::arg("image"), py::arg("output"), py::arg("kernel"), py::arg("radius"), py::arg("sigma"),
             py::arg("truncate"), py::arg("weights"), py::arg("border"), py::arg("cval"), py::arg("passes"));
}

}  // namespace

void bind_smoothing(py::module_& module) {
  bind_smooth<double>(module, "smooth_float64");
  bind_smooth<float>(module, "smooth_float32");
}

}  // namespace portasolve::python
