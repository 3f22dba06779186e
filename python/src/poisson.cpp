// portasolve.poisson.solve: L X = B with the 5-point Laplacian.
#include <Python.h>

#include <string>

#include "solvers/poisson/solver.hpp"
#include "src/arrays.hpp"
#include "src/bindings.hpp"
#include "src/session.hpp"
#include "src/signals.hpp"

namespace portasolve::python {

namespace {

namespace ps = portasolve::poisson;

py::dict report_dict(const ps::SolveReport& report, const ps::SolverOptions& options) {
  py::list history;
  for (const ps::ResidualCheck& check : report.history)
    history.append(py::make_tuple(check.iteration, check.relative_residual));
  py::dict dict;
  dict["method"] = ps::name_of(report.method);
  dict["boundary"] = ps::name_of(options.boundary);
  dict["iterations"] = report.iterations;
  dict["relative_residual"] = report.relative_residual;
  dict["reference_norm"] = report.reference_norm;
  dict["converged"] = report.converged;
  dict["stop_reason"] = report.stop_reason;
  dict["history"] = history;
  return dict;
}

// Ctrl-C between residual checks: Python's handler runs, and the solve is
// abandoned (Interrupted becomes KeyboardInterrupt).
void check_signals(const ps::ResidualCheck&) { throw_if_python_interrupted(); }

// x: the initial guess with the boundary ring (dirichlet), overwritten with
// the solution; rhs: B, x's extents. NumPy arrays, or GPU arrays used in
// place (arrays.hpp).
template <class T>
py::dict solve(const py::object& x, const py::object& rhs, const std::string& method, const std::string& boundary,
               double tolerance, std::int64_t max_iterations, std::int64_t check_every) {
  ensure_kokkos();
  ps::SolverOptions options;
  options.method = ps::method_from_name(method);
  options.boundary = ps::boundary_from_name(boundary);
  options.tolerance = tolerance;
  options.max_iterations = max_iterations;
  options.check_every = check_every;
  options.multigrid.fmg = true;
  const GridArgument<T> x_argument(x, "x", /*writable=*/true);
  const GridArgument<T> rhs_argument(rhs, "rhs", /*writable=*/false);
  if (rhs_argument.rows() != x_argument.rows() || rhs_argument.cols() != x_argument.cols())
    throw py::value_error("rhs and the boundary/initial guess must have the same shape");
  ps::SolveReport report;
  {
    py::gil_scoped_release release;
    ps::check(options);
    const View2D<T> x_device = x_argument.view(/*copy_in=*/true);
    // The solver takes a mutable rhs View; it only reads it.
    const View2D<T> rhs_device = rhs_argument.view(/*copy_in=*/true);
    report = ps::solve<T>(x_device, rhs_device, options, check_signals);
    x_argument.store(x_device);
  }
  return report_dict(report, options);
}

}  // namespace

void bind_poisson(py::module_& module) {
  const char* doc =
      "poisson_solve(x, rhs, method, boundary, tolerance, max_iterations, check_every) -> report: solves in "
      "place into x (2-D, C-contiguous, rhs's dtype; NumPy, or GPU arrays in CUDA builds)";
  module.def("poisson_solve_float64", &solve<double>, doc, py::arg("x"), py::arg("rhs"), py::arg("method"),
             py::arg("boundary"), py::arg("tolerance"), py::arg("max_iterations"), py::arg("check_every"));
  module.def("poisson_solve_float32", &solve<float>, doc, py::arg("x"), py::arg("rhs"), py::arg("method"),
             py::arg("boundary"), py::arg("tolerance"), py::arg("max_iterations"), py::arg("check_every"));
}

}  // namespace portasolve::python
