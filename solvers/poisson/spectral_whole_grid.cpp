// The spectral method on the whole-grid boundaries (options.hpp):
//   neumann: DCT-I along both directions diagonalises the mirrored operator,
//     eigenvalues -4 sin^2(pi p / (2(k-1))), p = 0..k-1; DCT-I is its own
//     inverse up to 2(k-1).
//   periodic: the real FFT along rows and the complex FFT along columns,
//     eigenvalues -4 sin^2(pi p / k); the transforms' round trip is rows x cols.
// The constant mode (eigenvalue 0) is where B's solvability condition lives:
// B's weighted sum must vanish to rounding, and the solution's is set to 0.
#include <cmath>
#include <cstdio>
#include <string>

#include "core/errors.hpp"
#include "solvers/poisson/detail/spectral_kernels.hpp"
#include "solvers/poisson/detail/whole_grid.hpp"
#include "solvers/poisson/options.hpp"

namespace portasolve::poisson::detail {

template <class T>
void solve_neumann(const ExecSpace& exec, const View2D<T>& x, const View2D<T>& rhs, fft::Implementation fft) {
  require_solvable(exec, rhs, Boundary::neumann);
  const std::int64_t rows = x.extent(0), cols = x.extent(1);
  const View2D<T> along_rows = spectral_grid<T>("spectral_along_rows", rows, cols);
  const View2D<T> columns = spectral_grid<T>("spectral_columns", cols, rows);
  const View2D<T> coefficients = spectral_grid<T>("spectral_coefficients", cols, rows);
  const auto plan = [&](fft::Kind kind, std::int64_t length, std::int64_t batch) {
    return fft::Plan<T>(kind, length, batch, fft::Planning::estimate, fft::Threading::library, fft);
  };
  const fft::Plan<T> row_transform = plan(fft::Kind::dct1, cols, rows),
                     column_transform = plan(fft::Kind::dct1, rows, cols);
  const double pi = std::acos(-1.0);

  row_transform.execute(exec, rhs, along_rows);
  transpose(exec, "spectral_transpose", along_rows, columns);
  column_transform.execute(exec, columns, coefficients);
  divide_by_eigenvalues(exec, coefficients,
                        second_difference_eigenvalues<T>(exec, rows, 0, pi / double(2 * (rows - 1))),
                        second_difference_eigenvalues<T>(exec, cols, 0, pi / double(2 * (cols - 1))),
                        4.0 * double(rows - 1) * double(cols - 1));
  column_transform.execute(exec, coefficients, columns);
  transpose(exec, "spectral_transpose_back", columns, along_rows);
  row_transform.execute(exec, along_rows, x);
  exec.fence();  // the buffers and plans above go on return
}

template <class T>
void solve_periodic(const ExecSpace& exec, const View2D<T>& x, const View2D<T>& rhs, fft::Implementation fft) {
  using Complex = Kokkos::complex<T>;
  require_solvable(exec, rhs, Boundary::periodic);
  const std::int64_t rows = x.extent(0), cols = x.extent(1), half = cols / 2 + 1;
  const View2D<Complex> row_spectra = spectral_grid<Complex>("spectral_row_spectra", rows, half);
  const View2D<Complex> columns = spectral_grid<Complex>("spectral_columns", half, rows);
  const View2D<Complex> coefficients = spectral_grid<Complex>("spectral_coefficients", half, rows);
  const auto plan = [&](fft::Kind kind, std::int64_t length, std::int64_t batch) {
    return fft::Plan<T>(kind, length, batch, fft::Planning::estimate, fft::Threading::library, fft);
  };
  const fft::Plan<T> rows_forward = plan(fft::Kind::real_forward, cols, rows);
  const fft::Plan<T> rows_backward = plan(fft::Kind::real_backward, cols, rows);
  const fft::Plan<T> columns_forward = plan(fft::Kind::complex_forward, rows, half);
  const fft::Plan<T> columns_backward = plan(fft::Kind::complex_backward, rows, half);
  const double pi = std::acos(-1.0);

  rows_forward.execute(exec, rhs, row_spectra);
  transpose(exec, "spectral_transpose", row_spectra, columns);
  columns_forward.execute(exec, columns, coefficients);
  divide_by_eigenvalues(exec, coefficients, second_difference_eigenvalues<T>(exec, rows, 0, pi / double(rows)),
                        second_difference_eigenvalues<T>(exec, half, 0, pi / double(cols)),
                        double(rows) * double(cols));
  columns_backward.execute(exec, coefficients, columns);
  transpose(exec, "spectral_transpose_back", columns, row_spectra);
  rows_backward.execute(exec, row_spectra, x);
  exec.fence();  // the buffers and plans above go on return
}

namespace {

// |weighted sum of B| allowed, relative to the weighted sum of |B|: B
// rounded to T from compatible data stays far below it.
template <class T>
constexpr double incompatibility_tolerance = sizeof(T) == 4 ? 1e-5 : 1e-11;

// Sum of w B, or of w |B|: w = 1 (periodic) or the trapezoid weights, 1/2
// on each edge row and column (neumann).
template <class T>
struct WeightedSum {
  View2D<const T> rhs;
  bool trapezoid, absolute;
  KOKKOS_INLINE_FUNCTION void operator()(const int i, const int j, double& sum) const {
    const double weight = mean_weight(i, j, int(rhs.extent(0)), int(rhs.extent(1)), !trapezoid);
    const double value = double(rhs(i, j));
    sum += weight * (absolute && value < 0 ? -value : value);
  }
};

}  // namespace

template <class T>
void require_solvable(const ExecSpace& exec, const View2D<T>& rhs, Boundary boundary) {
  const bool neumann = boundary == Boundary::neumann;
  const GridRectangle grid = whole_grid(rhs.extent(0), rhs.extent(1));
  double sum = 0, magnitude = 0;
  reduce_rectangle<double>(exec, "spectral_solvability_sum", grid, WeightedSum<T>{rhs, neumann, false}, sum);
  reduce_rectangle<double>(exec, "spectral_solvability_magnitude", grid, WeightedSum<T>{rhs, neumann, true}, magnitude);
  if (std::abs(sum) <= incompatibility_tolerance<T> * magnitude) return;
  const char* what = neumann ? "trapezoid-weighted sum (edge rows and columns weighted 1/2)" : "sum";
  char numbers[160];
  std::snprintf(numbers, sizeof numbers, " is %.6g, not zero to rounding (%.0e of the same sum of |B|, %.6g)", sum,
                incompatibility_tolerance<T>, magnitude);
  throw InputError("Poisson boundary " + name_of(boundary) + ": B's " + what + numbers +
                   ", so L X = B has no solution; subtract B's weighted mean");
}

template void require_solvable<float>(const ExecSpace&, const View2D<float>&, Boundary);
template void require_solvable<double>(const ExecSpace&, const View2D<double>&, Boundary);
template void solve_neumann<float>(const ExecSpace&, const View2D<float>&, const View2D<float>&, fft::Implementation);
template void solve_neumann<double>(const ExecSpace&, const View2D<double>&, const View2D<double>&,
                                    fft::Implementation);
template void solve_periodic<float>(const ExecSpace&, const View2D<float>&, const View2D<float>&, fft::Implementation);
template void solve_periodic<double>(const ExecSpace&, const View2D<double>&, const View2D<double>&,
                                     fft::Implementation);

}  // namespace portasolve::poisson::detail
