#pragma once
// The 5-point stencil on a rows x cols grid (LayoutRight, row i, column j):
// the Jacobi sweep, the residual B - L X, and what every method shares. The
// outer ring (i = 0, rows-1 or j = 0, cols-1) holds fixed boundary values and
// is never written.
#include <cstdint>
#include <type_traits>

#include "core/spaces.hpp"

namespace portasolve::poisson {

// Reductions over the grid accumulate in this type: a float iterate's
// residual is then its own, not the rounding noise of summing 10^5..10^8
// float terms (the benchmarks' stopping rule depends on it).
template <class T>
struct Accumulator {
  using type = double;
};

// How kernels walk the interior. GPUs: one flat 32-bit range, (i, j) recovered
// by one division, which runs at the memory bandwidth where Kokkos 3.4's 2-D
// MDRange reached a third of it. Hosts: a range of rows, each thread running
// along its rows' columns, which the compiler vectorises (the division costs
// more than the stencil there). Grids are limited to 2^31 points (solve()).
constexpr bool host_execution = std::is_same<ExecSpace, HostExecSpace>::value;

template <class Functor>
struct InteriorPoints {
  Functor functor;
  int inner_cols;
  KOKKOS_INLINE_FUNCTION void operator()(const int k) const {
    if constexpr (host_execution) {
      for (int j = 1; j <= inner_cols; ++j) functor(k + 1, j);
    } else {
      functor(1 + k / inner_cols, 1 + k % inner_cols);
    }
  }
};

// Tag: void calls functor(i, j, sum), else functor(Tag{}, i, j, sum).
template <class Functor, class Sum, class Tag>
struct InteriorSum {
  using value_type = Sum;
  Functor functor;
  int inner_cols;
  KOKKOS_INLINE_FUNCTION void add(const int i, const int j, Sum& sum) const {
    if constexpr (std::is_void<Tag>::value) functor(i, j, sum);
    else functor(Tag{}, i, j, sum);
  }
  KOKKOS_INLINE_FUNCTION void operator()(const int k, Sum& sum) const {
    if constexpr (host_execution) {
      for (int j = 1; j <= inner_cols; ++j) add(k + 1, j, sum);
    } else {
      add(1 + k / inner_cols, 1 + k % inner_cols, sum);
    }
  }
};

inline Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<int>> interior_range(std::int64_t rows, std::int64_t cols) {
  const std::int64_t count = host_execution ? rows - 2 : (rows - 2) * (cols - 2);
  return Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<int>>(0, static_cast<int>(count));
}

template <class Functor>
void for_interior(const char* name, std::int64_t rows, std::int64_t cols, const Functor& functor) {
  Kokkos::parallel_for(name, interior_range(rows, cols), InteriorPoints<Functor>{functor, static_cast<int>(cols - 2)});
}

// Sums functor's contributions into `result` (a Sum& or a rank-0 device View).
template <class Sum, class Tag = void, class Functor, class Result>
void reduce_interior(const char* name, std::int64_t rows, std::int64_t cols, const Functor& functor, Result&& result) {
  Kokkos::parallel_reduce(name, interior_range(rows, cols),
                          InteriorSum<Functor, Sum, Tag>{functor, static_cast<int>(cols - 2)}, result);
}

// (L X)[i,j] - B[i,j] solved for X[i,j], optionally relaxed by omega. Shared by
// the plain and the blocked sweep so both round identically.
template <class T>
KOKKOS_INLINE_FUNCTION T jacobi_update(T centre, T up, T down, T left, T right, T rhs, T omega, bool weighted) {
  const T jacobi = (up + down + left + right - rhs) / T(4);
  return weighted ? centre + omega * (jacobi - centre) : jacobi;
}

template <class T>
struct JacobiSweep {
  View2D<const T> x;
  View2D<T> x_next;
  View2D<const T> rhs;
  T omega;
  bool weighted;

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i, const std::int64_t j) const {
    x_next(i, j) = jacobi_update(x(i, j), x(i - 1, j), x(i + 1, j), x(i, j - 1), x(i, j + 1), rhs(i, j), omega, weighted);
  }
};

// Sum over the interior of (B - L X)^2, each term formed in Sum.
template <class T, class Sum>
struct ResidualSquared {
  View2D<const T> x;
  View2D<const T> rhs;

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i, const std::int64_t j, Sum& sum) const {
    const Sum laplacian = Sum(x(i - 1, j)) + Sum(x(i + 1, j)) + Sum(x(i, j - 1)) + Sum(x(i, j + 1)) - 4 * Sum(x(i, j));
    const Sum r = Sum(rhs(i, j)) - laplacian;
    sum += r * r;
  }
};

}  // namespace portasolve::poisson
