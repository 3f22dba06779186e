#include "solvers/poisson/solver.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>

#include "core/errors.hpp"
#include "core/workspace_cache.hpp"
#include "solvers/poisson/detail/check_schedule.hpp"
#include "solvers/poisson/detail/methods.hpp"
#include "solvers/poisson/detail/stencil.hpp"
#include "solvers/poisson/detail/whole_grid.hpp"

namespace portasolve::poisson {

using namespace detail;

CheckSchedule::CheckSchedule(const SolverOptions& options, double reference_norm, const CheckCallback& on_check)
    : options_(options), on_check_(on_check) {
  report_.reference_norm = reference_norm;
}

std::int64_t CheckSchedule::next_check(std::int64_t done) const {
  return std::min(options_.max_iterations, (done / options_.check_every + 1) * options_.check_every);
}

// A problem whose zero-interior residual is 0 (B = 0, constant boundary...)
// is measured in absolute terms.
static double relative_to(const SolveReport& report, double residual_norm) {
  return report.reference_norm > 0 ? residual_norm / report.reference_norm : residual_norm;
}

bool CheckSchedule::would_stop(std::int64_t done, double residual_norm) const {
  const double relative = relative_to(report_, residual_norm);
  return !std::isfinite(relative) || (options_.tolerance > 0 && relative <= options_.tolerance) ||
         done >= options_.max_iterations;
}

bool CheckSchedule::record(std::int64_t done, double residual_norm) {
  const double relative = relative_to(report_, residual_norm);
  if (!std::isfinite(relative))
    throw SolverError("Poisson " + name_of(options_.method) + ": the residual is not finite after " +
                      std::to_string(done) + " iterations (diverged or overflowed)");
  report_.iterations = done;
  report_.relative_residual = relative;
  report_.history.push_back({done, relative});
  if (on_check_) on_check_(report_.history.back());
  if (options_.tolerance > 0 && relative <= options_.tolerance) {
    report_.converged = true;
    report_.stop_reason = "tolerance";
    return true;
  }
  if (done >= options_.max_iterations) {
    report_.stop_reason = "max_iterations";
    return true;
  }
  return false;
}

void CheckSchedule::stop(std::int64_t done, double residual_norm, const char* reason) {
  if (report_.history.empty() || report_.history.back().iteration != done) {
    if (record(done, residual_norm)) return;
  }
  report_.stop_reason = reason;
}

template <class T>
double residual_norm(const ExecSpace& exec, const View2D<T>& x, const View2D<T>& rhs) {
  using Sum = typename Accumulator<T>::type;
  Sum sum = 0;
  reduce_interior<Sum>(exec, "poisson_residual", x.extent(0), x.extent(1), ResidualSquared<T, Sum>{x, rhs}, sum);
  return std::sqrt(static_cast<double>(sum));
}

template <class T>
double residual_norm(const ExecSpace& exec, const View2D<T>& x, const View2D<T>& rhs, Boundary boundary) {
  if (boundary == Boundary::dirichlet) return residual_norm(exec, x, rhs);
  return whole_grid_residual_norm(exec, x, rhs, boundary);
}

template <class T>
double residual_norm(const View2D<T>& x, const View2D<T>& rhs) {
  return residual_norm(ExecSpace(), x, rhs);
}

template <class T>
double residual_norm(const View2D<T>& x, const View2D<T>& rhs, Boundary boundary) {
  return residual_norm(ExecSpace(), x, rhs, boundary);
}

namespace {

// Sum of (B - L X0)^2 with X0 = x's ring and a zero interior, read in place:
// only ring neighbours contribute to L X0, so points off the ring's
// neighbours take B alone (B minus four zeros: the same value).
template <class T, class Sum>
struct ZeroInteriorResidualSquared {
  View2D<const T> x, rhs;
  KOKKOS_INLINE_FUNCTION Sum ring(const std::int64_t i, const std::int64_t j) const { return Sum(ring_value(x, i, j)); }
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i, const std::int64_t j, Sum& sum) const {
    const std::int64_t rows = x.extent(0), cols = x.extent(1);
    const bool next_to_ring = i == 1 || j == 1 || i + 2 == rows || j + 2 == cols;
    const Sum r = next_to_ring ? Sum(rhs(i, j)) - (ring(i - 1, j) + ring(i + 1, j) + ring(i, j - 1) + ring(i, j + 1))
                               : Sum(rhs(i, j));
    sum += r * r;
  }
};

template <class T>
double zero_interior_residual_norm(const ExecSpace& exec, const View2D<T>& x, const View2D<T>& rhs) {
  using Sum = typename Accumulator<T>::type;
  Sum sum = 0;
  reduce_interior<Sum>(exec, "poisson_reference_residual", x.extent(0), x.extent(1),
                       ZeroInteriorResidualSquared<T, Sum>{x, rhs}, sum);
  return std::sqrt(static_cast<double>(sum));
}

// Relative disagreement allowed between the last check's residual and the
// re-check: cg_fused may record the norm of r rounded to T after a restart.
constexpr double recheck_agreement = 1e-3;

// The final residual once more, from x as the caller receives it (after any
// copy back), by a fresh reduction. A solve whose x does not give what its
// checks measured (a race, a stale copy, memory corrupted after the check)
// is an error, never a reported answer.
template <class T>
void recheck_final_residual(const ExecSpace& exec, const View2D<T>& x, const View2D<T>& rhs,
                            const SolverOptions& options, const SolveReport& report) {
  const double norm = residual_norm(exec, x, rhs, options.boundary);
  const double relative = report.reference_norm > 0 ? norm / report.reference_norm : norm;
  const double recorded = report.relative_residual;
  if (std::isfinite(relative) && std::abs(relative - recorded) <= recheck_agreement * std::max(relative, recorded))
    return;
  const auto scientific = [](double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%.6e", value);
    return std::string(text);
  };
  throw SolverError("Poisson " + name_of(options.method) + ": the solution's residual re-checked from scratch is " +
                    scientific(relative) + ", not the " + scientific(recorded) + " its last check measured (" +
                    std::to_string(report.iterations) +
                    " iterations): the result is not trusted; rerun, or choose other kernels");
}

}  // namespace

template <class T>
SolveReport solve(const ExecSpace& exec, const View2D<T>& x, const View2D<T>& rhs, const SolverOptions& asked,
                  const CheckCallback& on_check) {
  check(asked);
  SolverOptions options = asked;
  options.method = chosen_method(asked);
  if (x.extent(0) < 3 || x.extent(1) < 3)
    throw std::invalid_argument("Poisson grid " + std::to_string(x.extent(0)) + "x" + std::to_string(x.extent(1)) +
                                " has no interior: it needs at least 3x3 points");
  if (x.extent(0) * x.extent(1) > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    throw std::invalid_argument("Poisson grid " + std::to_string(x.extent(0)) + "x" + std::to_string(x.extent(1)) +
                                " has more than 2^31 points, the kernels' index range");
  if (rhs.extent(0) != x.extent(0) || rhs.extent(1) != x.extent(1))
    throw std::invalid_argument("Poisson right-hand side is " + std::to_string(rhs.extent(0)) + "x" +
                                std::to_string(rhs.extent(1)) + ", the grid " + std::to_string(x.extent(0)) + "x" +
                                std::to_string(x.extent(1)));
  const bool dirichlet = options.boundary == Boundary::dirichlet;
  CheckSchedule schedule(options, dirichlet ? zero_interior_residual_norm(exec, x, rhs) : whole_grid_norm(exec, rhs),
                         on_check);
  if (!schedule.record(0, residual_norm(exec, x, rhs, options.boundary))) {
    switch (options.method) {
      case Method::jacobi:
      case Method::jacobi_blocked:
        run_jacobi(exec, x, rhs, options, schedule);
        break;
      case Method::cg:
        run_cg(exec, x, rhs, options, schedule);
        break;
      case Method::cg_fused:
        run_cg_fused(exec, x, rhs, options, schedule);
        break;
      case Method::multigrid:
        run_multigrid(exec, x, rhs, options, schedule);
        break;
      case Method::spectral:
        run_spectral(exec, x, rhs, options, schedule);
        break;
      case Method::automatic:
        break;  // chosen_method never returns it
    }
  }
  // A host reduction on exec: on return x is complete.
  recheck_final_residual(exec, x, rhs, options, schedule.report());
  schedule.report().method = options.method;
  return schedule.report();
}

template <class T>
SolveReport solve(const View2D<T>& x, const View2D<T>& rhs, const SolverOptions& options,
                  const CheckCallback& on_check) {
  return solve(ExecSpace(), x, rhs, options, on_check);
}

#define PORTASOLVE_POISSON_ENTRY_POINTS(T)                                                                       \
  template SolveReport solve<T>(const ExecSpace&, const View2D<T>&, const View2D<T>&, const SolverOptions&,      \
                                const CheckCallback&);                                                           \
  template SolveReport solve<T>(const View2D<T>&, const View2D<T>&, const SolverOptions&, const CheckCallback&); \
  template double residual_norm<T>(const ExecSpace&, const View2D<T>&, const View2D<T>&);                        \
  template double residual_norm<T>(const View2D<T>&, const View2D<T>&);                                          \
  template double residual_norm<T>(const ExecSpace&, const View2D<T>&, const View2D<T>&, Boundary);              \
  template double residual_norm<T>(const View2D<T>&, const View2D<T>&, Boundary);
PORTASOLVE_POISSON_ENTRY_POINTS(float)
PORTASOLVE_POISSON_ENTRY_POINTS(double)
#undef PORTASOLVE_POISSON_ENTRY_POINTS

void release_workspaces() { portasolve::release_workspaces(); }

}  // namespace portasolve::poisson
