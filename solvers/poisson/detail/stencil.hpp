#pragma once
// The 5-point stencil on a rows x cols grid (LayoutRight, row i, column j):
// the Jacobi sweep, the residual B - L X, and what every method shares. The
// outer ring (i = 0, rows-1 or j = 0, cols-1) holds fixed boundary values and
// is never written.
#include <cstdint>
#include <type_traits>

#include "core/grid_range.hpp"
#include "core/spaces.hpp"

namespace portasolve::poisson::detail {

// Reductions over the grid accumulate in this type: a float iterate's
// residual is then its own, not the rounding noise of summing 10^5..10^8
// float terms (the benchmarks' stopping rule depends on it).
template <class T>
struct Accumulator {
  using type = double;
};

// The interior: rows 1..rows-2, columns 1..cols-2 (core/grid_range.hpp says how
// each backend walks it). Grids are limited to 2^31 points (solve()).
inline GridRectangle interior(std::int64_t rows, std::int64_t cols) {
  return GridRectangle{1, 1, static_cast<int>(rows - 2), static_cast<int>(cols - 2)};
}

template <class Functor>
void for_interior(const ExecSpace& exec, const char* name, std::int64_t rows, std::int64_t cols,
                  const Functor& functor) {
  for_rectangle(exec, name, interior(rows, cols), functor);
}

// Sums functor's contributions into `result` (a Sum&, exec then fenced, or a
// rank-0 device View).
template <class Sum, class Tag = void, class Functor, class Result>
void reduce_interior(const ExecSpace& exec, const char* name, std::int64_t rows, std::int64_t cols,
                     const Functor& functor, Result&& result) {
  reduce_rectangle<Sum, Tag>(exec, name, interior(rows, cols), functor, result);
}

// The same on the default instance (the distributed solve).
template <class Functor>
void for_interior(const char* name, std::int64_t rows, std::int64_t cols, const Functor& functor) {
  for_interior(ExecSpace(), name, rows, cols, functor);
}
template <class Sum, class Tag = void, class Functor, class Result>
void reduce_interior(const char* name, std::int64_t rows, std::int64_t cols, const Functor& functor, Result&& result) {
  reduce_interior<Sum, Tag>(ExecSpace(), name, rows, cols, functor, result);
}

// (L X)[i,j] - B[i,j] solved for X[i,j], optionally relaxed by omega, given
// quarter_rhs = B[i,j] / 4. Scaling by 4 is exact, so this rounds as
// (up + down + left + right - B) / 4 does, in one operation fewer: the
// product and the difference fuse. Every sweep goes through it, so all
// kernels round identically; kernels that keep B in registers quarter it once.
template <class T>
KOKKOS_INLINE_FUNCTION T jacobi_update_quartered(T centre, T up, T down, T left, T right, T quarter_rhs, T omega,
                                                 bool weighted) {
  const T jacobi = (up + down + left + right) * T(0.25) - quarter_rhs;
  return weighted ? centre + omega * (jacobi - centre) : jacobi;
}

template <class T>
KOKKOS_INLINE_FUNCTION T quarter(T rhs) {
  return rhs * T(0.25);
}

template <class T>
KOKKOS_INLINE_FUNCTION T jacobi_update(T centre, T up, T down, T left, T right, T rhs, T omega, bool weighted) {
  return jacobi_update_quartered(centre, up, down, left, right, quarter(rhs), omega, weighted);
}

template <class T>
struct JacobiSweep {
  View2D<const T> x;
  View2D<T> x_next;
  View2D<const T> rhs;
  T omega;
  bool weighted;

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i, const std::int64_t j) const {
    x_next(i, j) =
        jacobi_update(x(i, j), x(i - 1, j), x(i + 1, j), x(i, j - 1), x(i, j + 1), rhs(i, j), omega, weighted);
  }
};

// (L X)[i,j], formed in Sum: every residual rounds the same way.
template <class Sum, class Grid>
KOKKOS_INLINE_FUNCTION Sum laplacian_at(const Grid& x, const std::int64_t i, const std::int64_t j) {
  return Sum(x(i - 1, j)) + Sum(x(i + 1, j)) + Sum(x(i, j - 1)) + Sum(x(i, j + 1)) - 4 * Sum(x(i, j));
}

KOKKOS_INLINE_FUNCTION bool on_ring(const std::int64_t i, const std::int64_t j, const std::int64_t rows,
                                    const std::int64_t cols) {
  return i == 0 || j == 0 || i + 1 == rows || j + 1 == cols;
}

// x[i,j] on the ring (the boundary values), 0 inside.
template <class Grid>
KOKKOS_INLINE_FUNCTION auto ring_value(const Grid& x, const std::int64_t i, const std::int64_t j) {
  using Value = typename Grid::non_const_value_type;
  return on_ring(i, j, x.extent(0), x.extent(1)) ? x(i, j) : Value(0);
}

// Sum over the interior of (B - L X)^2, each term formed in Sum.
template <class T, class Sum>
struct ResidualSquared {
  View2D<const T> x;
  View2D<const T> rhs;

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i, const std::int64_t j, Sum& sum) const {
    const Sum r = Sum(rhs(i, j)) - laplacian_at<Sum>(x, i, j);
    sum += r * r;
  }
};

}  // namespace portasolve::poisson::detail
