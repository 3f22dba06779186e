#pragma once
// The neumann and periodic problems (options.hpp): L X = B at every point of
// the rows x cols grid, the neighbours beyond an edge given by the boundary's
// rule. Their residuals and the data's solvability condition.
#include <cmath>
#include <cstdint>

#include "solvers/poisson/detail/stencil.hpp"
#include "solvers/poisson/options.hpp"

namespace portasolve::poisson::detail {

inline GridRectangle whole_grid(std::int64_t rows, std::int64_t cols) {
  return GridRectangle{0, 0, static_cast<int>(rows), static_cast<int>(cols)};
}

// Index of the neighbour at k (-1 or extent) on a line of `extent` points.
KOKKOS_INLINE_FUNCTION int wrapped(int k, int extent) { return k < 0 ? extent - 1 : k == extent ? 0 : k; }
KOKKOS_INLINE_FUNCTION int mirrored(int k, int extent) { return k < 0 ? 1 : k == extent ? extent - 2 : k; }
KOKKOS_INLINE_FUNCTION int neighbour(int k, int extent, bool periodic) {
  return periodic ? wrapped(k, extent) : mirrored(k, extent);
}

// The weight of point (i, j) in the solvability condition and the mean the
// solution is fixed by: 1 (periodic), or the trapezoid rule's 1/2 on each
// edge row and column (neumann).
KOKKOS_INLINE_FUNCTION double mean_weight(int i, int j, int rows, int cols, bool periodic) {
  if (periodic) return 1;
  return (i == 0 || i + 1 == rows ? 0.5 : 1.0) * (j == 0 || j + 1 == cols ? 0.5 : 1.0);
}

// Sum over the grid of (B - L X)^2 with the boundary's neighbours, in Sum.
template <class T, class Sum>
struct WholeGridResidualSquared {
  View2D<const T> x, rhs;
  bool periodic;  // else neumann
  KOKKOS_INLINE_FUNCTION int at(int k, int extent) const { return neighbour(k, extent, periodic); }
  KOKKOS_INLINE_FUNCTION void operator()(const int i, const int j, Sum& sum) const {
    const int rows = int(x.extent(0)), cols = int(x.extent(1));
    const Sum laplacian = Sum(x(at(i - 1, rows), j)) + Sum(x(at(i + 1, rows), j)) + Sum(x(i, at(j - 1, cols))) +
                          Sum(x(i, at(j + 1, cols))) - 4 * Sum(x(i, j));
    const Sum r = Sum(rhs(i, j)) - laplacian;
    sum += r * r;
  }
};

template <class T, class Sum>
struct SquaredValues {
  View2D<const T> values;
  KOKKOS_INLINE_FUNCTION void operator()(const int i, const int j, Sum& sum) const {
    sum += Sum(values(i, j)) * Sum(values(i, j));
  }
};

template <class T>
double whole_grid_residual_norm(const ExecSpace& exec, const View2D<T>& x, const View2D<T>& rhs, Boundary boundary) {
  using Sum = typename Accumulator<T>::type;
  Sum sum = 0;
  reduce_rectangle<Sum>(exec, "poisson_whole_grid_residual", whole_grid(x.extent(0), x.extent(1)),
                        WholeGridResidualSquared<T, Sum>{x, rhs, boundary == Boundary::periodic}, sum);
  return std::sqrt(static_cast<double>(sum));
}

// Throws InputError unless B meets the boundary's solvability condition
// (its weighted sum, mean_weight, zero to T's rounding): L X = B has no
// solution otherwise (spectral_whole_grid.cpp).
template <class T>
void require_solvable(const ExecSpace& exec, const View2D<T>& rhs, Boundary boundary);

// ||B||_2 over the whole grid: the residual of X = 0.
template <class T>
double whole_grid_norm(const ExecSpace& exec, const View2D<T>& rhs) {
  using Sum = typename Accumulator<T>::type;
  Sum sum = 0;
  reduce_rectangle<Sum>(exec, "poisson_whole_grid_norm", whole_grid(rhs.extent(0), rhs.extent(1)),
                        SquaredValues<T, Sum>{rhs}, sum);
  return std::sqrt(static_cast<double>(sum));
}

}  // namespace portasolve::poisson::detail
