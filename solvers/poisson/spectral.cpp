// The spectral method: the Dirichlet problem solved directly, exact to
// rounding. With the boundary ring folded into the right-hand side, the
// interior (m = rows-2 by n = cols-2 points) satisfies L_m U + U L_n = B'
// with L_k the 1-D second difference of k points and zero ends. L_n's
// eigenvectors are the DST-I modes sin(pi (j+1)(q+1) / (n+1)), eigenvalues
//   lambda_q = 2 cos(pi (q+1) / (n+1)) - 2 = -4 sin^2(pi (q+1) / (2 (n+1))),
// the second form free of cancellation for the smooth modes. A DST-I along
// every row (fft/fft.hpp) turns the problem into one tridiagonal system per
// mode q down the columns,
//   u[i-1] + (lambda_q - 2) u[i] + u[i+1] = g[i],   u[-1] = u[m] = 0,
// solved by the Thomas algorithm; a second DST-I along the rows (S^-1 =
// S / (2(n+1))) gives U. Two transforms instead of four, no transposes, and
// the columns walked with consecutive threads on consecutive modes (Hockney's
// method). The neumann and periodic boundaries: spectral_whole_grid.cpp.
#include <cmath>
#include <tuple>
#include <utility>

#include "core/workspace_cache.hpp"
#include "solvers/poisson/detail/methods.hpp"
#include "solvers/poisson/detail/spectral_kernels.hpp"
#include "solvers/poisson/detail/stencil.hpp"

namespace portasolve::poisson::detail {

namespace {

// folded(i-1, j-1) = B[i,j] minus the ring values among (i,j)'s neighbours:
// L X = B with X's ring fixed is L_interior U = folded.
template <class T>
struct FoldBoundary {
  View2D<const T> x, rhs;
  View2D<T> folded;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i, const std::int64_t j) const {
    folded(i - 1, j - 1) = rhs(i, j) - (ring_value(x, i - 1, j) + ring_value(x, i + 1, j) + ring_value(x, i, j - 1) +
                                        ring_value(x, i, j + 1));
  }
};

template <class T>
struct WriteInterior {
  View2D<const T> interior;
  View2D<T> x;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i, const std::int64_t j) const {
    x(i, j) = interior(i - 1, j - 1);
  }
};

// The residual B - L X of the whole current x (ring included) on the
// interior, formed in Sum and rounded once: a refinement step's right-hand
// side, with a zero ring (the correction's boundary).
template <class T>
struct InteriorResidual {
  View2D<const T> x, rhs;
  View2D<T> residual;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i, const std::int64_t j) const {
    using Sum = typename Accumulator<T>::type;
    residual(i - 1, j - 1) = T(Sum(rhs(i, j)) - laplacian_at<Sum>(x, i, j));
  }
};

template <class T>
struct AddCorrection {
  View2D<const T> correction;
  View2D<T> x;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i, const std::int64_t j) const {
    x(i, j) += correction(i - 1, j - 1);
  }
};

// Rows each thread of the column solve loads before its sequential
// recurrence: independent loads in flight hide the latency of walking down a
// column, which alone would leave the memory system idle.
constexpr int column_chunk = 16;

// The Thomas algorithm's factors c_i = 1 / (b_q - c_{i-1}), c_{-1} = 0,
// b_q = lambda_q - 2, for every mode q: they depend on the shape alone, so a
// workspace computes them once (in double, stored in T).
template <class T>
struct ThomasFactors {
  View2D<T> factors;
  View1D<const double> eigenvalues;
  KOKKOS_INLINE_FUNCTION void operator()(const int q) const {
    const double b = eigenvalues(q) - 2;
    double c = 0;
    for (int i = 0; i < int(factors.extent(0)); ++i) {
      c = 1 / (b - c);
      factors(i, q) = T(c);
    }
  }
};

// One mode's tridiagonal system down its column, in place: forward
// d_i = (g_i - d_{i-1}) c_i, backward u_i = d_i - c_i u_{i+1}, in double,
// u scaled by `scale` (the inverse transform's 1 / (2(n+1))) when stored.
template <class T>
struct ColumnSolve {
  View2D<T> modes;
  View2D<const T> factors;
  double scale;
  KOKKOS_INLINE_FUNCTION void operator()(const int q) const {
    const int m = int(modes.extent(0));
    T g[column_chunk], c[column_chunk];
    double d = 0;
    for (int first = 0; first < m; first += column_chunk) {
      const int count = m - first < column_chunk ? m - first : column_chunk;
      for (int k = 0; k < column_chunk; ++k)
        if (k < count) {
          g[k] = modes(first + k, q);
          c[k] = factors(first + k, q);
        }
      for (int k = 0; k < column_chunk; ++k)
        if (k < count) {
          d = (double(g[k]) - d) * double(c[k]);
          modes(first + k, q) = T(d);
        }
    }
    double u = 0;
    for (int last = m - 1; last >= 0; last -= column_chunk) {
      const int count = last + 1 < column_chunk ? last + 1 : column_chunk;
      for (int k = 0; k < column_chunk; ++k)
        if (k < count) {
          g[k] = modes(last - k, q);
          c[k] = factors(last - k, q);
        }
      for (int k = 0; k < column_chunk; ++k)
        if (k < count) {
          u = double(g[k]) - double(c[k]) * u;
          modes(last - k, q) = T(u * scale);
        }
    }
  }
};

// What a Dirichlet solve of one shape needs besides x and B: built once and
// kept for the next solve of that shape (core/workspace_cache.hpp).
template <class T>
struct DirichletWorkspace {
  using Key = std::tuple<std::int64_t, std::int64_t, fft::Implementation>;  // rows, cols, FFT
  View2D<T> interior, modes, factors;
  fft::Plan<T> row_transform;

  // Built on exec (its Thomas factors computed there); a kept workspace was
  // last used by a solve that ended with a host reduction on its instance,
  // so nothing still runs on it when another solve takes it.
  DirichletWorkspace(const ExecSpace& exec, std::int64_t m, std::int64_t n, fft::Implementation fft)
      : interior(spectral_grid<T>("spectral_interior", m, n)),
        modes(spectral_grid<T>("spectral_modes", m, n)),
        factors(spectral_grid<T>("spectral_thomas_factors", m, n)),
        row_transform(fft::Kind::dst1, n, m, fft::Planning::estimate, fft::Threading::library, fft) {
    const View1D<double> eigenvalues =
        second_difference_eigenvalues<double>(exec, n, 1, std::acos(-1.0) / double(2 * (n + 1)));
    Kokkos::parallel_for("spectral_thomas_factors", Kokkos::RangePolicy<ExecSpace>(exec, 0, n),
                         ThomasFactors<T>{factors, eigenvalues});
  }
};

// U = L_interior^-1 of w.interior, in place.
template <class T>
void apply_inverse(const ExecSpace& exec, DirichletWorkspace<T>& w) {
  const std::int64_t n = w.interior.extent(1);
  w.row_transform.execute(exec, w.interior, w.modes);
  Kokkos::parallel_for("spectral_column_solve", Kokkos::RangePolicy<ExecSpace>(exec, 0, n),
                       ColumnSolve<T>{w.modes, w.factors, 1.0 / double(2 * (n + 1))});
  w.row_transform.execute(exec, w.modes, w.interior);
}

// Direct solves (one, then refinement steps) a solve may run. In float one
// solve leaves a relative residual of a few 1e-6 (the transforms' rounding,
// amplified by L's conditioning); a refinement step (solve L E = B - L X
// with a zero ring, the residual formed in double, then X += E) takes it to
// the rounding of X itself. More steps gain nothing.
constexpr std::int64_t most_direct_solves = 3;
// A step that does not at least halve the residual has reached that floor.
constexpr double least_refinement_gain = 2;

template <class T>
void solve_dirichlet(const ExecSpace& exec, const View2D<T>& x, const View2D<T>& rhs, const SolverOptions& options,
                     CheckSchedule& schedule) {
  const std::int64_t rows = x.extent(0), cols = x.extent(1), m = rows - 2, n = cols - 2;
  const fft::Implementation fft = fft_implementation(options.spectral_fft);
  const BorrowedWorkspace<DirichletWorkspace<T>> w({rows, cols, fft},
                                                   [&] { return DirichletWorkspace<T>(exec, m, n, fft); });
  for_interior(exec, "spectral_fold_boundary", rows, cols, FoldBoundary<T>{x, rhs, w->interior});
  apply_inverse(exec, *w);
  for_interior(exec, "spectral_write_interior", rows, cols, WriteInterior<T>{w->interior, x});
  // Refinement runs only when a tolerance asks for it and is not yet met.
  for (std::int64_t solves = 1;; ++solves) {
    const double before = schedule.report().relative_residual;
    if (schedule.record(solves, residual_norm(exec, x, rhs))) {
      if (!schedule.report().converged) schedule.report().stop_reason = "direct";
      return;
    }
    const bool gained = solves == 1 || schedule.report().relative_residual * least_refinement_gain <= before;
    if (options.tolerance <= 0 || solves >= most_direct_solves || !gained) {
      schedule.report().stop_reason = "direct";
      return;
    }
    for_interior(exec, "spectral_residual", rows, cols, InteriorResidual<T>{x, rhs, w->interior});
    apply_inverse(exec, *w);
    for_interior(exec, "spectral_add_correction", rows, cols, AddCorrection<T>{w->interior, x});
  }
}

}  // namespace

template <class T>
void run_spectral(const ExecSpace& exec, const View2D<T>& x, const View2D<T>& rhs, const SolverOptions& options,
                  CheckSchedule& schedule) {
  switch (options.boundary) {
    case Boundary::dirichlet:
      solve_dirichlet(exec, x, rhs, options, schedule);
      return;
    case Boundary::neumann:
      solve_neumann(exec, x, rhs, fft_implementation(options.spectral_fft));
      break;
    case Boundary::periodic:
      solve_periodic(exec, x, rhs, fft_implementation(options.spectral_fft));
      break;
  }
  // One direct solve: "tolerance" when one was asked for and met, else "direct".
  if (!schedule.record(1, residual_norm(exec, x, rhs, options.boundary)) || !schedule.report().converged)
    schedule.report().stop_reason = "direct";
}

template void run_spectral<float>(const ExecSpace&, const View2D<float>&, const View2D<float>&, const SolverOptions&,
                                  CheckSchedule&);
template void run_spectral<double>(const ExecSpace&, const View2D<double>&, const View2D<double>&, const SolverOptions&,
                                   CheckSchedule&);

}  // namespace portasolve::poisson::detail
