// portasolve.poisson.solve: L X = B with the 5-point Laplacian.
#include <Python.h>

#include <string>

#include "python/src/arrays.hpp"
#include "python/src/bindings.hpp"
#include "python/src/session.hpp"
#include "python/src/signals.hpp"
#include "solvers/poisson/solver.hpp"

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
// the solution; rhs: B, x's extents.
template <class T>
py::dict solve(Array<T>& x, const Array<T>& rhs, const std::string& method, const std::string& boundary,
               double tolerance, std::int64_t max_iterations, std::int64_t check_every) {
  ensure_kokkos();
  ps::SolverOptions options;
  options.method = ps::method_from_name(method);
  options.boundary = ps::boundary_from_name(boundary);
  options.tolerance = tolerance;
  options.max_iterations = max_iterations;
  options.check_every = check_every;
  options.multigrid.fmg = true;
  const HostArray2D<T> x_host = write_view(x, "x");
  const HostArray2D<const T> rhs_host = read_view(rhs, "rhs");
  if (rhs_host.extent(0) != x_host.extent(0) || rhs_host.extent(1) != x_host.extent(1))
    throw py::value_error("rhs and the boundary/initial guess must have the same shape");
  ps::SolveReport report;
  {
    py::gil_scoped_release release;
    ps::check(options);
    const View2D<T> x_device = device_view(x_host, "poisson_x", /*copy=*/true);
    // The solver takes a mutable rhs View; it only reads it.
    View2D<T> rhs_device(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("poisson_rhs")),
                         rhs_host.extent(0), rhs_host.extent(1));
    Kokkos::deep_copy(rhs_device, rhs_host);
    report = ps::solve<T>(x_device, rhs_device, options, check_signals);
    to_host(x_device, x_host);
  }
  return report_dict(report, options);
}

}  // namespace

void bind_poisson(py::module_& module) {
  const char* doc =
      "poisson_solve(x, rhs, method, boundary, tolerance, max_iterations, check_every) -> report: solves in "
      "place into x (2-D, C-contiguous, rhs's dtype)";
  module.def("poisson_solve_float64", &solve<double>, doc, py::arg("x").noconvert(), py::arg("rhs"), py::arg("method"),
             py::arg("boundary"), py::arg("tolerance"), py::arg("max_iterations"), py::arg("check_every"));
  module.def("poisson_solve_float32", &solve<float>, doc, py::arg("x").noconvert(), py::arg("rhs"), py::arg("method"),
             py::arg("boundary"), py::arg("tolerance"), py::arg("max_iterations"), py::arg("check_every"));
}

}  // namespace portasolve::python
