// The spectral method: the Dirichlet problem solved directly, exact to
// rounding. With the boundary ring folded into the right-hand side, the
// interior (m = rows-2 by n = cols-2 points) satisfies L_m U + U L_n = B'
// with L_k the 1-D second difference of k points and zero ends. Its
// eigenvectors are the DST-I modes sin(pi (i+1)(p+1) / (k+1)), eigenvalues
//   lambda_p = 2 cos(pi (p+1) / (k+1)) - 2 = -4 sin^2(pi (p+1) / (2 (k+1))),
// the second form free of cancellation for the smooth modes. So
//   U = S_m^-1 [ (S_m B' S_n) / (lambda_p + lambda_q) ] S_n^-1,
// S the DST-I matrices (fft/fft.hpp; S^-1 = S / (2(k+1))): four batched
// transforms, two transposes between them so every transform runs along
// rows. The neumann and periodic boundaries: spectral_whole_grid.cpp.
#include <cmath>
#include <utility>

#include "solvers/poisson/methods.hpp"
#include "solvers/poisson/spectral_kernels.hpp"
#include "solvers/poisson/stencil.hpp"
#include "solvers/poisson/workspace_cache.hpp"

namespace portasolve::poisson {

namespace {

// folded(i-1, j-1) = B[i,j] minus the ring values among (i,j)'s neighbours:
// L X = B with X's ring fixed is L_interior U = folded.
template <class T>
struct FoldBoundary {
  View2D<const T> x, rhs;
  View2D<T> folded;
  KOKKOS_INLINE_FUNCTION T ring(const std::int64_t i, const std::int64_t j) const {
    const bool on_ring = i == 0 || j == 0 || i + 1 == std::int64_t(x.extent(0)) || j + 1 == std::int64_t(x.extent(1));
    return on_ring ? x(i, j) : T(0);
  }
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i, const std::int64_t j) const {
    folded(i - 1, j - 1) = rhs(i, j) - (ring(i - 1, j) + ring(i + 1, j) + ring(i, j - 1) + ring(i, j + 1));
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
    const Sum around = Sum(x(i - 1, j)) + Sum(x(i + 1, j)) + Sum(x(i, j - 1)) + Sum(x(i, j + 1));
    residual(i - 1, j - 1) = T(Sum(rhs(i, j)) - (around - 4 * Sum(x(i, j))));
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

// What a Dirichlet solve of one shape needs besides x and B: built once and
// kept for the next solve of that shape (workspace_cache.hpp).
template <class T>
struct DirichletWorkspace {
  using Key = std::pair<std::int64_t, std::int64_t>;  // rows, cols
  View2D<T> interior, along_rows, columns, coefficients;
  fft::Plan<T> row_transform, column_transform;
  View1D<T> row_eigenvalues, column_eigenvalues;

  DirichletWorkspace(std::int64_t m, std::int64_t n)
      : interior(spectral_grid<T>("spectral_interior", m, n)),
        along_rows(spectral_grid<T>("spectral_along_rows", m, n)),
        columns(spectral_grid<T>("spectral_columns", n, m)),
        coefficients(spectral_grid<T>("spectral_coefficients", n, m)),
        row_transform(fft::Kind::dst1, n, m),
        column_transform(fft::Kind::dst1, m, n),
        row_eigenvalues(second_difference_eigenvalues<T>(m, 1, pi() / double(2 * (m + 1)))),
        column_eigenvalues(second_difference_eigenvalues<T>(n, 1, pi() / double(2 * (n + 1)))) {}
  static double pi() { return std::acos(-1.0); }
};

// U = L_interior^-1 of w.interior, in place: four transforms, two
// transposes and the division by the eigenvalues.
template <class T>
void apply_inverse(DirichletWorkspace<T>& w) {
  const std::int64_t m = w.interior.extent(0), n = w.interior.extent(1);
  w.row_transform.execute(w.interior, w.along_rows);
  transpose("spectral_transpose", w.along_rows, w.columns);
  w.column_transform.execute(w.columns, w.coefficients);
  divide_by_eigenvalues(w.coefficients, w.row_eigenvalues, w.column_eigenvalues, 4.0 * double(m + 1) * double(n + 1));
  w.column_transform.execute(w.coefficients, w.columns);
  transpose("spectral_transpose_back", w.columns, w.along_rows);
  w.row_transform.execute(w.along_rows, w.interior);
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
void solve_dirichlet(const View2D<T>& x, const View2D<T>& rhs, const SolverOptions& options,
                     CheckSchedule& schedule) {
  const std::int64_t rows = x.extent(0), cols = x.extent(1), m = rows - 2, n = cols - 2;
  const detail::BorrowedWorkspace<DirichletWorkspace<T>> w({rows, cols},
                                                           [&] { return DirichletWorkspace<T>(m, n); });
  for_interior("spectral_fold_boundary", rows, cols, FoldBoundary<T>{x, rhs, w->interior});
  apply_inverse(*w);
  for_interior("spectral_write_interior", rows, cols, WriteInterior<T>{w->interior, x});
  // Refinement runs only when a tolerance asks for it and is not yet met.
  for (std::int64_t solves = 1;; ++solves) {
    const double before = schedule.report().relative_residual;
    if (schedule.record(solves, residual_norm(x, rhs))) {
      if (!schedule.report().converged) schedule.report().stop_reason = "direct";
      return;
    }
    const bool gained = solves == 1 || schedule.report().relative_residual * least_refinement_gain <= before;
    if (options.tolerance <= 0 || solves >= most_direct_solves || !gained) {
      schedule.report().stop_reason = "direct";
      return;
    }
    for_interior("spectral_residual", rows, cols, InteriorResidual<T>{x, rhs, w->interior});
    apply_inverse(*w);
    for_interior("spectral_add_correction", rows, cols, AddCorrection<T>{w->interior, x});
  }
}

}  // namespace

template <class T>
void run_spectral(const View2D<T>& x, const View2D<T>& rhs, const SolverOptions& options, CheckSchedule& schedule) {
  switch (options.boundary) {
    case Boundary::dirichlet: solve_dirichlet(x, rhs, options, schedule); return;
    case Boundary::neumann: solve_neumann(x, rhs); break;
    case Boundary::periodic: solve_periodic(x, rhs); break;
  }
  // One direct solve: "tolerance" when one was asked for and met, else "direct".
  if (!schedule.record(1, residual_norm(x, rhs, options.boundary)) || !schedule.report().converged)
    schedule.report().stop_reason = "direct";
}

template void run_spectral<float>(const View2D<float>&, const View2D<float>&, const SolverOptions&, CheckSchedule&);
template void run_spectral<double>(const View2D<double>&, const View2D<double>&, const SolverOptions&,
                                   CheckSchedule&);

}  // namespace portasolve::poisson
