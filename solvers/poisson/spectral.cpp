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
// rows.
#include <cmath>

#include "fft/fft.hpp"
#include "solvers/poisson/methods.hpp"
#include "solvers/poisson/stencil.hpp"

namespace portasolve::poisson {

namespace {

using Range2D = Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<2>, Kokkos::IndexType<int>>;

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

template <class T>
struct Transpose {
  View2D<const T> in;
  View2D<T> out;
  KOKKOS_INLINE_FUNCTION void operator()(const int i, const int j) const { out(j, i) = in(i, j); }
};

// coefficients(q, p): column mode q, row mode p (the transposed layout).
// The scale undoes both inverse transforms' 2(k+1).
template <class T>
struct DivideByEigenvalues {
  View2D<T> coefficients;
  View1D<const T> row_eigenvalues, column_eigenvalues;
  T scale;
  KOKKOS_INLINE_FUNCTION void operator()(const int q, const int p) const {
    coefficients(q, p) /= (row_eigenvalues(p) + column_eigenvalues(q)) * scale;
  }
};

// lambda_p of the k-point second difference, computed in double.
template <class T>
View1D<T> eigenvalues(std::int64_t k, const char* label) {
  View1D<T> values(std::string(label), k);
  const auto host = Kokkos::create_mirror_view(values);
  const double pi = std::acos(-1.0);
  for (std::int64_t p = 0; p < k; ++p) {
    const double s = std::sin(pi * double(p + 1) / double(2 * (k + 1)));
    host(p) = static_cast<T>(-4 * s * s);
  }
  Kokkos::deep_copy(values, host);
  return values;
}

template <class T>
void transpose(const char* name, const View2D<T>& in, const View2D<T>& out) {
  Kokkos::parallel_for(name, Range2D({0, 0}, {int(in.extent(0)), int(in.extent(1))}), Transpose<T>{in, out});
}

}  // namespace

template <class T>
void run_spectral(const View2D<T>& x, const View2D<T>& rhs, const SolverOptions&, CheckSchedule& schedule) {
  const std::int64_t rows = x.extent(0), cols = x.extent(1), m = rows - 2, n = cols - 2;
  const auto grid = [](const char* label, std::int64_t r, std::int64_t c) {
    return View2D<T>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), r, c);
  };
  const View2D<T> interior = grid("spectral_interior", m, n), along_rows = grid("spectral_along_rows", m, n);
  const View2D<T> columns = grid("spectral_columns", n, m), coefficients = grid("spectral_coefficients", n, m);
  const fft::Plan<T> row_transform(fft::Kind::dst1, n, m), column_transform(fft::Kind::dst1, m, n);

  for_interior("spectral_fold_boundary", rows, cols, FoldBoundary<T>{x, rhs, interior});
  row_transform.execute(interior, along_rows);
  transpose("spectral_transpose", along_rows, columns);
  column_transform.execute(columns, coefficients);
  const T scale = static_cast<T>(4.0 * double(m + 1) * double(n + 1));
  Kokkos::parallel_for("spectral_divide", Range2D({0, 0}, {int(n), int(m)}),
                       DivideByEigenvalues<T>{coefficients, eigenvalues<T>(m, "spectral_row_eigenvalues"),
                                              eigenvalues<T>(n, "spectral_column_eigenvalues"), scale});
  column_transform.execute(coefficients, columns);
  transpose("spectral_transpose_back", columns, along_rows);
  row_transform.execute(along_rows, interior);
  for_interior("spectral_write_interior", rows, cols, WriteInterior<T>{interior, x});

  // One direct solve: "tolerance" when one was asked for and met, else "direct".
  schedule.record(1, residual_norm(x, rhs));
  if (!schedule.report().converged) schedule.report().stop_reason = "direct";
}

template void run_spectral<float>(const View2D<float>&, const View2D<float>&, const SolverOptions&, CheckSchedule&);
template void run_spectral<double>(const View2D<double>&, const View2D<double>&, const SolverOptions&,
                                   CheckSchedule&);

}  // namespace portasolve::poisson
